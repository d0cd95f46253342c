// What the bridge has read and reported of each app session's model use, in one small JSON file per working folder
// under the bridge's state folder: a restarted bridge goes on from there and never reports a token twice.
import { readFile } from 'node:fs/promises';
import { claudeTallyFrom, type ClaudeTally } from './claude-transcript.js';
import { codexTallyFrom, type CodexTally } from './codex-rollout.js';
import { countsFrom, type UsageCounts } from './counts.js';
import type { TailPosition } from './tail.js';
import { usageStateFile, writeStateFile, type UsageApp } from './transcript-note.js';

export interface SessionRecord {
  app: UsageApp;
  /** Where reading stopped; none before the first read. */
  position?: TailPosition;
  tally: ClaudeTally | CodexTally;
  /** The totals already accounted for: reported, or counted before the claim of the session's first report. */
  baseline: UsageCounts;
  /** Reports made from this session: the claim moves the baseline only before the first. */
  reports: number;
  /** Last change (ms), for pruning. */
  at: number;
}

export type Ledger = Map<string, SessionRecord>;

/** Sessions untouched this long are dropped, and at most this many are kept. */
const STALE_MS = 30 * 24 * 3600 * 1000;
const MAX_SESSIONS = 50;

function positionFrom(value: unknown): TailPosition | undefined {
  const v = value as Record<string, unknown> | undefined;
  if (typeof v !== 'object' || v === null) return undefined;
  const ok = Number.isSafeInteger(v['ino']) && Number.isSafeInteger(v['offset']) && (v['offset'] as number) >= 0 && typeof v['midLine'] === 'boolean';
  return ok ? { ino: v['ino'] as number, offset: v['offset'] as number, midLine: v['midLine'] as boolean } : undefined;
}

function recordFrom(value: unknown): SessionRecord | undefined {
  const v = value as Record<string, unknown> | undefined;
  if (typeof v !== 'object' || v === null) return undefined;
  const app = v['app'];
  const tally = app === 'claude-code' ? claudeTallyFrom(v['tally']) : app === 'codex' ? codexTallyFrom(v['tally']) : undefined;
  const baseline = countsFrom(v['baseline']);
  const reports = v['reports'];
  if (!tally || !baseline || !Number.isSafeInteger(reports) || typeof v['at'] !== 'number') return undefined;
  const position = positionFrom(v['position']);
  return { app: app as UsageApp, tally, baseline, reports: reports as number, at: v['at'], ...(position && { position }) };
}

/** The ledger of a working folder; empty when there is none. A damaged file is started afresh (logged by the caller). */
export async function readLedger(cwd: string, dir?: string): Promise<Ledger> {
  const ledger: Ledger = new Map();
  let value: unknown;
  try {
    value = JSON.parse(await readFile(usageStateFile('ledger', cwd, dir), 'utf8'));
  } catch {
    return ledger;
  }
  const sessions = (value as Record<string, unknown> | null)?.['sessions'];
  if (typeof sessions !== 'object' || sessions === null) return ledger;
  for (const [path, entry] of Object.entries(sessions)) {
    const record = recordFrom(entry);
    if (record) ledger.set(path, record);
  }
  return ledger;
}

export async function writeLedger(cwd: string, ledger: Ledger, options: { dir?: string; now?: number } = {}): Promise<void> {
  const now = options.now ?? Date.now();
  const kept = [...ledger.entries()]
    .filter(([, record]) => now - record.at < STALE_MS)
    .sort((a, b) => b[1].at - a[1].at)
    .slice(0, MAX_SESSIONS);
  await writeStateFile(usageStateFile('ledger', cwd, options.dir), { version: 1, sessions: Object.fromEntries(kept) });
}
