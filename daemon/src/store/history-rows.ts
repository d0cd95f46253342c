// A task's history as both stores write it: the activity row each kind of change appends, and the wording of the
// rows the board writes on its own (a lapsed lease, paths released with a claim, a cancelled blocker).
import type { Task, TaskStatus } from 'roundtable-shared';
import type { NewTask, ReservationChange, TaskChange, TaskEdit } from './store.js';

/** One activity row to insert; `edit` only on an edit's row. */
export interface ActivityRow {
  readonly task_id: number;
  readonly agent: string;
  readonly action: string;
  readonly from_status: string | null;
  readonly to_status: string;
  readonly assignee: string | null;
  readonly note: string | null;
  readonly claim_id: number | null;
  readonly edit?: string | null;
  readonly at: string;
}

export function createdRow(id: number, task: NewTask, at: string): ActivityRow {
  return { task_id: id, agent: task.createdBy, action: 'created', from_status: null, to_status: 'open', assignee: task.assignee, note: null, claim_id: null, at };
}

/** A transition's row; a new claim is recorded under its fresh id, any other move under the claim it leaves. */
export function changedRow(before: Task, change: TaskChange, claimId: number | null, at: string): ActivityRow {
  return {
    task_id: before.id,
    agent: change.actor,
    action: change.action,
    from_status: before.status,
    to_status: change.status,
    assignee: change.assignee,
    note: change.note ?? null,
    claim_id: change.lease ? claimId : before.claim_id,
    at,
  };
}

/** An edit's row keeps the changed fields' old values, so nothing written is lost. */
export function editedRow(before: Task, edit: TaskEdit, assignee: string | null, at: string): ActivityRow {
  return {
    task_id: before.id,
    agent: edit.actor,
    action: 'edited',
    from_status: before.status,
    to_status: before.status,
    assignee,
    note: null,
    claim_id: before.claim_id,
    edit: JSON.stringify({ fields: edit.fields, old: edit.old }),
    at,
  };
}

export function reservationsChangedRow(task: Task, change: ReservationChange, at: string): ActivityRow {
  return {
    task_id: task.id,
    agent: change.actor,
    action: change.action,
    from_status: task.status,
    to_status: task.status,
    assignee: task.assignee,
    note: change.note,
    claim_id: change.claimId,
    at,
  };
}

/** A claim that just ended, inside the transaction that ended it: its reservations end with it. */
export interface EndedClaim {
  readonly taskId: number;
  readonly claimId: number;
  readonly status: TaskStatus;
  readonly assignee: string | null;
  /** The action that ended it (released, submitted, lease_expired, ...). */
  readonly how: string;
  readonly at: string;
}

export function pathsReleasedRow(ended: EndedClaim, count: number): ActivityRow {
  return {
    task_id: ended.taskId,
    agent: 'roundtable',
    action: 'paths_released',
    from_status: ended.status,
    to_status: ended.status,
    assignee: ended.assignee,
    note: `${count} path reservation${count === 1 ? '' : 's'} of claim ${ended.claimId} ended with the claim (${ended.how})`,
    claim_id: ended.claimId,
    at: ended.at,
  };
}

/** A claim whose lease ran out, as the sweep finds it. */
export interface LapsedClaim {
  readonly id: number;
  readonly assignee: string;
  readonly claim_id: number;
  readonly lease_expires_at: string;
}

export function leaseExpiredRow(lapse: LapsedClaim, at: string): ActivityRow {
  return {
    task_id: lapse.id,
    agent: 'roundtable',
    action: 'lease_expired',
    from_status: 'claimed',
    to_status: 'open',
    assignee: null,
    note: `claim ${lapse.claim_id} by ${lapse.assignee} lapsed at ${lapse.lease_expires_at}`,
    claim_id: lapse.claim_id,
    at,
  };
}

/** The note on each unfinished dependent of a cancelled task (a `blocker_cancelled` row), saying how to go on. */
export function strandedNote(blockerId: number): string {
  return `task ${blockerId}, which this task depends on, was cancelled; edit depends_on with update_task, or cancel this task`;
}
