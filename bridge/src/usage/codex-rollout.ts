// Codex's model use, from its rollout file (JSONL). Observed in 0.169.0: $CODEX_HOME/sessions/YYYY/MM/DD/
// rollout-<time>-<id>.jsonl opens with {"type":"session_meta","payload":{"id","cwd",...}}; each answer adds
// {"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{input_tokens, cached_input_tokens,
// cache_write_input_tokens, output_tokens, reasoning_output_tokens, total_tokens}}}}, the session's running sum;
// {"type":"turn_context","payload":{"model"}} names the model.
import { open, readdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { countsFrom, modelName, tokenCount, ZERO, type UsageCounts } from './counts.js';
import { jsonLine } from './tail.js';

export interface CodexTally {
  totals: UsageCounts;
  model?: string;
}

/** The running sum is all that matters, so only the file's last stretch is read when it was not read before. */
export const CODEX_TAIL_BYTES = 4 * 1024 * 1024;
/** Day folders looked into (newest first), and rollout files whose first line is read, per search. */
const DAYS_SEARCHED = 7;
const FILES_CHECKED = 40;
/** session_meta carries the base instructions: its line is long, but not longer than this. */
const FIRST_LINE_MAX = 1024 * 1024;

export function emptyCodexTally(): CodexTally {
  return { totals: { ...ZERO } };
}

export function codexSessionsFolder(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  return join(env['CODEX_HOME'] || join(home, '.codex'), 'sessions');
}

/**
 * Codex's total_token_usage in the board's sense: its input_tokens count the cached ones too (the OpenAI API's
 * sense), so input is input minus cached; output_tokens already hold the reasoning tokens (reasoning_output_tokens
 * is a part of them, as in the API), so reasoning is not added again.
 */
export function codexCounts(total: Record<string, unknown>): UsageCounts {
  const input = tokenCount(total['input_tokens']);
  const cached = Math.min(tokenCount(total['cached_input_tokens']), input);
  return { input: input - cached, cached, output: tokenCount(total['output_tokens']), cost: 0 };
}

export function tallyCodexLines(tally: CodexTally, lines: readonly string[]): void {
  for (const text of lines) {
    if (!text.includes('"token_count"') && !text.includes('"turn_context"')) continue;
    const line = jsonLine(text);
    const payload = line?.['payload'] as Record<string, unknown> | undefined;
    if (!line || typeof payload !== 'object' || payload === null) continue;
    if (line['type'] === 'turn_context') {
      const model = modelName(payload['model']);
      if (model) tally.model = model;
    } else if (line['type'] === 'event_msg' && payload['type'] === 'token_count') {
      const total = (payload['info'] as Record<string, unknown> | null | undefined)?.['total_token_usage'];
      if (typeof total === 'object' && total !== null) tally.totals = codexCounts(total as Record<string, unknown>);
    }
  }
}

export function codexTallyFrom(value: unknown): CodexTally | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const totals = countsFrom(v['totals']);
  if (!totals) return undefined;
  const model = modelName(v['model']);
  return { totals, ...(model && { model }) };
}

/** The working folder a rollout file's session_meta names, or undefined. */
export async function rolloutCwd(path: string): Promise<string | undefined> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(FIRST_LINE_MAX);
    const { bytesRead } = await file.read(buffer, 0, FIRST_LINE_MAX, 0);
    const end = buffer.subarray(0, bytesRead).indexOf(0x0a);
    const line = jsonLine(buffer.toString('utf8', 0, end < 0 ? bytesRead : end));
    const payload = line?.['payload'] as Record<string, unknown> | undefined;
    return line?.['type'] === 'session_meta' && typeof payload?.['cwd'] === 'string' ? payload['cwd'] : undefined;
  } finally {
    await file.close();
  }
}

async function namesDescending(folder: string, pattern: RegExp): Promise<string[]> {
  const names = await readdir(folder).catch(() => [] as string[]);
  return names.filter((name) => pattern.test(name)).sort().reverse();
}

/**
 * The most recently written rollout of a session in `cwd`, among the newest day folders. `cwdOf` is asked for each
 * candidate (the caller keeps what it learnt: a file's first line does not change).
 */
export async function newestCodexRollout(
  sessions: string,
  cwd: string,
  cwdOf: (path: string) => Promise<string | undefined> = rolloutCwd,
): Promise<{ path: string; mtimeMs: number } | undefined> {
  const days: string[] = [];
  for (const year of await namesDescending(sessions, /^\d{4}$/)) {
    for (const month of await namesDescending(join(sessions, year), /^\d{2}$/)) {
      for (const day of await namesDescending(join(sessions, year, month), /^\d{2}$/)) {
        days.push(join(sessions, year, month, day));
        if (days.length >= DAYS_SEARCHED) break;
      }
      if (days.length >= DAYS_SEARCHED) break;
    }
    if (days.length >= DAYS_SEARCHED) break;
  }
  const files: Array<{ path: string; mtimeMs: number }> = [];
  for (const day of days) {
    for (const name of await namesDescending(day, /^rollout-.*\.jsonl$/)) {
      const path = join(day, name);
      const info = await stat(path).catch(() => undefined);
      if (info?.isFile()) files.push({ path, mtimeMs: info.mtimeMs });
    }
  }
  files.sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (const file of files.slice(0, FILES_CHECKED)) {
    if ((await cwdOf(file.path).catch(() => undefined)) === cwd) return file;
  }
  return undefined;
}
