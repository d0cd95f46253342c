// One task as stored on PostgreSQL: its columns, its row read (or locked FOR UPDATE) with its edges, as the task
// operations (tasks.ts) and the lease sweep (leases.ts) read it; below both.
import type { Task, TaskStatus } from 'roundtable-shared';
import { NotFound } from '../../errors.js';
import { withGraph, type TaskRow } from '../task-rows.js';
import type { Db, Tx } from './connection.js';
import { attachGraph } from './dependencies.js';

export type SummaryRow = Omit<TaskRow, 'description' | 'result' | 'blocker_count' | 'cancelled_blocker_count'>;

export const SUMMARY_COLUMNS = 'id, title, required_skills, status, assignee, created_by, claim_id, lease_expires_at, created_at, updated_at, priority';
export const TASK_COLUMNS = `${SUMMARY_COLUMNS}, description, result, blocker_count, cancelled_blocker_count`;

export async function toTask(db: Db, row: TaskRow): Promise<Task> {
  const [task] = await attachGraph(db, [row]);
  return { ...task!, required_skills: JSON.parse(row.required_skills) as string[] };
}

export async function loadTask(db: Db, id: number): Promise<Task> {
  const [row] = await db.unsafe<TaskRow[]>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE id = $1`, [id], { prepare: true });
  return toTask(db, row!);
}

/** The task's edges as [blocker, its status] pairs, by blocker id, read in the same statement as the task's row. */
export const EDGES_OF_TASK = `COALESCE((SELECT json_agg(json_build_array(d.depends_on, b.status) ORDER BY d.depends_on)
  FROM task_dependencies d JOIN tasks b ON b.id = d.depends_on WHERE d.task_id = tasks.id), '[]'::json)`;

export type LockedRow = TaskRow & { edges: Array<[number, TaskStatus]> };

/** A task from its row and the edges read with it, without another query. */
export function taskOf(row: TaskRow, edges: LockedRow['edges']): Task {
  const [task] = withGraph([row], edges.map(([dependsOn, status]) => ({ task_id: row.id, depends_on: dependsOn, status })));
  return { ...task!, required_skills: JSON.parse(row.required_skills) as string[] };
}

/** The task's row locked until the transaction ends, with its edges, in one round trip; NotFound if there is none. */
export async function lockRow(tx: Tx, id: number): Promise<LockedRow> {
  const [row] = await tx.unsafe<LockedRow[]>(`SELECT ${TASK_COLUMNS}, ${EDGES_OF_TASK} AS edges FROM tasks WHERE id = $1 FOR UPDATE`, [id], { prepare: true });
  if (!row) throw new NotFound(`task ${id} does not exist; list_tasks shows the tasks there are`);
  return row;
}

/** The task as stored, its row locked until the transaction ends; NotFound if there is none. */
export async function lockTask(tx: Tx, id: number): Promise<Task> {
  const { edges, ...row } = await lockRow(tx, id);
  return taskOf(row, edges);
}
