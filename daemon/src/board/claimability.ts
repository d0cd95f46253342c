// Whether anyone in the agents in force can claim a task as written, and if not, which of its skills no claimer has.
// Fed by the registry (agents.json or the agents table): an agent given the skill later makes the task claimable.
import type { TaskStatus } from 'roundtable-shared';
import type { Agent, AgentDirectory } from '../agents/directory.js';
import { mayClaim, missingSkills, namedSkills } from './rules.js';

/** What create_task and update_task answer beside the task when no one can claim it (shared/src/tools/tasks.ts). */
export interface ClaimWarning {
  readonly code: 'no_one_can_claim';
  /** The required skills no member who may claim it has; empty when each is held, but never all by one member. */
  readonly missing_skills: string[];
  readonly message: string;
}

type Claimable = { readonly status: TaskStatus; readonly required_skills: readonly string[]; readonly assignee: string | null };

/** Who may claim the task at all: its assignee alone when it has one, else every worker (peer mode: every peer). */
function claimersOf(task: Claimable, directory: AgentDirectory): Agent[] {
  const claimers = directory.list().filter((agent) => mayClaim({ agent, mode: directory.mode }));
  return task.assignee === null ? claimers : claimers.filter((agent) => agent.name === task.assignee);
}

/**
 * The required skills that stop every claimer of an open task, or undefined when someone can claim it, it requires
 * none (a task that requires no skill is not this rule's business, even on a board with no worker yet), or it is no
 * longer open (whoever holds it had the skills).
 */
export function skillsNoClaimerHas(task: Claimable, directory: AgentDirectory): string[] | undefined {
  if (task.status !== 'open' || task.required_skills.length === 0) return undefined;
  const claimers = claimersOf(task, directory);
  if (claimers.some((agent) => missingSkills(task, agent).length === 0)) return undefined;
  return task.required_skills.filter((skill) => !claimers.some((agent) => agent.skills.includes(skill)));
}

/** The warning for a task no one can claim, in the board's words (skills are plain names: SPEC §1; see namedSkills). */
export function claimWarning(task: Claimable, directory: AgentDirectory): ClaimWarning | undefined {
  const missing = skillsNoClaimerHas(task, directory);
  if (missing === undefined) return undefined;
  const member = directory.mode === 'role' ? 'worker' : 'peer';
  const lack =
    task.assignee !== null
      ? `its assignee ${task.assignee} lacks ${namedSkills(missing)}`
      : missing.length
        ? `no ${member} has ${namedSkills(missing)}`
        : `no single ${member} has all of ${namedSkills(task.required_skills)}`;
  return {
    code: 'no_one_can_claim',
    missing_skills: missing,
    message: `no one can claim this task: ${lack}. Give a ${member} the skill (\`roundtable agents set NAME --skills ...\`), or change required_skills${task.assignee === null ? '' : ' or the assignee'} with update_task`,
  };
}

/** The agents a reload added, removed, or gave another role or skills: what a task's claimability depends on. */
export function claimersChanged(previous: AgentDirectory, current: AgentDirectory): string[] {
  if (previous.mode !== current.mode) return current.list().map((agent) => agent.name);
  const removed = previous.list().filter((agent) => !current.find(agent.name)).map((agent) => agent.name);
  const changed = current.list().flatMap((agent) => {
    const before = previous.find(agent.name);
    const same = before && before.role === agent.role && before.skills.length === agent.skills.length && before.skills.every((s) => agent.skills.includes(s));
    return same ? [] : [agent.name];
  });
  return [...removed, ...changed];
}
