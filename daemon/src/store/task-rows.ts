// How a task is stored and read back, the same on both stores: the row, the priority's rank, the graph fields
// (depends_on, blocked_by, ...) a row gains from its dependency edges, and what a transition leaves on the row.
import { PRIORITIES, type Priority, type Task, type TaskStatus } from 'roundtable-shared';
import type { EndedClaim } from './history-rows.js';
import type { TaskChange } from './store.js';

/** A task as both stores keep it; required_skills is JSON text, priority a rank. */
export interface TaskRow {
  id: number;
  title: string;
  description: string;
  required_skills: string;
  status: TaskStatus;
  assignee: string | null;
  created_by: string;
  result: string | null;
  claim_id: number | null;
  lease_expires_at: string | null;
  created_at: string;
  updated_at: string;
  priority: number;
  blocker_count: number;
  cancelled_blocker_count: number;
}

/** What a task row gains from its edges. */
export interface TaskGraph {
  readonly priority: Priority;
  readonly depends_on: number[];
  readonly blocked_by: number[];
  readonly blocked_by_cancelled: number[];
}

/** The columns a task row carries for the graph; the counts are the store's own and never leave it. */
export interface GraphColumns {
  readonly id: number;
  readonly priority: number;
  readonly blocker_count?: number;
  readonly cancelled_blocker_count?: number;
}

/** One dependency edge with its blocker's status, as both stores read them for a page of tasks. */
export interface EdgeWithStatus {
  readonly task_id: number;
  readonly depends_on: number;
  readonly status: TaskStatus;
}

export const priorityRank = (priority: Priority): number => PRIORITIES.indexOf(priority);

/** Rows with their priority's name and their edges, without the store's own counts. */
export function withGraph<R extends GraphColumns>(rows: readonly R[], found: Iterable<EdgeWithStatus>): Array<Omit<R, 'priority' | 'blocker_count' | 'cancelled_blocker_count'> & TaskGraph> {
  const edges = new Map<number, EdgeWithStatus[]>();
  for (const edge of found) {
    const list = edges.get(edge.task_id) ?? [];
    list.push(edge);
    edges.set(edge.task_id, list);
  }
  return rows.map(({ priority, blocker_count: _b, cancelled_blocker_count: _c, ...row }) => {
    const mine = edges.get(row.id) ?? [];
    return {
      ...row,
      priority: PRIORITIES[priority] ?? 'normal',
      depends_on: mine.map((e) => e.depends_on),
      blocked_by: mine.filter((e) => e.status !== 'done').map((e) => e.depends_on),
      blocked_by_cancelled: mine.filter((e) => e.status === 'cancelled').map((e) => e.depends_on),
    };
  });
}

/** The claim, lease and result a task row holds after a change. */
export interface ChangedFields {
  readonly claimId: number | null;
  readonly leaseExpiresAt: string | null;
  readonly result: string | null;
}

/**
 * What a change leaves on the task row: a new claim gets the fresh id the store gave it (`freshClaimId`) and its lease;
 * staying claimed keeps both; any other move out of `claimed` ends the lease. A change that leaves the result keeps it.
 */
export function changedFields(before: Task, change: TaskChange, freshClaimId: number | null): ChangedFields {
  const result = change.result === undefined ? before.result : change.result;
  if (change.lease) return { claimId: freshClaimId, leaseExpiresAt: change.lease.expiresAt, result };
  const staysClaimed = change.status === 'claimed';
  return { claimId: staysClaimed ? before.claim_id : null, leaseExpiresAt: staysClaimed ? before.lease_expires_at : null, result };
}

/** The claim a change ended (so its reservations end with it, in the same transaction), or null. */
export function endedClaim(before: Task, change: TaskChange, claimId: number | null, at: string): EndedClaim | null {
  if (before.claim_id === null || claimId === before.claim_id) return null;
  return { taskId: before.id, claimId: before.claim_id, status: change.status, assignee: change.assignee, how: change.action, at };
}

/** Reaching done unblocks dependents and cancelled strands them: either way they are recounted. */
export function settlesDependents(before: Task, change: TaskChange): boolean {
  return (change.status === 'done' || change.status === 'cancelled') && before.status !== change.status;
}
