// Change cursors for wait_for_activity's `since` (issue 24): a position in the event log, signed with the board's own
// key (made at migration), so a cursor is opaque, cannot be forged or moved, and is refused on another board.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidInput } from '../errors.js';
import type { LogPosition } from '../store/event-log.js';

const MAC_BYTES = 12;
const CONTEXT = 'roundtable change cursor v1:';
const POSITION = /^(\d{1,20})\.(\d{1,16})$/;

function mac(secret: Buffer, payload: string): Buffer {
  return createHmac('sha256', secret).update(CONTEXT + payload).digest().subarray(0, MAC_BYTES);
}

export function encodeChangeCursor(secret: Buffer, position: LogPosition): string {
  const payload = `${position.xid}.${position.id}`;
  return `${Buffer.from(payload).toString('base64url')}.${mac(secret, payload).toString('base64url')}`;
}

/** The position a cursor names; invalid_input when this board did not make it (forged, altered, or another board's). */
export function decodeChangeCursor(secret: Buffer, cursor: string): LogPosition {
  const refused = () =>
    new InvalidInput('since: not a cursor this board gave (altered, or from another board); leave since out to read the board as it stands, and use the cursor that answer gives');
  const [encoded, signature, extra] = cursor.split('.');
  if (encoded === undefined || signature === undefined || extra !== undefined) throw refused();
  const payload = Buffer.from(encoded, 'base64url').toString();
  // Canonical text only: base64url decoding ignores stray characters, so the cursor must be exactly what was made.
  const given = Buffer.from(signature);
  const expected = Buffer.from(mac(secret, payload).toString('base64url'));
  if (Buffer.from(payload).toString('base64url') !== encoded || given.length !== expected.length || !timingSafeEqual(given, expected)) throw refused();
  const match = POSITION.exec(payload);
  if (!match) throw refused();
  return { xid: match[1]!, id: Number(match[2]) };
}
