// The durable event log's port (issue 24): what each store appends in a change's own transaction, how a reader pages
// through it, and the pure rules that turn a written change into its events (ids, states and names, never board text).
import type { Task, TaskSummary } from 'roundtable-shared';
import { taskEvent, type LoggedEvent } from '../events.js';
import type { ReservationChange, TaskChange, TaskEdit } from './changes.js';

/**
 * A position in the log: rows are read in (xid, id) order. On SQLite xid is always "0" (one writer: ids are commit
 * order); on PostgreSQL it is the writing transaction's id, so a transaction that commits late can never land before
 * a position a reader has already passed (store/postgres/event-log.ts).
 */
export interface LogPosition {
  /** A decimal xid8 (it may exceed 2^53). */
  readonly xid: string;
  readonly id: number;
}

export const LOG_START: LogPosition = { xid: '0', id: 0 };

export interface LogEntry {
  readonly position: LogPosition;
  readonly event: LoggedEvent;
  /** When the row was written (ISO 8601, UTC); read where a reader shows it (the Activity timeline). */
  readonly at?: string;
}

/**
 * Which rows the Activity timeline (issue 36) reads, newest first. `actor` is who acted (a task event's actor, a task
 * message's author, a room message's sender); `action` the activity kind: a task event's action, or `task_message`,
 * `room` (the virtual columns of SQLite 017 and PostgreSQL 016, each indexed). One kind a read, so the index gives the
 * order: several kinds are one read each, merged (web/activity-feed.ts). Times are ISO 8601 in UTC: since inclusive.
 */
export interface ActivityFilter {
  readonly actor?: string;
  readonly action?: string;
  readonly since?: string;
  readonly until?: string;
}

/** The SQL conditions of a filter beside the position, with the named parameter each takes; both stores build theirs from it. */
export function activityConditions(filter: ActivityFilter): Array<'actor' | 'action' | 'since' | 'until'> {
  return (['actor', 'action', 'since', 'until'] as const).filter((key) => filter[key] !== undefined);
}

export interface EventPage {
  /** The rows after the position asked for, oldest first. */
  readonly entries: readonly LogEntry[];
  /** Where the next read continues: the last row read, or the position asked for when none was. */
  readonly end: LogPosition;
  /** More rows follow this page now. */
  readonly more: boolean;
  /** Rows after the position asked for were deleted by retention: reading on would skip them. */
  readonly expired: boolean;
  /**
   * PostgreSQL: rows exist that a transaction older than one still running wrote; they become readable when it ends,
   * at a position after `end`. A reader woken for one of them reads again shortly.
   */
  readonly held: boolean;
}

/** How long the log keeps rows: whichever bound deletes more (runtime/config.ts validates both). */
export interface EventRetention {
  readonly maxRows: number;
  readonly maxAgeMs: number;
}

/** Kept unless configured (ROUNDTABLE_EVENT_LOG_MAX_ROWS, ROUNDTABLE_EVENT_LOG_MAX_AGE; docs/SPEC.md). */
export const DEFAULT_RETENTION: EventRetention = { maxRows: 100_000, maxAgeMs: 7 * 86_400_000 };

/** Retention runs once every this many appended rows, in the write that appends the row whose id is a multiple. */
export const PRUNE_EVERY = 256;

/** The order of positions: negative when a is before b. */
export function comparePositions(a: LogPosition, b: LogPosition): number {
  const ax = BigInt(a.xid);
  const bx = BigInt(b.xid);
  if (ax !== bx) return ax < bx ? -1 : 1;
  return a.id - b.id;
}

/** The events of one accepted transition: the task's own, then each unfinished dependent's it settled. */
/** Whether a transition's result settles dependents: their events are read in the same transaction. */
export function touchesDependents(task: Pick<Task, 'status'>): boolean {
  return task.status === 'done' || task.status === 'cancelled';
}

export function transitionEvents(task: TaskSummary, change: TaskChange, dependents: readonly TaskSummary[]): LoggedEvent[] {
  const events = [taskEvent(task, change)];
  if (task.status === 'done') {
    for (const d of dependents) if (d.blocked_by.length === 0) events.push(taskEvent(d, { actor: 'roundtable', action: 'unblocked' }));
  } else if (task.status === 'cancelled') {
    for (const d of dependents) events.push(taskEvent(d, { actor: 'roundtable', action: 'blocker_cancelled' }));
  }
  return events;
}

export function editEvents(task: TaskSummary, edit: TaskEdit | null): LoggedEvent[] {
  return edit ? [taskEvent(task, { actor: edit.actor, action: 'edited' })] : [];
}

export function reservationEvents(task: TaskSummary, change: ReservationChange): LoggedEvent[] {
  if (change.add.length === 0 && change.remove.length === 0) return [];
  return [taskEvent(task, { actor: change.actor, action: change.action })];
}

export function summaryOf(task: Task): TaskSummary {
  const { description: _d, result: _r, ...summary } = task;
  return summary;
}
