// The pure parts of issue 31's terminal messages: where a JSON syntax error is, whatever Node's wording; the nearest
// known option; a listen that fails because the port was taken since the check.
import { createServer } from 'node:net';
import { expect, it } from 'vitest';
import { nearest } from '../../daemon/src/cli/args.js';
import { jsonErrorPlace } from '../../daemon/src/agents/json-place.js';
import { listenFailure, PortUnavailable } from '../../daemon/src/process/port-check.js';
import { describeUptime } from '../../daemon/src/cli/status.js';

function parseError(text: string): Error {
  try {
    JSON.parse(text);
  } catch (error) {
    return error as Error;
  }
  throw new Error('the text parsed');
}

it.each([
  ['a missing comma', '{\n  "agents": [\n    {"name": "a"}\n    {"name": "b"}\n  ]\n}', 4, 5],
  ['a trailing comma', '{"agents": [1,]}', 1, 15],
  ['the text ends early', '{"agents": [', 1, 13],
  // Node 20-24 word this one without a position ("Unexpected token ' ', ... is not valid JSON").
  ['a bad literal', '{\n  "a": tru }', 2, 11],
  ['a stray word after a plaintext token', '{"agents": [\n{"name": "x", "token": "rt_SECRET" oops', 2, 36],
])('%s: its line and column, from whatever this Node reports', (_label, text, line, column) => {
  expect(jsonErrorPlace(text, parseError(text))).toEqual({ line, column });
});

it.each([
  ['Node 20', "Expected ',' or ']' after array element in JSON at position 17", { line: 2, column: 3 }],
  ['Node 22 and later', "Expected ',' or ']' after array element in JSON at position 17 (line 2 column 3)", { line: 2, column: 3 }],
  ['no place given', "Unexpected token 'x', \"...\" is not valid JSON", { line: 2, column: 3 }],
])("the parser's wording of %s", (_label, message, place) => {
  expect(jsonErrorPlace('{"agents": [1,\n2 x]}', new SyntaxError(message))).toEqual(place);
});

it.each([
  ['jsn', ['json', 'env', 'help'], 'json'],
  ['prot', ['port', 'host', 'json'], 'port'],
  ['hots', ['port', 'host', 'json'], 'host'],
  ['admin', ['role', 'skills', 'toolsets', 'json', 'env', 'help'], undefined],
  ['stauts', ['init', 'run', 'start', 'status'], 'status'],
])('nearest(%s) is %s', (word, known, expected) => {
  expect(nearest(word, known)).toBe(expected);
});

it('a port taken between the check and the listen is named, with its holder where ss or lsof tells', async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  try {
    const error = listenFailure(Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' }), '127.0.0.1', port);
    expect(error).toBeInstanceOf(PortUnavailable);
    expect(error.message).toMatch(new RegExp(`^port ${port} on 127\\.0\\.0\\.1 is already in use( by node \\(pid ${process.pid}\\))?; stop that program, or start on another port: ROUNDTABLE_PORT=${port + 1} npm start, or roundtable start --port ${port + 1}$`));
  } finally {
    server.close();
  }
  const other = Object.assign(new Error('boom'), { code: 'EMFILE' });
  expect(listenFailure(other, '127.0.0.1', 1)).toBe(other);
});

it.each([
  [0, '0s'],
  [42, '42s'],
  [125, '2m 5s'],
  [3 * 3600 + 7 * 60 + 9, '3h 7m'],
  [2 * 86_400 + 3600, '2d 1h'],
])('an uptime of %i s reads %s', (seconds, text) => {
  expect(describeUptime(seconds)).toBe(text);
});
