// Small pure pieces: Host header parsing and list cursors.
import { expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../daemon/src/board/cursor.js';
import { InvalidInput } from '../../daemon/src/errors.js';
import { hostnameOf } from '../../daemon/src/http/host-guard.js';

it.each([
  ['localhost:8000', 'localhost'],
  ['127.0.0.1', '127.0.0.1'],
  ['[::1]:8000', '[::1]'],
  ['Board.Example.COM:443', 'board.example.com'],
])('hostnameOf(%s) is %s', (header, host) => {
  expect(hostnameOf(header)).toBe(host);
});

it('cursors round-trip and forged ones are refused', () => {
  expect(decodeCursor(encodeCursor(41))).toBe(41);
  expect(() => decodeCursor('41')).toThrow(InvalidInput);
  expect(() => decodeCursor(Buffer.from('rt1:-5').toString('base64url'))).toThrow(InvalidInput);
  expect(() => decodeCursor(Buffer.from('rt1:1e400').toString('base64url'))).toThrow(InvalidInput);
});
