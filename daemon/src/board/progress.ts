// A project's progress from its history (issue 36): burn-up, tasks finished per day, cycle time from claim to done
// (median and 90th percentile, per agent and overall) and work in progress per agent. Pure: the store gives the rows.
import type { BoardStore, ProgressRows } from '../store/store.js';

export const PROGRESS_DAYS_DEFAULT = 30;
export const PROGRESS_DAYS_MAX = 365;
const DAY_MS = 86_400_000;

export interface CycleFigures {
  /** Tasks done in the window whose claim is in the history. */
  readonly tasks: number;
  /** Hours, to 0.01; null when there are none. */
  readonly median_hours: number | null;
  readonly p90_hours: number | null;
}

export interface Progress {
  readonly from: string;
  readonly to: string;
  /** One row per UTC day of the window, oldest first: the totals at the end of that day and what was done in it. */
  readonly days: ReadonlyArray<{ readonly day: string; readonly total: number; readonly done_total: number; readonly done: number }>;
  readonly cycle_time: { readonly overall: CycleFigures; readonly per_agent: ReadonlyArray<CycleFigures & { readonly agent: string }> };
  readonly wip: ReadonlyArray<{ readonly agent: string; readonly claimed: number }>;
}

/** The nearest-rank percentile (p in 0..100) of sorted values: the smallest value with at least p% at or below it. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

function figures(hours: number[]): CycleFigures {
  const sorted = [...hours].sort((a, b) => a - b);
  const round = (v: number | null) => (v === null ? null : Math.round(v * 100) / 100);
  return { tasks: sorted.length, median_hours: round(percentile(sorted, 50)), p90_hours: round(percentile(sorted, 90)) };
}

/** The UTC day (YYYY-MM-DD) `days - 1` days before `now`'s: the window's first. */
export function firstDay(now: number, days: number): string {
  return new Date(now - (days - 1) * DAY_MS).toISOString().slice(0, 10);
}

export function progressFrom(rows: ProgressRows, now: number, days: number): Progress {
  const perDay = new Map(rows.days.map((d) => [d.day, d]));
  let total = rows.before.created - rows.before.cancelled;
  let doneTotal = rows.before.done;
  const out: Array<Progress['days'][number]> = [];
  for (let i = days - 1; i >= 0; i--) {
    const day = new Date(now - i * DAY_MS).toISOString().slice(0, 10);
    const d = perDay.get(day);
    total += (d?.created ?? 0) - (d?.cancelled ?? 0);
    doneTotal += d?.done ?? 0;
    out.push({ day, total, done_total: doneTotal, done: d?.done ?? 0 });
  }
  const byAgent = new Map<string, number[]>();
  const all: number[] = [];
  for (const c of rows.cycles) {
    if (c.claimed_at === null) continue;
    const hours = (Date.parse(c.done_at) - Date.parse(c.claimed_at)) / 3_600_000;
    all.push(hours);
    const list = byAgent.get(c.agent);
    if (list) list.push(hours);
    else byAgent.set(c.agent, [hours]);
  }
  const perAgent = [...byAgent.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([agent, hours]) => ({ agent, ...figures(hours) }));
  return { from: out[0]!.day, to: out.at(-1)!.day, days: out, cycle_time: { overall: figures(all), per_agent: perAgent }, wip: rows.wip };
}

export async function progressOf(store: BoardStore, days: number, now = Date.now()): Promise<Progress> {
  return progressFrom(await store.progressRows(firstDay(now, days)), now, days);
}
