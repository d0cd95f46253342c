// Dependencies on PostgreSQL: the edges, the blocker counts kept on each task, and the graph facts the rules judge.
// Same queries as SQLite's sqlite/dependencies.ts; every write runs inside the caller's transaction.
import type { TaskStatus } from 'roundtable-shared';
import { strandedNote } from '../history-rows.js';
import { withGraph, type EdgeWithStatus, type GraphColumns, type TaskGraph } from '../task-rows.js';
import type { DependencyEdge, DependencyFacts } from '../store.js';
import type { Db, Tx } from './connection.js';

/** Edge changes take this advisory lock, so two edits cannot each add half of a cycle (SQLite has one writer anyway). */
const GRAPH_LOCK = 7_316_002;

const RECOUNT = `blocker_count = (SELECT COUNT(*) FROM task_dependencies d JOIN tasks b ON b.id = d.depends_on WHERE d.task_id = tasks.id AND b.status != 'done'),
  cancelled_blocker_count = (SELECT COUNT(*) FROM task_dependencies d JOIN tasks b ON b.id = d.depends_on WHERE d.task_id = tasks.id AND b.status = 'cancelled')`;

/** Rows with their priority's name and their edges, without the store's own counts. */
export async function attachGraph<R extends GraphColumns>(db: Db, rows: readonly R[]): Promise<Array<Omit<R, 'priority' | 'blocker_count' | 'cancelled_blocker_count'> & TaskGraph>> {
  const edges =
    rows.length > 0
      ? await db<EdgeWithStatus[]>`
          SELECT d.task_id, d.depends_on, b.status FROM task_dependencies d JOIN tasks b ON b.id = d.depends_on
          WHERE d.task_id = ANY(${rows.map((r) => r.id)}::int[]) ORDER BY d.task_id, d.depends_on`
      : [];
  return withGraph(rows, edges);
}

/**
 * The stored status of each proposed id, and with `withEdges` everything they wait on, transitively. The proposed
 * blockers are locked FOR SHARE, so none can be approved or cancelled between this read and the write that follows.
 */
export async function graphFacts(tx: Tx, ids: readonly number[], withEdges: boolean): Promise<DependencyFacts> {
  const statuses = new Map<number, TaskStatus>();
  if (ids.length === 0) return { statuses, edges: [] };
  await tx`SELECT pg_advisory_xact_lock(${GRAPH_LOCK})`;
  for (const row of await tx<Array<{ id: number; status: TaskStatus }>>`SELECT id, status FROM tasks WHERE id = ANY(${[...ids]}::int[]) ORDER BY id FOR SHARE`) {
    statuses.set(row.id, row.status);
  }
  if (!withEdges) return { statuses, edges: [] };
  const edges = await tx<DependencyEdge[]>`
    WITH RECURSIVE reach(id) AS (
      SELECT unnest(${[...ids]}::int[])
      UNION
      SELECT d.depends_on FROM task_dependencies d JOIN reach r ON d.task_id = r.id
    )
    SELECT d.task_id, d.depends_on FROM task_dependencies d JOIN reach r ON d.task_id = r.id`;
  return { statuses, edges: [...edges] };
}

/** Sets the task's edges to exactly `ids` and recounts its blockers. */
export async function replaceEdges(tx: Tx, taskId: number, ids: readonly number[]): Promise<void> {
  await tx`SELECT pg_advisory_xact_lock(${GRAPH_LOCK})`;
  await tx`DELETE FROM task_dependencies WHERE task_id = ${taskId}`;
  if (ids.length > 0) await tx`INSERT INTO task_dependencies (task_id, depends_on) SELECT ${taskId}, unnest(${[...ids]}::int[]) ON CONFLICT DO NOTHING`;
  await tx.unsafe(`UPDATE tasks SET ${RECOUNT} WHERE id = $1`, [taskId]);
}

/** A task reached a final state: its dependents are recounted, and a cancelled blocker strands them (a history row each). */
export async function settle(tx: Tx, taskId: number, status: TaskStatus, at: string): Promise<void> {
  await tx.unsafe(`UPDATE tasks SET ${RECOUNT} WHERE id IN (SELECT task_id FROM task_dependencies WHERE depends_on = $1)`, [taskId]);
  if (status !== 'cancelled') return;
  const note = strandedNote(taskId);
  await tx`
    INSERT INTO activity (task_id, agent, action, from_status, to_status, assignee, note, claim_id, created_at)
    SELECT t.id, 'roundtable', 'blocker_cancelled', t.status, t.status, t.assignee, ${note}, t.claim_id, ${at}
    FROM task_dependencies d JOIN tasks t ON t.id = d.task_id
    WHERE d.depends_on = ${taskId} AND t.status NOT IN ('done', 'cancelled') ORDER BY t.id`;
}

export async function dependentIds(db: Db, taskId: number): Promise<number[]> {
  return (await db<Array<{ task_id: number }>>`SELECT task_id FROM task_dependencies WHERE depends_on = ${taskId} ORDER BY task_id`).map((r) => r.task_id);
}

export async function unfinishedDependentIds(db: Db, taskId: number): Promise<number[]> {
  return (
    await db<Array<{ id: number }>>`SELECT t.id FROM task_dependencies d JOIN tasks t ON t.id = d.task_id
      WHERE d.depends_on = ${taskId} AND t.status NOT IN ('done', 'cancelled') ORDER BY t.id`
  ).map((r) => r.id);
}

export async function countReady(db: Db): Promise<number> {
  const [row] = await db`SELECT COUNT(*) AS n FROM tasks WHERE status = 'open' AND blocker_count = 0`;
  return Number(row?.['n'] ?? 0);
}
