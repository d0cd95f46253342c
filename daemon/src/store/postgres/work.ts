// The git work of submissions and the usage agents report (issue 35), on PostgreSQL. Writes run inside the caller's
// transaction, beside the change they belong to.
import {
  byMostReported,
  foldUsage,
  makeRoomForPatch,
  sumOf,
  USAGE_SUMMARY_TASKS,
  USAGE_SUMS,
  usageRow,
  workParts,
  type Attached,
  type DroppablePatch,
  type UsageGroupRow,
  type UsageSummary,
} from '../work-rows.js';
import type { Db, Tx } from './connection.js';

const SUMS = USAGE_SUMS;

/** Inside the caller's transaction: the work record (making room under the project's patch total) and the usage row. */
export async function attachWork(tx: Tx, taskId: number, claimId: number | null, agent: string, tool: string, attached: Attached, at: string): Promise<void> {
  if (attached.work) {
    const parts = workParts(attached.work);
    let keep = true;
    if (parts.patch !== null) {
      // Submissions of this project that carry a patch take turns here, so two of them never both take the last room.
      await tx`SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.work_records.patches'))`;
      const [kept] = await tx<Array<{ bytes: string }>>`SELECT COALESCE(SUM(patch_bytes), 0)::text AS bytes FROM work_records WHERE patch IS NOT NULL`;
      let droppable: DroppablePatch[] = [];
      if (Number(kept!.bytes) + parts.patchBytes > 0) {
        droppable = (
          await tx<Array<{ id: number; bytes: string }>>`SELECT w.id, w.patch_bytes::text AS bytes FROM work_records w JOIN tasks t ON t.id = w.task_id
            WHERE w.patch IS NOT NULL AND t.status IN ('done', 'cancelled') ORDER BY w.id`
        ).map((r) => ({ id: r.id, bytes: Number(r.bytes) }));
      }
      const room = makeRoomForPatch(Number(kept!.bytes), parts.patchBytes, droppable);
      if (room.drop.length > 0) await tx`UPDATE work_records SET patch = NULL, patch_bytes = 0 WHERE id = ANY(${room.drop}::int[])`;
      keep = room.keep;
    }
    await tx`INSERT INTO work_records (task_id, claim_id, submitted_by, summary, patch, patch_bytes, sent_bytes, created_at)
      VALUES (${taskId}, ${claimId}, ${agent}, ${parts.summary}, ${keep ? parts.patch : null}, ${keep ? parts.patchBytes : 0}, ${parts.patchBytes}, ${at})`;
  }
  if (attached.usage) {
    const u = usageRow(attached.usage);
    await tx`INSERT INTO usage_reports (task_id, agent, tool, input_tokens, output_tokens, cached_tokens, cost_usd, model, created_at)
      VALUES (${taskId}, ${agent}, ${tool}, ${u.input_tokens}, ${u.output_tokens}, ${u.cached_tokens}, ${u.cost_usd}, ${u.model}, ${at})`;
  }
}


/**
 * SQL for get_task's one statement (task-view.ts): the task's latest work record as JSON, its patch only when the
 * boolean parameter `includePatch` is true (else '' for a kept patch, null for none), and its usage sums per model.
 */
export const latestWorkJson = (task: string, includePatch: string) => `(SELECT row_to_json(w) FROM (
    SELECT summary, CASE WHEN ${includePatch}::boolean THEN patch ELSE (CASE WHEN patch IS NULL THEN NULL ELSE '' END) END AS patch,
      submitted_by, claim_id, created_at, sent_bytes::text AS sent_bytes
    FROM work_records WHERE task_id = ${task} ORDER BY id DESC LIMIT 1) w)`;
export const usageJson = (task: string) => `COALESCE((SELECT json_agg(row_to_json(u)) FROM (
    SELECT task_id AS key, model, ${SUMS} FROM usage_reports WHERE task_id = ${task} GROUP BY task_id, model) u), '[]'::json)`;

export async function usageSummary(db: Db): Promise<UsageSummary> {
  const byAgent = await db.unsafe<UsageGroupRow[]>(`SELECT agent AS key, model, ${SUMS} FROM usage_reports GROUP BY agent, model`, [], { prepare: true });
  const byTask = await db.unsafe<UsageGroupRow[]>(`SELECT task_id AS key, model, ${SUMS} FROM usage_reports GROUP BY task_id, model`, [], { prepare: true });
  const agents = foldUsage(byAgent);
  const top = [...foldUsage(byTask)].map(([id, totals]) => ({ task_id: Number(id), title: '', ...totals })).sort(byMostReported).slice(0, USAGE_SUMMARY_TASKS);
  const titles = new Map(
    (await db<Array<{ id: number; title: string }>>`SELECT id, title FROM tasks WHERE id = ANY(${top.map((t) => t.task_id)}::int[])`).map((r) => [r.id, r.title]),
  );
  return {
    project: sumOf([...agents.values()]),
    agents: [...agents].map(([agent, totals]) => ({ agent: String(agent), ...totals })).sort((a, b) => a.agent.localeCompare(b.agent)),
    tasks: top.map((t) => ({ ...t, title: titles.get(t.task_id) ?? '' })),
  };
}
