// Opaque list cursors: clients pass back what they were given and nothing else.
import { InvalidInput } from '../errors.js';

const PREFIX = 'rt1:';

export function encodeCursor(lastId: number): string {
  return Buffer.from(`${PREFIX}${lastId}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const id = text.startsWith(PREFIX) ? Number(text.slice(PREFIX.length)) : Number.NaN;
  if (!Number.isSafeInteger(id) || id < 0) {
    throw new InvalidInput('cursor: not a cursor this board issued; pass next_cursor from the previous page, or omit cursor to start over');
  }
  return id;
}
