// Claude Code's model use, from its session transcript (JSONL, one object a line). Observed in 2.1.328: an answer
// is a line {"type":"assistant","message":{"id","model","usage":{input_tokens, cache_creation_input_tokens,
// cache_read_input_tokens, output_tokens, ...}}}, one line per content block, each with the same id and the answer's
// whole usage; the transcript is ~/.claude/projects/<cwd, every character but A-Z a-z 0-9 made "-">/<session>.jsonl.
import { readdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { atLeast, beyond, costOf, countsFrom, modelName, plus, tokenCount, ZERO, type UsageCounts } from './counts.js';
import { jsonLine } from './tail.js';

/** What the transcript has said so far: the sums, the newest model, and the answers counted last (by message id). */
export interface ClaudeTally {
  totals: UsageCounts;
  model?: string;
  /** The last answers counted, so one split over several lines (or over two reads) counts once. */
  recent: Array<[string, UsageCounts]>;
}

/** Answers remembered for the split: their lines come together, so a few are plenty. */
const RECENT_ANSWERS = 32;

export function emptyClaudeTally(): ClaudeTally {
  return { totals: { ...ZERO }, recent: [] };
}

/** The folder Claude Code keeps a working folder's transcripts in. */
export function claudeProjectFolder(cwd: string, env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const config = env['CLAUDE_CONFIG_DIR'] || join(home, '.claude');
  return join(config, 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'));
}

/** The most recently written transcript in that folder, or undefined. */
export async function newestClaudeTranscript(folder: string): Promise<{ path: string; mtimeMs: number } | undefined> {
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    return undefined;
  }
  let newest: { path: string; mtimeMs: number } | undefined;
  for (const name of names) {
    if (!name.endsWith('.jsonl')) continue;
    const path = join(folder, name);
    const info = await stat(path).catch(() => undefined);
    if (info?.isFile() && (!newest || info.mtimeMs > newest.mtimeMs)) newest = { path, mtimeMs: info.mtimeMs };
  }
  return newest;
}

/** One answer's counts: input is what was not read from the cache (cache writes are input the model read). */
function answerCounts(usage: Record<string, unknown>, line: Record<string, unknown>): UsageCounts {
  return {
    input: tokenCount(usage['input_tokens']) + tokenCount(usage['cache_creation_input_tokens']),
    cached: tokenCount(usage['cache_read_input_tokens']),
    output: tokenCount(usage['output_tokens']),
    // Earlier versions wrote costUSD on the line; 2.1.328 does not (its cost-state line comes at the end of a run).
    cost: costOf(line['costUSD']),
  };
}

/** Adds the transcript's new lines to the tally (in place). */
export function tallyClaudeLines(tally: ClaudeTally, lines: readonly string[]): void {
  for (const text of lines) {
    // Most lines are not answers: skip them before parsing.
    if (!text.includes('"assistant"') || !text.includes('"usage"')) continue;
    const line = jsonLine(text);
    if (!line || line['type'] !== 'assistant') continue;
    const message = line['message'] as Record<string, unknown> | undefined;
    const usage = message?.['usage'];
    if (typeof usage !== 'object' || usage === null) continue;
    const counts = answerCounts(usage as Record<string, unknown>, line);
    const id = typeof message!['id'] === 'string' ? message!['id'] : typeof line['uuid'] === 'string' ? line['uuid'] : undefined;
    const index = id === undefined ? -1 : tally.recent.findIndex(([seen]) => seen === id);
    if (index >= 0) {
      // Another line of an answer already counted: only what it says beyond that (nothing, as 2.1.328 writes it).
      const counted = tally.recent[index]![1];
      tally.totals = plus(tally.totals, beyond(counts, counted));
      tally.recent[index] = [id!, atLeast(counted, counts)];
    } else {
      tally.totals = plus(tally.totals, counts);
      if (id !== undefined) tally.recent.push([id, counts]);
      if (tally.recent.length > RECENT_ANSWERS) tally.recent.splice(0, tally.recent.length - RECENT_ANSWERS);
    }
    const model = modelName(message!['model']);
    if (model) tally.model = model;
  }
}

/** A tally read back from the state file, or undefined when it is not one. */
export function claudeTallyFrom(value: unknown): ClaudeTally | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const totals = countsFrom(v['totals']);
  if (!totals || !Array.isArray(v['recent'])) return undefined;
  const recent: Array<[string, UsageCounts]> = [];
  for (const entry of (v['recent'] as unknown[]).slice(-RECENT_ANSWERS)) {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || entry[0].length > 200) return undefined;
    const counts = countsFrom(entry[1]);
    if (!counts) return undefined;
    recent.push([entry[0], counts]);
  }
  const model = modelName(v['model']);
  return { totals, recent, ...(model && { model }) };
}
