// Opaque list cursors: clients pass back what they were given and nothing else. A cursor is read by parsing it and
// encoding the result again: only a string equal to what the board itself would issue is taken.
import { LIMITS } from 'roundtable-shared';
import { InvalidInput } from '../errors.js';

const PREFIX = 'rt1:';
/** A cursor of a listing in priority order: the priority rank and the id of the last task served. */
const PRIORITY_PREFIX = 'rt2:';
/** A row id as the board writes it: no sign, no leading zero, no exponent, no space. */
const ID = '(0|[1-9]\\d{0,9})';
const ID_CURSOR = new RegExp(`^${PREFIX}${ID}$`);
const PRIORITY_CURSOR = new RegExp(`^${PRIORITY_PREFIX}([0-3])\\.${ID}$`);

export interface CursorPosition {
  readonly afterId: number;
  /** Present in a priority-ordered listing. */
  readonly afterRank?: number;
}

export function encodeCursor(lastId: number, lastRank?: number | null): string {
  const text = lastRank === undefined || lastRank === null ? `${PREFIX}${lastId}` : `${PRIORITY_PREFIX}${lastRank}.${lastId}`;
  return Buffer.from(text, 'utf8').toString('base64url');
}

/**
 * The text inside a cursor, or undefined unless the cursor is exactly the base64url of that text (no padding, no
 * standard-alphabet characters, nothing appended): Node's decoder skips what it does not understand.
 */
function textOf(cursor: string): string | undefined {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  return Buffer.from(text, 'utf8').toString('base64url') === cursor ? text : undefined;
}

/** A row id read from a cursor, within the range every id has (LIMITS.maxId); undefined when past it. */
function rowId(digits: string): number | undefined {
  const id = Number(digits);
  return id <= LIMITS.maxId ? id : undefined;
}

const refused = (field: string) =>
  new InvalidInput(`${field}: not a cursor this board issued for this listing; pass next_cursor from the previous page with the same filters, or omit ${field} to start over`);

/** Reads a cursor of an id-ordered listing (list_reservations); `field` names the argument in the refusal. */
export function decodeCursor(cursor: string, field = 'cursor'): number {
  return decodePosition(cursor, 'id', field).afterId;
}

/** Reads a cursor for a listing in the given order; a cursor of the other order is refused. */
export function decodePosition(cursor: string, order: 'id' | 'priority', field = 'cursor'): CursorPosition {
  const text = textOf(cursor);
  const match = text === undefined ? null : (order === 'id' ? ID_CURSOR : PRIORITY_CURSOR).exec(text);
  const afterId = match ? rowId(match[order === 'id' ? 1 : 2]!) : undefined;
  if (!match || afterId === undefined) throw refused(field);
  const position = order === 'id' ? { afterId } : { afterRank: Number(match[1]), afterId };
  // The strict inverse: what this position encodes to must be the cursor given.
  if (encodeCursor(position.afterId, position.afterRank) !== cursor) throw refused(field);
  return position;
}

/** A cursor into a task's messages or history (get_task): the order of its page and the id of its last row. */
const ITEM_PREFIX = 'rt3:';
const ITEM_CURSOR = new RegExp(`^${ITEM_PREFIX}([no])\\.${ID}$`);

export interface ItemPosition {
  readonly newestFirst: boolean;
  readonly from: number;
}

export function encodeItemCursor(position: ItemPosition): string {
  return Buffer.from(`${ITEM_PREFIX}${position.newestFirst ? 'n' : 'o'}.${position.from}`, 'utf8').toString('base64url');
}

/** Reads a get_task cursor; `field` names the argument in the refusal. */
export function decodeItemCursor(field: string, cursor: string): ItemPosition {
  const text = textOf(cursor);
  const match = text === undefined ? null : ITEM_CURSOR.exec(text);
  const from = match ? rowId(match[2]!) : undefined;
  const position = match && from !== undefined ? { newestFirst: match[1] === 'n', from } : undefined;
  if (!position || encodeItemCursor(position) !== cursor) {
    throw new InvalidInput(`${field}: not a cursor this board issued for get_task; pass back the ${field.replace('_cursor', '_next_cursor')} of an earlier get_task, or omit ${field} to start at the first page`);
  }
  return position;
}

/** A cursor into search hits (issue 36): how many hits earlier pages gave. Ranks move as the board changes, so a later
 * page may repeat or miss a hit; pages stop at LIMITS.searchDepth hits. */
const SEARCH_PREFIX = 'rt4:';
const SEARCH_CURSOR = new RegExp(`^${SEARCH_PREFIX}([1-9]\\d{0,3})$`);

export function encodeSearchCursor(offset: number): string {
  return Buffer.from(`${SEARCH_PREFIX}${offset}`, 'utf8').toString('base64url');
}

/** Reads a search cursor: the number of hits already served, below LIMITS.searchDepth. */
export function decodeSearchCursor(cursor: string): number {
  const text = textOf(cursor);
  const match = text === undefined ? null : SEARCH_CURSOR.exec(text);
  const offset = match ? Number(match[1]) : undefined;
  if (offset === undefined || offset >= LIMITS.searchDepth || encodeSearchCursor(offset) !== cursor) {
    throw new InvalidInput('cursor: not a cursor this board issued for search; pass next_cursor from the previous page with the same query, or omit cursor to start over');
  }
  return offset;
}
