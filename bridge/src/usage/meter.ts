// The model use of the app session behind this bridge, as deltas: finds the session's file, reads what was appended,
// and answers "what has not been reported yet". Every step is serialized, so two calls never report the same tokens.
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { claudeProjectFolder, emptyClaudeTally, newestClaudeTranscript, tallyClaudeLines, type ClaudeTally } from './claude-transcript.js';
import { CODEX_TAIL_BYTES, codexSessionsFolder, emptyCodexTally, newestCodexRollout, rolloutCwd, tallyCodexLines } from './codex-rollout.js';
import { atLeast, beyond, isZero, usageInput, ZERO, type UsageCounts } from './counts.js';
import { readLedger, writeLedger, type Ledger, type SessionRecord } from './ledger.js';
import { readNewLines } from './tail.js';
import { readTranscriptNote, type UsageApp } from './transcript-note.js';
import type { UsageInput } from 'roundtable-shared';

export interface UsageMeterOptions {
  readonly cwd: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly home?: string;
  /** The bridge's state folder (default: stateDir()). */
  readonly stateDir?: string;
  readonly now?: () => number;
}

interface SessionFile {
  readonly app: UsageApp;
  readonly path: string;
  readonly mtimeMs: number;
}

/**
 * Claude Code buffers its transcript: the answer that made this call reached the file a few tens of ms later in
 * 2.1.328. Before a report, its file is given until it has been quiet this long (polled), within a bound.
 */
const QUIET_MS = 150;
const POLL_MS = 50;
const SETTLE_MAX_MS = 1_000;

/** A report on its way to the board: its totals count as reported for this long unless the board's answer comes first. */
const IN_FLIGHT_MS = 120_000;

export class UsageMeter {
  private queue: Promise<unknown> = Promise.resolve();
  /** The cwd of each rollout file looked at: a file's first line does not change. */
  private readonly rolloutCwds = new Map<string, string | undefined>();
  /** Reports sent and not yet answered, by the usage object sent. */
  private readonly inFlight = new Map<UsageInput, { path: string; totals: UsageCounts; at: number }>();

  constructor(private readonly options: UsageMeterOptions) {}

  private get now(): number {
    return (this.options.now ?? Date.now)();
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** The usage not reported yet of the current session, or undefined when there is none (or nothing new). */
  unreported(): Promise<UsageInput | undefined> {
    return this.serial(async () => {
      const found = await this.refresh({ settle: true });
      if (!found) return undefined;
      const { path, record, ledger } = found;
      let from = record.baseline;
      for (const sent of this.inFlight.values()) {
        if (sent.path === path && this.now - sent.at < IN_FLIGHT_MS) from = atLeast(from, sent.totals);
      }
      const delta = beyond(record.tally.totals, from);
      await this.save(ledger);
      if (isZero(delta)) return undefined;
      const usage = usageInput(delta, record.tally.model);
      this.inFlight.set(usage, { path, totals: { ...record.tally.totals }, at: this.now });
      return usage;
    });
  }

  /** The board took a report: its totals are reported. A report the board refused stays unreported. */
  reported(usage: unknown): Promise<void> {
    return this.serial(async () => {
      const sent = this.inFlight.get(usage as UsageInput);
      if (!sent) return;
      this.inFlight.delete(usage as UsageInput);
      const ledger = await readLedger(this.options.cwd, this.options.stateDir);
      const record = ledger.get(sent.path);
      if (!record) return;
      record.baseline = atLeast(record.baseline, sent.totals);
      record.reports += 1;
      record.at = this.now;
      await this.save(ledger);
    });
  }

  /** A task was claimed: a session that has not reported yet reports from here on. */
  claimed(): Promise<void> {
    return this.serial(async () => {
      const found = await this.refresh();
      if (!found) return;
      if (found.record.reports === 0) found.record.baseline = atLeast(found.record.baseline, found.record.tally.totals);
      await this.save(found.ledger);
    });
  }

  private save(ledger: Ledger): Promise<void> {
    return writeLedger(this.options.cwd, ledger, { ...(this.options.stateDir && { dir: this.options.stateDir }), now: this.now });
  }

  /** Finds the session's file and reads what was appended to it into its record. */
  private async refresh(options: { settle?: boolean } = {}): Promise<{ path: string; record: SessionRecord; ledger: Ledger } | undefined> {
    const file = await this.sessionFile();
    if (!file) return undefined;
    if (options.settle && file.app === 'claude-code') await quiet(file.path);
    const ledger = await readLedger(this.options.cwd, this.options.stateDir);
    const known = ledger.get(file.path);
    const record: SessionRecord =
      known && known.app === file.app
        ? known
        : { app: file.app, tally: file.app === 'codex' ? emptyCodexTally() : emptyClaudeTally(), baseline: { ...ZERO }, reports: 0, at: this.now };
    const read = await readNewLines({
      path: file.path,
      ...(record.position && { from: record.position }),
      // Codex writes running sums: the last stretch of a file not read before is enough.
      ...(file.app === 'codex' && { start: Math.max(0, (await stat(file.path)).size - CODEX_TAIL_BYTES) }),
    });
    if (read.restarted && file.app === 'claude-code') record.tally = { ...emptyClaudeTally(), ...(record.tally.model && { model: record.tally.model }) };
    if (file.app === 'codex') tallyCodexLines(record.tally, read.lines);
    else tallyClaudeLines(record.tally as ClaudeTally, read.lines);
    record.position = read.position;
    record.at = this.now;
    ledger.set(file.path, record);
    return { path: file.path, record, ledger };
  }

  /** The file of the app session behind this bridge: of the candidates, the one written last. */
  private async sessionFile(): Promise<SessionFile | undefined> {
    const { cwd } = this.options;
    const env = this.options.env ?? process.env;
    const home = this.options.home ?? homedir();
    const candidates: SessionFile[] = [];
    const note = await readTranscriptNote(cwd, this.options.stateDir);
    const noted = note && (await stat(note.path).catch(() => undefined));
    if (note && noted?.isFile()) candidates.push({ app: note.app, path: note.path, mtimeMs: noted.mtimeMs });
    if (note?.app !== 'claude-code' || !noted) {
      const claude = await newestClaudeTranscript(claudeProjectFolder(cwd, env, home));
      if (claude) candidates.push({ app: 'claude-code', ...claude });
    }
    if (note?.app !== 'codex' || !noted) {
      const codex = await newestCodexRollout(codexSessionsFolder(env, home), cwd, (path) => this.cwdOf(path));
      if (codex) candidates.push({ app: 'codex', ...codex });
    }
    return candidates.sort((a, b) => b.mtimeMs - a.mtimeMs)[0];
  }

  private async cwdOf(path: string): Promise<string | undefined> {
    if (!this.rolloutCwds.has(path)) this.rolloutCwds.set(path, await rolloutCwd(path).catch(() => undefined));
    return this.rolloutCwds.get(path);
  }
}

/** Waits until the file's size has not changed for QUIET_MS, or SETTLE_MAX_MS in all. */
async function quiet(path: string): Promise<void> {
  const started = Date.now();
  let size = (await stat(path).catch(() => undefined))?.size;
  let since = Date.now();
  while (Date.now() - started < SETTLE_MAX_MS) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const now = (await stat(path).catch(() => undefined))?.size;
    if (now !== size) {
      size = now;
      since = Date.now();
    } else if (Date.now() - since >= QUIET_MS) return;
  }
}
