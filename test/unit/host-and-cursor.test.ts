// Small pure pieces: Host header parsing and list cursors.
import { describe, expect, it } from 'vitest';
import { decodeCursor, decodeItemCursor, decodePosition, encodeCursor, encodeItemCursor } from '../../daemon/src/board/cursor.js';
import { InvalidInput } from '../../daemon/src/errors.js';
import { parseAllowedHost } from '../../daemon/src/runtime/config.js';
import { admits, hostAndPortOf, hostnameOf, originAdmitted } from '../../daemon/src/http/host-guard.js';

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

describe('the Origin check compares scheme, host and port exactly (issue 31, item 9)', () => {
  const OWN = 8000;
  const entries = [{ name: '127.0.0.1', port: undefined }, { name: 'localhost', port: undefined }, { name: 'board.example.com', port: undefined }];
  const isAllowed = (name: string, port: number) => entries.some((entry) => admits(entry, name, port, OWN));
  it.each([
    // [origin, the scheme the request came over (undefined: a plain socket no trusted proxy speaks for), admitted]
    ['http://127.0.0.1:8000', undefined, true],
    ['http://localhost:8000', 'http:', true],
    ['HTTP://LOCALHOST:8000', undefined, true],
    ['https://127.0.0.1:8000', undefined, false],
    ['https://localhost:8000', 'http:', false],
    ['ws://127.0.0.1:8000', undefined, false],
    ['wss://127.0.0.1:8000', 'https:', false],
    ['ftp://127.0.0.1:8000', undefined, false],
    ['file://127.0.0.1:8000', undefined, false],
    ['http://user@127.0.0.1:8000', undefined, false],
    ['http://user:pw@127.0.0.1:8000', undefined, false],
    ['http://127.0.0.1:8000/', undefined, false],
    ['http://127.0.0.1:8000/path', undefined, false],
    ['http://127.0.0.1:8000?q', undefined, false],
    ['http://127.0.0.1:8000#f', undefined, false],
    ['null', undefined, false],
    ['', undefined, false],
    ['http://127.0.0.1:8001', undefined, false],
    ['http://evil.example', undefined, false],
    // Behind a proxy: a configured name, on the standard ports; the scheme exactly when the board knows it.
    ['https://board.example.com', undefined, true],
    ['http://board.example.com', undefined, true],
    ['https://board.example.com', 'https:', true],
    ['http://board.example.com', 'https:', false],
    ['https://board.example.com', 'http:', false],
    ['https://board.example.com:443', 'https:', false],
    ['ws://board.example.com', undefined, false],
    ['https://board.example.com:8443', 'https:', false],
    ['https://user@board.example.com', 'https:', false],
    // On a TLS socket, the board's own port: https only.
    ['https://127.0.0.1:8000', 'https:', true],
    ['http://127.0.0.1:8000', 'https:', false],
  ] as const)('%s (request over %s): %s', (origin, scheme, admitted) => {
    expect(originAdmitted(origin, scheme, isAllowed)).toBe(admitted);
  });
});

it('cursors round-trip and forged ones are refused', () => {
  expect(decodeCursor(encodeCursor(41))).toBe(41);
  expect(() => decodeCursor('41')).toThrow(InvalidInput);
  expect(() => decodeCursor(Buffer.from('rt1:-5').toString('base64url'))).toThrow(InvalidInput);
  expect(() => decodeCursor(Buffer.from('rt1:1e400').toString('base64url'))).toThrow(InvalidInput);
});

it('a cursor is read as the strict inverse of how the board writes it: anything else is refused (issue 22, item 5)', () => {
  const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
  for (const id of [0, 1, 41, 2_147_483_647]) expect(decodeCursor(encodeCursor(id))).toBe(id);
  for (const [rank, id] of [[0, 1], [3, 2_147_483_647]] as const) expect(decodePosition(encodeCursor(id, rank), 'priority')).toEqual({ afterRank: rank, afterId: id });
  for (const position of [{ newestFirst: true, from: 7 }, { newestFirst: false, from: 0 }]) expect(decodeItemCursor('history_cursor', encodeItemCursor(position))).toEqual(position);
  const real = encodeCursor(16);
  for (const forged of [b64('rt1:0x10'), b64('rt1:1e1'), b64('rt1: 5'), b64('rt1:'), b64('rt1:016'), b64('rt1:2147483648'), `${real}!!`, `${real}=`, Buffer.from('rt1:1').toString('base64'), ` ${real}`, b64('rt2:1.16')]) {
    expect(() => decodeCursor(forged), forged).toThrow(/^cursor: not a cursor this board issued/);
  }
  expect(() => decodePosition(real, 'priority')).toThrow(InvalidInput);
  const item = encodeItemCursor({ newestFirst: true, from: 9 });
  for (const forged of [`${item}***`, b64('rt3:n.09'), b64('rt3:x.9'), b64('rt3:n.9 ')]) {
    expect(() => decodeItemCursor('messages_cursor', forged), forged).toThrow(/^messages_cursor: not a cursor this board issued for get_task/);
  }
});
