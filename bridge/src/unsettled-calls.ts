// Changes whose outcome is unknown (no answer in time, or the connection lost after the request went out), kept by
// tool and arguments with their idempotency key: the same call made again within the window goes out under that key,
// so the retry our errors recommend is applied at most once. Memory only: a restarted bridge starts with none.
import { IDEMPOTENCY_KEY_TTL_MS } from 'roundtable-shared';

/**
 * How long after the first attempt the same call still reuses its key. The board keeps keys IDEMPOTENCY_KEY_TTL_MS
 * (24 h), so it would still recognise one; past an hour a repeated call is more likely meant as a new one.
 */
export const UNSETTLED_WINDOW_MS = Math.min(60 * 60_000, IDEMPOTENCY_KEY_TTL_MS);
/** A bound on memory through a long outage; the oldest are dropped first. */
const MAX_UNSETTLED = 1000;

/** JSON with every object's keys sorted, so `{a, b}` and `{b, a}` are the same call; arrays keep their order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item === undefined ? null : item)).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export class UnsettledCalls {
  private readonly byCall = new Map<string, { readonly key: string; readonly since: number }>();
  private readonly windowMs: number;
  private readonly now: () => number;

  constructor(options: { windowMs?: number; now?: () => number } = {}) {
    this.windowMs = options.windowMs ?? UNSETTLED_WINDOW_MS;
    this.now = options.now ?? Date.now;
  }

  /** The key of an unsettled identical call still within the window, or undefined: then the call gets a fresh key. */
  keyFor(tool: string, args: unknown): string | undefined {
    // Nothing unsettled (the usual case): no need to write the call out, which for a submit_result with a 1 MiB
    // patch is a 1 MB string (issue 35).
    if (this.byCall.size === 0) return undefined;
    const call = callOf(tool, args);
    const kept = this.byCall.get(call);
    if (kept && this.now() - kept.since < this.windowMs) return kept.key;
    if (kept) this.byCall.delete(call);
    return undefined;
  }

  /** The call went out under `key` and its outcome is unknown; the window runs from its first attempt. */
  unsettled(tool: string, args: unknown, key: string): void {
    const call = callOf(tool, args);
    const kept = this.byCall.get(call);
    if (kept?.key === key) return;
    this.byCall.set(call, { key, since: this.now() });
    for (const oldest of this.byCall.keys()) {
      if (this.byCall.size <= MAX_UNSETTLED) break;
      this.byCall.delete(oldest);
    }
  }

  /** The board answered the call (applied or refused): the next identical call is a new one. */
  settled(tool: string, args: unknown): void {
    if (this.byCall.size === 0) return;
    this.byCall.delete(callOf(tool, args));
  }

  get size(): number {
    return this.byCall.size;
  }
}

function callOf(tool: string, args: unknown): string {
  return `${tool}\n${canonicalJson(args)}`;
}
