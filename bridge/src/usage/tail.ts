// Reading what an app appended to its JSONL file since the last read: whole lines only, a bounded number of bytes per
// call, so a long session's file is never read at once and a line still being written is read next time.
import { open } from 'node:fs/promises';

/** At most this much is read per call; what is left is read by the next. */
export const READ_BUDGET_BYTES = 8 * 1024 * 1024;

/** Where the last read stopped in one file. */
export interface TailPosition {
  /** The file's inode: another number means the file was replaced, and it is read from its start. */
  readonly ino: number;
  /** The byte after the last whole line read. */
  readonly offset: number;
  /** The last read stopped inside a line longer than the budget: the rest of it, up to its newline, is skipped. */
  readonly midLine: boolean;
}

export interface TailRead {
  readonly lines: string[];
  readonly position: TailPosition;
  /** The file was replaced or shortened since the position: the lines are from its start. */
  readonly restarted: boolean;
  /** Bytes past the new position (the file's size then, minus the position): more to read next time. */
  readonly left: number;
}

const NEWLINE = 0x0a;

/** Reads the whole lines after `from` (or from `start` for a file not read before), at most `budget` bytes. */
export async function readNewLines(options: { path: string; from?: TailPosition; start?: number; budget?: number }): Promise<TailRead> {
  const budget = options.budget ?? READ_BUDGET_BYTES;
  const file = await open(options.path, 'r');
  try {
    const info = await file.stat();
    const size = info.size;
    let offset: number;
    let midLine: boolean;
    let restarted = false;
    if (options.from && options.from.ino === info.ino && options.from.offset <= size) {
      ({ offset, midLine } = options.from);
    } else {
      restarted = options.from !== undefined;
      offset = Math.min(Math.max(0, options.start ?? 0), size);
      // Starting inside the file: the first, partial line is not one to read.
      midLine = offset > 0;
    }
    const length = Math.min(budget, size - offset);
    if (length <= 0) return { lines: [], position: { ino: info.ino, offset, midLine }, restarted, left: 0 };
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await file.read(buffer, 0, length, offset);
    const chunk = buffer.subarray(0, bytesRead);
    const lastNewline = chunk.lastIndexOf(NEWLINE);
    if (lastNewline < 0) {
      // No whole line in the budget: one line longer than it. Skip past it rather than stop here for ever.
      const end = offset + bytesRead;
      const longLine = bytesRead === budget;
      return { lines: [], position: { ino: info.ino, offset: longLine ? end : offset, midLine: midLine || longLine }, restarted, left: size - (longLine ? end : offset) };
    }
    let first = 0;
    if (midLine) first = chunk.indexOf(NEWLINE) + 1;
    const lines = first <= lastNewline ? chunk.toString('utf8', first, lastNewline).split('\n') : [];
    const next = offset + lastNewline + 1;
    return { lines: lines.filter((line) => line.length > 0), position: { ino: info.ino, offset: next, midLine: false }, restarted, left: size - next };
  } finally {
    await file.close();
  }
}

/** Parses a JSON object line, or undefined: a line that does not parse (torn, foreign) is skipped, never an error. */
export function jsonLine(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
