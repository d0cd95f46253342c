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

/** A cursor into a task's messages or history (get_task): the order of its page and the id of its last row. */
const ITEM_PREFIX = 'rt3:';

export interface ItemPosition {
  readonly newestFirst: boolean;
  readonly from: number;
}

export function encodeItemCursor(position: ItemPosition): string {
  return Buffer.from(`${ITEM_PREFIX}${position.newestFirst ? 'n' : 'o'}.${position.from}`, 'utf8').toString('base64url');
}

/** Reads a get_task cursor; `field` names the argument in the refusal. */
export function decodeItemCursor(field: string, cursor: string): ItemPosition {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = text.startsWith(ITEM_PREFIX) ? /^([no])\.(\d{1,15})$/.exec(text.slice(ITEM_PREFIX.length)) : null;
  if (!match) {
    throw new InvalidInput(`${field}: not a cursor this board issued for get_task; pass back the ${field.replace('_cursor', '_next_cursor')} of an earlier get_task, or omit ${field} to start at the first page`);
  }
  return { newestFirst: match[1] === 'n', from: Number(match[2]) };
}
