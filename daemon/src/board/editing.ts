// Editing a task as a pure decision: who may edit what, what changed, and the old values the history keeps.
import { FINAL_STATUSES, type Priority, type Task } from 'roundtable-shared';
import { Conflict, Forbidden, InvalidInput } from '../errors.js';
import type { DependencyFacts, TaskEdit } from '../store/store.js';
import { checkDependencies } from './dependencies.js';
import { maySteer, requireNotObserver, steersAll, type Caller } from './rules.js';

/** The fields an edit asks for, normalised (skills and dependencies without repeats); absent: unchanged. */
export interface EditRequest {
  readonly title?: string | undefined;
  readonly description?: string | undefined;
  readonly requiredSkills?: readonly string[] | undefined;
  readonly priority?: Priority | undefined;
  readonly assignee?: string | null | undefined;
  readonly dependsOn?: readonly number[] | undefined;
}

/** Who edits tasks at all: the leader and owners, or a peer in peer mode (only its own tasks; see decideEdit). */
export function requireEditor(caller: Caller): void {
  requireNotObserver(caller, 'edit tasks');
  if (caller.mode === 'role' && !steersAll(caller)) {
    throw new Forbidden(`only the leader or an owner may edit tasks; you are ${caller.agent.name}, a ${caller.agent.role}`);
  }
}

/** Who is told of tasks stranded by a cancelled blocker: whoever may edit them (the leader and owners all of them). */
export function strandedScope(caller: Caller): 'all' | 'created' | 'none' {
  if (steersAll(caller)) return 'all';
  return caller.mode === 'peer' && caller.agent.role === 'peer' ? 'created' : 'none';
}

/** The same members, whatever the order: compared item by item, never joined into one string (a member may hold the joiner). */
function sameList<T extends string | number>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  const sortedA = [...a].sort();
  const sortedB = [...b].sort();
  return sortedA.every((item, i) => item === sortedB[i]);
}

/** Returns the edit to write, or null when every field asked for already has that value. */
export function decideEdit(task: Task, caller: Caller, request: EditRequest, facts: DependencyFacts): TaskEdit | null {
  requireEditor(caller);
  const { agent } = caller;
  if (!maySteer(task, caller)) {
    throw new Forbidden(`task ${task.id} was created by ${task.created_by}; in peer mode only its creator or an owner may edit it`);
  }
  if (FINAL_STATUSES.includes(task.status)) throw new Conflict(`task ${task.id} is ${task.status}; a final task cannot be edited`);

  const set: { -readonly [K in keyof TaskEdit['set']]: TaskEdit['set'][K] } = {};
  const old: Record<string, unknown> = {};
  const fields: string[] = [];
  const change = <K extends keyof TaskEdit['set']>(field: string, key: K, before: unknown, after: TaskEdit['set'][K]) => {
    fields.push(field);
    old[field] = before;
    set[key] = after;
  };
  if (request.title !== undefined && request.title !== task.title) change('title', 'title', task.title, request.title);
  if (request.description !== undefined && request.description !== task.description) change('description', 'description', task.description, request.description);
  if (request.requiredSkills !== undefined && !sameList(request.requiredSkills, task.required_skills)) {
    change('required_skills', 'requiredSkills', task.required_skills, request.requiredSkills);
  }
  if (request.priority !== undefined && request.priority !== task.priority) change('priority', 'priority', task.priority, request.priority);
  if (request.assignee !== undefined && request.assignee !== task.assignee) change('assignee', 'assignee', task.assignee, request.assignee);
  if (request.dependsOn !== undefined && !sameList(request.dependsOn, task.depends_on)) {
    checkDependencies(task.id, request.dependsOn, facts);
    change('depends_on', 'dependsOn', task.depends_on, request.dependsOn);
  }

  // The holder took the task on these terms: changing who may hold it, or what it takes, would pull it from under them.
  const held = fields.filter((f) => f === 'required_skills' || f === 'assignee');
  if (held.length > 0 && (task.status === 'claimed' || task.status === 'submitted')) {
    throw new Conflict(
      `task ${task.id} is ${task.status} by ${task.assignee ?? 'someone'}; its ${held.join(' and ')} cannot change now. ${
        task.status === 'claimed' ? 'Release it first (release_task, with a note)' : 'Review it first'
      }, then edit it`,
    );
  }
  if (fields.length === 0) return null;
  return { actor: agent.name, set, fields, old };
}

/** An edit must ask for something. */
export function requireSomeField(request: EditRequest): void {
  if (Object.values(request).every((v) => v === undefined)) {
    throw new InvalidInput('update_task: give at least one of title, description, required_skills, priority, assignee, depends_on; nothing was changed');
  }
}
