// The board's rules as pure decisions: given the caller and the task as stored, return the change or throw why not.
import { FINAL_STATUSES, type Task, type Verdict } from 'roundtable-shared';
import type { Agent } from '../agents.js';
import { Conflict, Forbidden, InvalidInput } from '../errors.js';
import type { TaskChange } from '../store/store.js';

export function requireLeader(agent: Agent, action: string): void {
  if (agent.role !== 'leader') throw new Forbidden(`only the leader may ${action}; you are ${agent.name}, a ${agent.role}`);
}

export function requireWorker(agent: Agent, action: string): void {
  if (agent.role !== 'worker') throw new Forbidden(`only workers may ${action}; you are ${agent.name}, the ${agent.role}`);
}

/** The assignee given at creation must be a worker on the board. */
export function checkAssignee(assignee: Agent | undefined, name: string): void {
  if (!assignee) throw new InvalidInput(`assignee: no agent is called "${name}"; list_agents shows the names`);
  if (assignee.role !== 'worker') throw new InvalidInput(`assignee: "${name}" is the ${assignee.role}; only a worker can be assigned a task`);
}

export function missingSkills(task: Pick<Task, 'required_skills'>, agent: Agent): string[] {
  return task.required_skills.filter((skill) => !agent.skills.includes(skill));
}

export function decideClaim(task: Task, agent: Agent): TaskChange {
  requireWorker(agent, 'claim tasks');
  if (task.status !== 'open') {
    const holder = task.assignee === agent.name ? 'you already hold it' : `it is ${task.status}${task.assignee ? ` by ${task.assignee}` : ''}`;
    throw new Conflict(`task ${task.id} cannot be claimed: ${holder}. list_tasks with claimable_by_me shows what you can claim`);
  }
  if (task.assignee !== null && task.assignee !== agent.name) {
    throw new Forbidden(`task ${task.id} is reserved for ${task.assignee}; only that worker may claim it`);
  }
  const missing = missingSkills(task, agent);
  if (missing.length > 0) {
    throw new Forbidden(`task ${task.id} needs skills you do not have: ${missing.join(', ')}`);
  }
  return { actor: agent.name, action: 'claimed', status: 'claimed', assignee: agent.name };
}

function requireHolder(task: Task, agent: Agent, action: string): void {
  if (task.status !== 'claimed') {
    throw new Conflict(`task ${task.id} is ${task.status}, not claimed; only a claimed task can be ${action}`);
  }
  if (task.assignee !== agent.name) {
    throw new Forbidden(`task ${task.id} is claimed by ${task.assignee ?? 'nobody'}; only its assignee may ${action === 'released' ? 'release' : 'submit'} it`);
  }
}

/** Release returns the task to the open pool; it is then claimable by any qualified worker. */
export function decideRelease(task: Task, agent: Agent): TaskChange {
  requireHolder(task, agent, 'released');
  return { actor: agent.name, action: 'released', status: 'open', assignee: null };
}

export function decideSubmit(task: Task, agent: Agent, result: string): TaskChange {
  requireHolder(task, agent, 'submitted');
  // The result is also kept in the history, so a later rejection and resubmission loses nothing.
  return { actor: agent.name, action: 'submitted', status: 'submitted', assignee: agent.name, result, note: result };
}

export function decideReview(task: Task, agent: Agent, verdict: Verdict, note: string | null): TaskChange {
  requireLeader(agent, 'review tasks');
  if (task.status !== 'submitted') {
    throw new Conflict(`task ${task.id} is ${task.status}, not submitted; only a submitted task can be reviewed`);
  }
  if (verdict === 'reject') {
    if (note === null || !/\S/.test(note)) {
      throw new InvalidInput('note: required to reject; say what the worker should change');
    }
    return { actor: agent.name, action: 'rejected', status: 'open', assignee: null, result: null, note, review: { verdict, note } };
  }
  return { actor: agent.name, action: 'approved', status: 'done', assignee: task.assignee, note, review: { verdict, note } };
}

export function decideCancel(task: Task, agent: Agent, reason: string | null): TaskChange {
  requireLeader(agent, 'cancel tasks');
  if (FINAL_STATUSES.includes(task.status)) {
    throw new Conflict(`task ${task.id} is already ${task.status}; a final task cannot be cancelled`);
  }
  return { actor: agent.name, action: 'cancelled', status: 'cancelled', assignee: task.assignee, note: reason };
}

export function checkCanPost(task: Task): void {
  if (FINAL_STATUSES.includes(task.status)) {
    throw new Conflict(`task ${task.id} is ${task.status}; messages cannot be added to a final task`);
  }
}
