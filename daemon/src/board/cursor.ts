// Opaque list cursors: clients pass back what they were given and nothing else.
import { InvalidInput } from '../errors.js';

const PREFIX = 'rt1:';
/** A cursor of a listing in priority order: the priority rank and the id of the last task served. */
const PRIORITY_PREFIX = 'rt2:';

export interface CursorPosition {
  readonly afterId: number;
  /** Present in a priority-ordered listing. */
  readonly afterRank?: number;
}

export function encodeCursor(lastId: number, lastRank?: number | null): string {
  const text = lastRank === undefined || lastRank === null ? `${PREFIX}${lastId}` : `${PRIORITY_PREFIX}${lastRank}.${lastId}`;
  return Buffer.from(text, 'utf8').toString('base64url');
}

const refused = () =>
  new InvalidInput('cursor: not a cursor this board issued for this listing; pass next_cursor from the previous page with the same filters, or omit cursor to start over');

export function decodeCursor(cursor: string): number {
  const position = decodePosition(cursor, 'id');
  return position.afterId;
}

/** Reads a cursor for a listing in the given order; a cursor of the other order is refused. */
export function decodePosition(cursor: string, order: 'id' | 'priority'): CursorPosition {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (order === 'id') {
    const id = text.startsWith(PREFIX) ? Number(text.slice(PREFIX.length)) : Number.NaN;
    if (!Number.isSafeInteger(id) || id < 0) throw refused();
    return { afterId: id };
  }
  const match = text.startsWith(PRIORITY_PREFIX) ? /^([0-3])\.(\d{1,15})$/.exec(text.slice(PRIORITY_PREFIX.length)) : null;
  if (!match) throw refused();
  return { afterRank: Number(match[1]), afterId: Number(match[2]) };
}
