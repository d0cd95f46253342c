// Dependencies on SQLite: the edges, the blocker counts kept on each task, and the graph facts the rules judge.
// Same queries as postgres/dependencies.ts; every method runs inside the caller's transaction, and the counts are
// recounted from the edges, so they cannot drift.
import type Database from 'better-sqlite3';
import type { TaskStatus } from 'roundtable-shared';
import type { DependencyEdge, DependencyFacts } from '../store.js';
import { strandedNote } from '../history-rows.js';
import { withGraph, type EdgeWithStatus, type GraphColumns, type TaskGraph } from '../task-rows.js';

export class SqliteDependencies {
  private readonly stmt;

  constructor(db: Database.Database) {
    this.stmt = {
      edgesOf: db.prepare(
        `SELECT d.task_id, d.depends_on, b.status FROM task_dependencies d JOIN tasks b ON b.id = d.depends_on
         WHERE d.task_id IN (SELECT value FROM json_each(?)) ORDER BY d.task_id, d.depends_on`,
      ),
      statuses: db.prepare('SELECT id, status FROM tasks WHERE id IN (SELECT value FROM json_each(?))'),
      // Everything the proposed blockers wait on, transitively: a rule looks for the edited task in it (a cycle).
      reachable: db.prepare(
        `WITH RECURSIVE reach(id) AS (
           SELECT value FROM json_each(?)
           UNION
           SELECT d.depends_on FROM task_dependencies d JOIN reach r ON d.task_id = r.id
         )
         SELECT d.task_id, d.depends_on FROM task_dependencies d JOIN reach r ON d.task_id = r.id`,
      ),
      insertEdge: db.prepare('INSERT OR IGNORE INTO task_dependencies (task_id, depends_on) VALUES (?, ?)'),
      deleteEdges: db.prepare('DELETE FROM task_dependencies WHERE task_id = ?'),
      recountOne: db.prepare(
        `UPDATE tasks SET
           blocker_count = (SELECT COUNT(*) FROM task_dependencies d JOIN tasks b ON b.id = d.depends_on WHERE d.task_id = tasks.id AND b.status != 'done'),
           cancelled_blocker_count = (SELECT COUNT(*) FROM task_dependencies d JOIN tasks b ON b.id = d.depends_on WHERE d.task_id = tasks.id AND b.status = 'cancelled')
         WHERE id = ?`,
      ),
      recountDependents: db.prepare(
        `UPDATE tasks SET
           blocker_count = (SELECT COUNT(*) FROM task_dependencies d JOIN tasks b ON b.id = d.depends_on WHERE d.task_id = tasks.id AND b.status != 'done'),
           cancelled_blocker_count = (SELECT COUNT(*) FROM task_dependencies d JOIN tasks b ON b.id = d.depends_on WHERE d.task_id = tasks.id AND b.status = 'cancelled')
         WHERE id IN (SELECT task_id FROM task_dependencies WHERE depends_on = ?)`,
      ),
      dependents: db.prepare('SELECT task_id FROM task_dependencies WHERE depends_on = ? ORDER BY task_id').pluck(),
      unfinishedDependents: db.prepare(
        `SELECT t.id, t.title, t.status, t.assignee, t.claim_id FROM task_dependencies d JOIN tasks t ON t.id = d.task_id
         WHERE d.depends_on = ? AND t.status NOT IN ('done', 'cancelled') ORDER BY t.id`,
      ),
      markStranded: db.prepare(
        `INSERT INTO activity (task_id, agent, action, from_status, to_status, assignee, note, claim_id, created_at)
         VALUES (@task_id, 'roundtable', 'blocker_cancelled', @status, @status, @assignee, @note, @claim_id, @at)`,
      ),
      // Both walk the partial indexes of migration 006, so they cost what they find, not the size of the board.
      strandedAll: db.prepare("SELECT id FROM tasks WHERE cancelled_blocker_count > 0 AND status NOT IN ('done', 'cancelled') ORDER BY id").pluck(),
      // The counter of migration 008, kept by triggers: the same cost at a million tasks as at ten.
      readyCount: db.prepare("SELECT n FROM board_counts WHERE name = 'ready'").pluck(),
      strandedBy: db.prepare(
        "SELECT id FROM tasks WHERE cancelled_blocker_count > 0 AND created_by = ? AND status NOT IN ('done', 'cancelled') ORDER BY id",
      ).pluck(),
    };
  }

  /** Rows with their priority's name and their edges, without the store's own counts. */
  attachGraph<R extends GraphColumns>(rows: readonly R[]): Array<Omit<R, 'priority' | 'blocker_count' | 'cancelled_blocker_count'> & TaskGraph> {
    const edges = rows.length > 0 ? (this.stmt.edgesOf.all(JSON.stringify(rows.map((r) => r.id))) as EdgeWithStatus[]) : [];
    return withGraph(rows, edges);
  }

  /** The stored status of each proposed id, and with `withEdges` everything they wait on, transitively. */
  graphFacts(ids: readonly number[], withEdges: boolean): DependencyFacts {
    const json = JSON.stringify(ids);
    const statuses = new Map<number, TaskStatus>();
    for (const row of this.stmt.statuses.all(json) as Array<{ id: number; status: TaskStatus }>) statuses.set(row.id, row.status);
    return { statuses, edges: withEdges && ids.length > 0 ? (this.stmt.reachable.all(json) as DependencyEdge[]) : [] };
  }

  /** Sets the task's edges to exactly `ids` and recounts its blockers. */
  replaceEdges(taskId: number, ids: readonly number[]): void {
    this.stmt.deleteEdges.run(taskId);
    for (const id of ids) this.stmt.insertEdge.run(taskId, id);
    this.stmt.recountOne.run(taskId);
  }

  /**
   * A task reached a final state: its dependents are recounted (done: one blocker fewer). A cancelled blocker
   * leaves them blocked, and each unfinished one gets a `blocker_cancelled` history row saying how to go on.
   */
  settle(taskId: number, status: TaskStatus, at: string): void {
    this.stmt.recountDependents.run(taskId);
    if (status !== 'cancelled') return;
    for (const dependent of this.stmt.unfinishedDependents.all(taskId) as Array<{ id: number; title: string; status: TaskStatus; assignee: string | null; claim_id: number | null }>) {
      this.stmt.markStranded.run({
        task_id: dependent.id,
        status: dependent.status,
        assignee: dependent.assignee,
        claim_id: dependent.claim_id,
        note: strandedNote(taskId),
        at,
      });
    }
  }

  dependentIds(taskId: number): number[] {
    return this.stmt.dependents.all(taskId) as number[];
  }

  unfinishedDependentIds(taskId: number): number[] {
    return (this.stmt.unfinishedDependents.all(taskId) as Array<{ id: number }>).map((r) => r.id);
  }

  stranded(scope: 'all' | 'created' | 'none', agent: string): number[] {
    if (scope === 'none') return [];
    return (scope === 'all' ? this.stmt.strandedAll.all() : this.stmt.strandedBy.all(agent)) as number[];
  }

  countReady(): number {
    return this.stmt.readyCount.get() as number;
  }
}
