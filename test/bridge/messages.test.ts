// What the bridge says when something is wrong, through the real bridge and a real daemon: no token at start,
// a refused token named by its source, and `status` with the daemon down.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBoard, token, type TestBoard } from '../helpers/board.js';
import { body, BRIDGE_BIN, bridgeEnv, startBridge } from '../helpers/bridge.js';
import { freePort } from '../helpers/net.js';
import { spawnTracked, stopProcess } from '../helpers/processes.js';
import { eventually } from '../helpers/eventually.js';
import { requireOrSkip, sharedKeyringProblem } from '../helpers/keychain.js';

let board: TestBoard;
const outputs: string[] = [];
const wrongTokens: string[] = [];

beforeAll(async () => {
  board = await startBoard();
});
afterAll(async () => {
  await board.stop();
  const all = outputs.join('\n');
  for (const secret of [...Object.values(board.tokens), ...wrongTokens]) expect(all).not.toContain(secret);
});

/** An environment with no D-Bus session, so the keychain is out of reach whatever the machine runs. */
function envWithoutKeychain(extra: Record<string, string> = {}): Record<string, string> {
  const env = bridgeEnv({ HOME: mkdtempSync(join(tmpdir(), 'roundtable-msg-home-')), ...extra });
  delete env['DBUS_SESSION_BUS_ADDRESS'];
  return env;
}

function wrongToken(): string {
  const value = token();
  wrongTokens.push(value);
  return value;
}

describe('start-up with no token anywhere', () => {
  it('logs one line on stderr naming where it looked and `roundtable-bridge login`, before any tool call; stdout stays MCP', async () => {
    const child = spawnTracked(process.execPath, [BRIDGE_BIN, '--url', board.url, '--profile', 'nobody-here'], {
      env: envWithoutKeychain(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      const send = (message: object) => child.stdin!.write(`${JSON.stringify(message)}\n`);
      send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } } });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      const line = await eventually('the no-token line on stderr', () => stderr.split('\n').find((l) => /no token for/.test(l)));
      await eventually('the tools/list answer', () => stdout.includes('"id":2'));
      expect(line).toContain(`no token for ${board.url}`);
      expect(line).toContain('ROUNDTABLE_TOKEN is not set');
      expect(line).toContain('service "roundtable", account "nobody-here"');
      expect(line).toContain('ROUNDTABLE_TOKEN_FILE is not set');
      expect(line).toContain(`roundtable-bridge login --url ${board.url} --profile nobody-here`);
      expect(stderr.split('\n').filter((l) => /token/i.test(l))).toHaveLength(1);
      // stdout holds nothing but JSON-RPC.
      for (const out of stdout.split('\n').filter(Boolean)) expect(JSON.parse(out)).toMatchObject({ jsonrpc: '2.0' });
    } finally {
      await stopProcess(child, 'SIGTERM');
      outputs.push(stdout, stderr);
    }
  });

  it('says nothing of the kind when a token is there', async () => {
    const bridge = await startBridge({ args: ['--url', board.url], env: envWithoutKeychain({ ROUNDTABLE_TOKEN: board.tokens['w1']! }) });
    try {
      expect(body(await bridge.client.callTool({ name: 'whoami', arguments: {} })).name).toBe('w1');
      expect(bridge.stderr()).not.toMatch(/no (usable )?token/);
    } finally {
      await bridge.close();
      outputs.push(bridge.stderr());
    }
  });
});

describe('a refused token', () => {
  it('from ROUNDTABLE_TOKEN: names the variable and says to set or unset it, since login cannot override it', async () => {
    const bad = wrongToken();
    const bridge = await startBridge({ args: ['--url', board.url], env: envWithoutKeychain({ ROUNDTABLE_TOKEN: bad }) });
    try {
      const result = await bridge.client.callTool({ name: 'whoami', arguments: {} });
      expect(result.isError).toBe(true);
      const error = body(result).error;
      expect(error.code).toBe('unauthorized');
      expect(error.message).toContain(`the board at ${board.url} refused the token in ROUNDTABLE_TOKEN`);
      expect(error.message).toContain('set ROUNDTABLE_TOKEN to this agent\'s current token');
      expect(error.message).toContain('or unset it to use the keychain');
      expect(error.message).not.toContain(bad);
    } finally {
      await bridge.close();
      outputs.push(bridge.stderr());
    }
  });

  it('from ROUNDTABLE_TOKEN_FILE: names the file and says to write the current token into it', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'roundtable-msg-file-')), 'token');
    writeFileSync(file, `${wrongToken()}\n`, { mode: 0o600 });
    const bridge = await startBridge({ args: ['--url', board.url, '--profile', 'file-only'], env: envWithoutKeychain({ ROUNDTABLE_TOKEN_FILE: file }) });
    try {
      const error = body(await bridge.client.callTool({ name: 'whoami', arguments: {} })).error;
      expect(error.code).toBe('unauthorized');
      expect(error.message).toContain(`refused the token in ROUNDTABLE_TOKEN_FILE (${file})`);
      expect(error.message).toContain('Write this agent\'s current token into that file');
      expect(error.message).not.toContain('ROUNDTABLE_TOKEN.');
    } finally {
      await bridge.close();
      outputs.push(bridge.stderr());
    }
  });
});

describe('roundtable-bridge status with the daemon down', () => {
  it('names the URL it tried, says nothing answers, and what to check; it does not send you back to status', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const run = await promisify(execFile)(process.execPath, [BRIDGE_BIN, 'status', '--url', url], {
      env: envWithoutKeychain({ ROUNDTABLE_TOKEN: board.tokens['w1']! }),
    }).catch((error: { code: number; stdout: string; stderr: string }) => error);
    outputs.push(run.stdout, run.stderr);
    expect('code' in run ? run.code : 0).toBe(1);
    expect(run.stdout).toMatch(new RegExp(`daemon:\\s+nothing answers at ${url.replace(/\./g, '\\.')} \\(ECONNREFUSED\\)`));
    expect(run.stdout).toContain("Check that the board's daemon is running");
    expect(run.stdout).toContain('--url or ROUNDTABLE_URL');
    expect(run.stdout).toMatch(/agent:\s+not checked: the board did not answer/);
    expect(run.stdout).not.toContain('roundtable-bridge status');
  });
});

describe('no token anywhere, with a working keychain', () => {
  let keyringProblem: string | undefined;
  beforeAll(async () => {
    keyringProblem = await sharedKeyringProblem();
  });
  requireOrSkip(() => keyringProblem);

  it('a call answers no_credential with the login command for this board and profile, not a placeholder', async () => {
    const profile = `never-logged-in-${process.pid}`;
    const bridge = await startBridge({ args: ['--url', board.url, '--profile', profile], env: bridgeEnv() });
    try {
      const error = body(await bridge.client.callTool({ name: 'whoami', arguments: {} })).error;
      expect(error.code).toBe('no_credential');
      expect(error.message).toContain(`Run \`roundtable-bridge login --url ${board.url} --profile ${profile}\` to store this agent's token`);
      expect(error.message).not.toContain('<board URL>');
    } finally {
      await bridge.close();
      outputs.push(bridge.stderr());
    }
  });
});
