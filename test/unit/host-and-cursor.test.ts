// Small pure pieces: Host header parsing and list cursors.
import { expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../daemon/src/board/cursor.js';
import { InvalidInput } from '../../daemon/src/errors.js';
import { parseAllowedHost } from '../../daemon/src/config.js';
import { admits, hostAndPortOf, hostnameOf } from '../../daemon/src/http/host-guard.js';

it.each([
  ['localhost:8000', 'localhost'],
  ['127.0.0.1', '127.0.0.1'],
  ['[::1]:8000', '[::1]'],
  ['Board.Example.COM:443', 'board.example.com'],
])('hostnameOf(%s) is %s', (header, host) => {
  expect(hostnameOf(header)).toBe(host);
});

it.each([
  ['localhost:8000', { name: 'localhost', port: 8000 }],
  ['Board.Example.COM', { name: 'board.example.com', port: undefined }],
  ['[::1]:8443', { name: '[::1]', port: 8443 }],
  ['[::1]', { name: '[::1]', port: undefined }],
])('hostAndPortOf(%s)', (header, expected) => {
  expect(hostAndPortOf(header)).toEqual(expected);
});

it.each([
  ['board.example.com', { name: 'board.example.com', port: undefined }],
  ['board.example.com:8443', { name: 'board.example.com', port: 8443 }],
  ['[::1]:8000', { name: '[::1]', port: 8000 }],
  ['::1', { name: '::1', port: undefined }],
  ['board.example.com:0', undefined],
  ['board.example.com:65536', undefined],
  ['board.example.com:', undefined],
  ['[::1]x', undefined],
])('parseAllowedHost(%s)', (entry, expected) => {
  expect(parseAllowedHost(entry)).toEqual(expected);
});

it('a loopback name admits only the daemon\'s own port; a configured name without a port also the standard ones', () => {
  const loopback = { name: '127.0.0.1', port: undefined };
  expect(admits(loopback, '127.0.0.1', 8000, 8000)).toBe(true);
  expect(admits(loopback, '127.0.0.1', 3000, 8000)).toBe(false);
  expect(admits(loopback, '127.0.0.1', 80, 8000)).toBe(false);
  const named = { name: 'board.example.com', port: undefined };
  for (const port of [80, 443, 8000]) expect(admits(named, 'board.example.com', port, 8000)).toBe(true);
  expect(admits(named, 'board.example.com', 8443, 8000)).toBe(false);
  expect(admits(named, 'other.example.com', 443, 8000)).toBe(false);
  const pinned = { name: 'board.example.com', port: 8443 };
  expect(admits(pinned, 'board.example.com', 8443, 8000)).toBe(true);
  expect(admits(pinned, 'board.example.com', 443, 8000)).toBe(false);
  expect(admits(pinned, 'board.example.com', 8000, 8000)).toBe(false);
});

it('cursors round-trip and forged ones are refused', () => {
  expect(decodeCursor(encodeCursor(41))).toBe(41);
  expect(() => decodeCursor('41')).toThrow(InvalidInput);
  expect(() => decodeCursor(Buffer.from('rt1:-5').toString('base64url'))).toThrow(InvalidInput);
  expect(() => decodeCursor(Buffer.from('rt1:1e400').toString('base64url'))).toThrow(InvalidInput);
});
