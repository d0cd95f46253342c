// The git work and the model use a call carries (issue 35), as the stores keep them: what a write attaches, what a read
// returns, and the one rule of the project's patch total. Pure: both stores call these.
import { LIMITS, utf8Bytes, type UsageInput, type UsageTotals, type WorkInput, type WorkRecord } from 'roundtable-shared';

/** What a submit_result or post_message attaches beside its change, in the same transaction. */
export interface Attached {
  readonly work?: WorkInput | undefined;
  readonly usage?: UsageInput | undefined;
}

/** get_task's view of a task's work: the latest submission's record, and the usage reported on the task. */
export interface TaskWork {
  readonly work: WorkRecord | null;
  readonly usage: UsageTotals;
}

export interface AgentUsage extends UsageTotals {
  readonly agent: string;
}

export interface TaskUsage extends UsageTotals {
  readonly task_id: number;
  readonly title: string;
}

/** The page's Cost view: usage per project, per agent and per task (the tasks with the most reported, at most 200). */
export interface UsageSummary {
  readonly project: UsageTotals;
  readonly agents: AgentUsage[];
  readonly tasks: TaskUsage[];
}

export const USAGE_SUMMARY_TASKS = 200;

/** The sums both stores read per group of usage rows, in SQL both dialects take. */
export const USAGE_SUMS = `COUNT(*) AS reports, SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens,
  SUM(cached_tokens) AS cached_tokens, SUM(cost_usd) AS cost_usd`;

export const NO_USAGE: UsageTotals = Object.freeze({ reports: 0, input_tokens: 0, output_tokens: 0, cached_tokens: 0, cost_usd: 0, models: [] }) as UsageTotals;

/** A work record split for storage: the summary as JSON text, the patch and its size apart. */
export interface StoredWorkParts {
  readonly summary: string;
  readonly patch: string | null;
  readonly patchBytes: number;
}

export function workParts(work: WorkInput): StoredWorkParts {
  const { patch, ...summary } = work;
  return { summary: JSON.stringify(summary), patch: patch ?? null, patchBytes: patch === undefined ? 0 : utf8Bytes(patch) };
}

/** A work record as stored (the patch empty when not asked for, null when not kept). */
export interface WorkRow {
  readonly summary: string;
  readonly patch: string | null;
  readonly submitted_by: string;
  readonly claim_id: number | null;
  readonly created_at: string;
  readonly sent_bytes: number | string;
}

/** A stored row back to get_task's record; the patch only when asked for and kept. */
export function workRecordOf(row: WorkRow, includePatch: boolean): WorkRecord {
  const summary = JSON.parse(row.summary) as Omit<WorkInput, 'patch'>;
  return {
    ...summary,
    ...(includePatch && row.patch !== null && { patch: row.patch }),
    submitted_by: row.submitted_by,
    claim_id: row.claim_id,
    submitted_at: row.created_at,
    patch_kept: row.patch !== null,
    patch_dropped: row.patch === null && Number(row.sent_bytes) > 0,
  };
}

/** A kept patch that may be dropped to make room: one of a task that is done or cancelled, oldest first. */
export interface DroppablePatch {
  readonly id: number;
  readonly bytes: number;
}

/**
 * The project's patch total (SPEC §22): a new patch that would take the kept patches past `cap` first drops the
 * oldest patches of finished tasks, as few as make room; if that is not enough, the new patch is not kept (its
 * summary is). Returns the ids to drop and whether the new patch is kept.
 */
export function makeRoomForPatch(
  kept: number,
  incoming: number,
  droppable: readonly DroppablePatch[],
  cap: number = LIMITS.projectPatchBytes,
): { readonly drop: number[]; readonly keep: boolean } {
  if (incoming === 0 || kept + incoming <= cap) return { drop: [], keep: true };
  const drop: number[] = [];
  let total = kept;
  for (const patch of droppable) {
    if (total + incoming <= cap) break;
    drop.push(patch.id);
    total -= patch.bytes;
  }
  return total + incoming <= cap ? { drop, keep: true } : { drop: [], keep: false };
}

/** Usage input as the row stores it (absent counts are 0). */
export function usageRow(usage: UsageInput) {
  return {
    input_tokens: usage.input_tokens ?? 0,
    output_tokens: usage.output_tokens ?? 0,
    cached_tokens: usage.cached_tokens ?? 0,
    cost_usd: usage.cost_usd ?? 0,
    model: usage.model ?? null,
  };
}

/** One group of usage rows as the stores read them: sums per (key, model). */
export interface UsageGroupRow {
  readonly key: string | number;
  readonly model: string | null;
  readonly reports: number | string;
  readonly input_tokens: number | string;
  readonly output_tokens: number | string;
  readonly cached_tokens: number | string;
  readonly cost_usd: number | string;
}

/** Folds per-(key, model) sums into totals per key, models named once each, sorted. */
export function foldUsage(rows: readonly UsageGroupRow[]): Map<string | number, UsageTotals> {
  const out = new Map<string | number, { totals: Omit<UsageTotals, 'models'>; models: Set<string> }>();
  for (const row of rows) {
    let entry = out.get(row.key);
    if (!entry) out.set(row.key, (entry = { totals: { reports: 0, input_tokens: 0, output_tokens: 0, cached_tokens: 0, cost_usd: 0 }, models: new Set() }));
    const t = entry.totals;
    entry.totals = {
      reports: t.reports + Number(row.reports),
      input_tokens: t.input_tokens + Number(row.input_tokens),
      output_tokens: t.output_tokens + Number(row.output_tokens),
      cached_tokens: t.cached_tokens + Number(row.cached_tokens),
      cost_usd: t.cost_usd + Number(row.cost_usd),
    };
    if (row.model !== null) entry.models.add(row.model);
  }
  return new Map(
    [...out].map(([key, { totals, models }]) => [key, { ...totals, cost_usd: Math.round(totals.cost_usd * 1e6) / 1e6, models: [...models].sort() }]),
  );
}

/** The tasks with the most reported first: cost, then tokens, then the newest. */
export function byMostReported(a: TaskUsage, b: TaskUsage): number {
  return b.cost_usd - a.cost_usd || b.input_tokens + b.output_tokens - (a.input_tokens + a.output_tokens) || b.task_id - a.task_id;
}

/** Totals of several parts (the project's, from its agents'). */
export function sumOf(parts: readonly UsageTotals[]): UsageTotals {
  if (parts.length === 0) return NO_USAGE;
  const models = new Set<string>();
  const total = { reports: 0, input_tokens: 0, output_tokens: 0, cached_tokens: 0, cost_usd: 0 };
  for (const p of parts) {
    total.reports += p.reports;
    total.input_tokens += p.input_tokens;
    total.output_tokens += p.output_tokens;
    total.cached_tokens += p.cached_tokens;
    total.cost_usd += p.cost_usd;
    for (const m of p.models) models.add(m);
  }
  return { ...total, cost_usd: Math.round(total.cost_usd * 1e6) / 1e6, models: [...models].sort() };
}
