// The git work of submissions and the usage agents report (issue 35), on SQLite. Writes run inside the caller's
// transaction (the group commit), beside the change they belong to.
import type Database from 'better-sqlite3';
import {
  byMostReported,
  foldUsage,
  makeRoomForPatch,
  NO_USAGE,
  sumOf,
  USAGE_SUMMARY_TASKS,
  USAGE_SUMS,
  usageRow,
  workParts,
  workRecordOf,
  type Attached,
  type DroppablePatch,
  type TaskWork,
  type UsageGroupRow,
  type UsageSummary,
} from '../work-rows.js';

const SUMS = USAGE_SUMS;

interface WorkRow {
  summary: string;
  patch: string | null;
  submitted_by: string;
  claim_id: number | null;
  created_at: string;
  sent_bytes: number;
}

export class SqliteWork {
  private readonly stmt;

  constructor(db: Database.Database) {
    this.stmt = {
      insertWork: db.prepare(
        'INSERT INTO work_records (task_id, claim_id, submitted_by, summary, patch, patch_bytes, sent_bytes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      keptBytes: db.prepare('SELECT COALESCE(SUM(patch_bytes), 0) FROM work_records WHERE patch IS NOT NULL').pluck(),
      droppable: db.prepare(
        `SELECT w.id, w.patch_bytes AS bytes FROM work_records w JOIN tasks t ON t.id = w.task_id
          WHERE w.patch IS NOT NULL AND t.status IN ('done', 'cancelled') ORDER BY w.id`,
      ),
      dropPatch: db.prepare('UPDATE work_records SET patch = NULL, patch_bytes = 0 WHERE id = ?'),
      insertUsage: db.prepare(
        `INSERT INTO usage_reports (task_id, agent, tool, input_tokens, output_tokens, cached_tokens, cost_usd, model, created_at)
          VALUES (@task_id, @agent, @tool, @input_tokens, @output_tokens, @cached_tokens, @cost_usd, @model, @created_at)`,
      ),
      latestWork: db.prepare(
        'SELECT summary, patch, submitted_by, claim_id, created_at, sent_bytes FROM work_records WHERE task_id = ? ORDER BY id DESC LIMIT 1',
      ),
      taskUsage: db.prepare(`SELECT task_id AS key, model, ${SUMS} FROM usage_reports WHERE task_id = ? GROUP BY model`),
      byAgent: db.prepare(`SELECT agent AS key, model, ${SUMS} FROM usage_reports GROUP BY agent, model`),
      byTask: db.prepare(`SELECT task_id AS key, model, ${SUMS} FROM usage_reports GROUP BY task_id, model`),
      titles: db.prepare('SELECT id, title FROM tasks WHERE id IN (SELECT value FROM json_each(?))'),
    };
  }

  /** Inside the caller's write: the work record (making room under the project's patch total) and the usage row. */
  attach(taskId: number, claimId: number | null, agent: string, tool: string, attached: Attached, at: string): void {
    if (attached.work) {
      const parts = workParts(attached.work);
      let keep = true;
      if (parts.patch !== null) {
        const room = makeRoomForPatch(this.stmt.keptBytes.get() as number, parts.patchBytes, this.stmt.droppable.all() as DroppablePatch[]);
        for (const id of room.drop) this.stmt.dropPatch.run(id);
        keep = room.keep;
      }
      this.stmt.insertWork.run(taskId, claimId, agent, parts.summary, keep ? parts.patch : null, keep ? parts.patchBytes : 0, parts.patchBytes, at);
    }
    if (attached.usage) this.stmt.insertUsage.run({ task_id: taskId, agent, tool, ...usageRow(attached.usage), created_at: at });
  }

  /** Inside one read transaction. */
  taskWork(taskId: number, includePatch: boolean): TaskWork {
    const row = this.stmt.latestWork.get(taskId) as WorkRow | undefined;
    const usage = foldUsage(this.stmt.taskUsage.all(taskId) as UsageGroupRow[]).get(taskId) ?? NO_USAGE;
    return { work: row ? workRecordOf(row, includePatch) : null, usage };
  }

  /** Inside one read transaction. */
  usageSummary(): UsageSummary {
    const agents = foldUsage(this.stmt.byAgent.all() as UsageGroupRow[]);
    const tasks = foldUsage(this.stmt.byTask.all() as UsageGroupRow[]);
    const top = [...tasks].map(([id, totals]) => ({ task_id: Number(id), title: '', ...totals })).sort(byMostReported).slice(0, USAGE_SUMMARY_TASKS);
    const titles = new Map((this.stmt.titles.all(JSON.stringify(top.map((t) => t.task_id))) as Array<{ id: number; title: string }>).map((r) => [r.id, r.title]));
    return {
      project: sumOf([...agents.values()]),
      agents: [...agents].map(([agent, totals]) => ({ agent: String(agent), ...totals })).sort((a, b) => a.agent.localeCompare(b.agent)),
      tasks: top.map((t) => ({ ...t, title: titles.get(t.task_id) ?? '' })),
    };
  }
}
