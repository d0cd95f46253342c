// What a person may make of an app in a project: never more than their own role there (issue 34). An owner may grant
// any agent of the project, or a new worker or observer (a new leader only where the project has none; a peer in
// a peer project); an observer may grant only an observer.
import type { BoardMode, PersonRole, Role } from 'roundtable-shared';
import type { Agent } from '../agents/directory.js';

export function newAgentRoles(person: PersonRole, mode: BoardMode, agents: readonly Agent[]): Role[] {
  if (person === 'observer') return ['observer'];
  if (mode === 'peer') return ['peer', 'observer'];
  const hasLeader = agents.some((a) => a.role === 'leader');
  return hasLeader ? ['worker', 'observer'] : ['worker', 'leader', 'observer'];
}

export function grantableAgents(person: PersonRole, agents: readonly Agent[]): Agent[] {
  return agents.filter((a) => a.role !== 'owner' && (person === 'owner' || a.role === 'observer'));
}
