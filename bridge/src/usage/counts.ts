// Token counts as the bridge keeps them per session: cumulative, in the board's sense (input = input not read from a
// prompt cache, cache writes included; cached = read from a prompt cache; output includes reasoning and thinking).
import { LIMITS, type UsageInput } from 'roundtable-shared';

export interface UsageCounts {
  input: number;
  output: number;
  cached: number;
  /** USD, only where the app's own file states a cost. */
  cost: number;
}

export const ZERO: Readonly<UsageCounts> = Object.freeze({ input: 0, output: 0, cached: 0, cost: 0 });

const FIELDS = ['input', 'output', 'cached', 'cost'] as const;

/** A whole count of 0 or more from a file's field, else 0: a file's odd value never becomes a negative or a fraction. */
export function tokenCount(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 0;
}

export function costOf(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 && value < 1e6 ? value : 0;
}

export function plus(a: UsageCounts, b: UsageCounts): UsageCounts {
  return { input: a.input + b.input, output: a.output + b.output, cached: a.cached + b.cached, cost: a.cost + b.cost };
}

/** What `now` has beyond `before`, field by field; a field that went down (a file started afresh) adds nothing. */
export function beyond(now: UsageCounts, before: UsageCounts): UsageCounts {
  const out = { ...ZERO };
  for (const field of FIELDS) out[field] = Math.max(0, now[field] - before[field]);
  return out;
}

/** The larger of each field: a baseline never moves back. */
export function atLeast(a: UsageCounts, b: UsageCounts): UsageCounts {
  const out = { ...ZERO };
  for (const field of FIELDS) out[field] = Math.max(a[field], b[field]);
  return out;
}

export function isZero(counts: UsageCounts): boolean {
  return FIELDS.every((field) => counts[field] === 0);
}

/** Counts read back from the state file, or undefined when they are not counts. */
export function countsFrom(value: unknown): UsageCounts | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const counts = { input: tokenCount(v['input']), output: tokenCount(v['output']), cached: tokenCount(v['cached']), cost: costOf(v['cost']) };
  return FIELDS.every((field) => v[field] === undefined || v[field] === counts[field]) ? counts : undefined;
}

/** The `usage` field of a call: tokens always (the app's files always count them), cost only when stated. */
export function usageInput(delta: UsageCounts, model: string | undefined): UsageInput {
  const usage: UsageInput = { input_tokens: delta.input, output_tokens: delta.output, cached_tokens: delta.cached };
  // Costs are sums of floats: rounded to a micro-dollar so 0.1 + 0.2 is not reported as 0.30000000000000004.
  if (delta.cost > 0) usage.cost_usd = Math.round(delta.cost * 1e6) / 1e6;
  if (model) usage.model = model;
  return usage;
}

/** A model name the board takes (LIMITS.usageModel, well-formed text), or undefined; a file's odd value is dropped. */
export function modelName(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > LIMITS.usageModel) return undefined;
  // Claude Code writes "<synthetic>" on messages it made itself (an error, an interruption), not a model's answer.
  if (value === '<synthetic>' || /[\uD800-\uDFFF]/.test(value.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, ''))) return undefined;
  return value;
}
