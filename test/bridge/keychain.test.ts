// The bridge's credentials end to end: login/logout/status against a real daemon, the order of token sources,
// the keychain's failure modes (unavailable, locked, stuck) in private D-Bus sessions, and no token in any output.
//
// The shared keyring is the session's Secret Service (CI: dbus-run-session with an unlocked gnome-keyring). Without
// one, the tests that need it are skipped, unless ROUNDTABLE_REQUIRE_KEYCHAIN=1, when they fail.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { ROOT, startBoard, token, type TestBoard } from '../helpers/board.js';
import { body, BRIDGE_BIN, bridgeEnv, startBridge, type BridgeSession } from '../helpers/bridge.js';
import { spawnTracked, stopProcess } from '../helpers/processes.js';
import { eventually } from '../helpers/eventually.js';
import { REQUIRE_KEYCHAIN, requireOrSkip, sharedKeyringProblem } from '../helpers/keychain.js';

/**
 * How long the bridge may take to report a keychain failure, start-up included. The bridge gives the keychain 2.5 s;
 * the rest is slack for process start on a loaded 2-core machine (two suites and several builds at once took 6.6 s). A stuck keychain
 * without the deadline hangs for tens of seconds, so this still tells the two apart.
 */
const KEYCHAIN_BUDGET_MS = 10_000;

// ---------------------------------------------------------------------------------------------------------------
// Every output of every bridge command run here, and every token used, for the final secrets check.

const transcript: Array<{ command: string; text: string }> = [];
const secrets = new Set<string>();

function record(command: string, text: string): void {
  transcript.push({ command, text });
}

/** A command line fit for a failure message: tokens passed in argv (by the argv test) are masked. */
function describeCommand(args: string[]): string {
  let line = `roundtable-bridge ${args.join(' ')}`;
  for (const secret of secrets) line = line.replaceAll(secret, '<token>');
  return line;
}

/** A token the board does not know; registered as a secret like the real ones. */
function wrongToken(): string {
  const value = token();
  secrets.add(value);
  return value;
}

// ---------------------------------------------------------------------------------------------------------------
// Running the bridge.

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout and stderr together, for matching messages wherever they are printed. */
  readonly output: string;
  /** Wall time from spawn to exit. */
  readonly ms: number;
}

interface RunOptions {
  readonly env: Record<string, string>;
  /** Written to stdin, which is then closed (stdin is always closed, so nothing waits on it). */
  readonly stdin?: string;
  readonly cwd?: string;
}

/** Runs one bridge command (login, logout, status, ...) to completion. */
async function bridge(args: string[], options: RunOptions): Promise<Run> {
  const started = performance.now();
  const child = spawnTracked(process.execPath, [BRIDGE_BIN, ...args], {
    env: options.env,
    cwd: options.cwd ?? ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin!.on('error', () => {}); // the bridge may exit before reading stdin
  child.stdin!.end(options.stdin ?? '');
  const killer = setTimeout(() => void stopProcess(child, 'SIGKILL').catch(() => {}), 20_000);
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  clearTimeout(killer);
  const ms = performance.now() - started;
  record(describeCommand(args), stdout + stderr);
  return { code, stdout, stderr, output: stdout + stderr, ms };
}

/** Serves the bridge over stdio; its stderr goes into the transcript when it is closed. */
async function serve(args: string[], env: Record<string, string>): Promise<BridgeSession> {
  const session = await startBridge({ args, env });
  onTestFinished(async () => {
    await session.close();
    record(`${describeCommand(args)} (served)`, session.stderr());
  });
  return session;
}

/** Calls a tool through a served bridge; returns the parsed result, whether it is an error, and the wall time. */
async function callTool(session: BridgeSession, name: string, args: Record<string, unknown> = {}) {
  const started = performance.now();
  const result = await session.client.callTool({ name, arguments: args });
  const ms = performance.now() - started;
  const text = JSON.stringify(result);
  record(`tools/call ${name}`, text);
  return { isError: result.isError === true, json: body(result), ms };
}

/** An environment with no D-Bus session at all: no Secret Service can be reached. */
function envWithoutBus(extra: Record<string, string> = {}): Record<string, string> {
  const env = bridgeEnv(extra);
  delete env['DBUS_SESSION_BUS_ADDRESS'];
  return env;
}

/** The shared session's environment, without ROUNDTABLE_TOKEN unless the test adds it. */
function sharedEnv(extra: Record<string, string> = {}): Record<string, string> {
  return bridgeEnv(extra);
}

const tempDirs: string[] = [];

/** A fresh directory (a HOME, or a place for a token file), removed after the file's tests. */
function tempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `roundtable-kc-${label}-`));
  tempDirs.push(dir);
  return dir;
}

/** Every file under dir that contains needle (the keyring's own files included: they must hold it encrypted). */
function filesContaining(dir: string, needle: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if (readFileSync(path).includes(needle)) found.push(path);
  }
  return found;
}

// ---------------------------------------------------------------------------------------------------------------
// Keychain sessions.

const runId = randomBytes(4).toString('hex');

/** A keychain account of this test file's own, so parallel test files never share an entry. */
function profile(label: string): string {
  return `kc-${runId}-${label}`;
}

/** Removes a keychain entry when the test finishes, passed or not. */
function forgetAfterTest(args: string[], env: Record<string, string>): void {
  onTestFinished(async () => {
    await bridge(['logout', ...args], { env });
  });
}

/** Logs in through the bridge (token on stdin). */
async function loginAs(board: TestBoard, agent: string, options: { profile?: string; env: Record<string, string> }): Promise<Run> {
  const args = ['--url', board.url, ...(options.profile ? ['--profile', options.profile] : [])];
  return bridge(['login', ...args, '--token-stdin'], { env: options.env, stdin: `${board.tokens[agent]!}\n` });
}

/** Logs in to the shared keyring and removes the entry when the test finishes. */
async function login(board: TestBoard, agent: string, options: { profile?: string } = {}): Promise<Run> {
  forgetAfterTest(['--url', board.url, ...(options.profile ? ['--profile', options.profile] : [])], sharedEnv());
  return loginAs(board, agent, { ...options, env: sharedEnv() });
}

/** Whether the tools for a private keyring session are installed. */
function privateSessionProblem(): string | undefined {
  try {
    execFileSync('sh', ['-c', 'command -v dbus-run-session && command -v gnome-keyring-daemon && command -v dbus-send'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'dbus-run-session, gnome-keyring-daemon or dbus-send is not installed';
  }
}

/** A gnome-keyring in a D-Bus session of its own, with its own HOME (so its own keyring files). */
interface PrivateKeyring {
  /** The environment for a bridge in this session. */
  readonly env: Record<string, string>;
  /** SIGSTOP the keyring daemon: it keeps its bus name but answers nothing. */
  freeze(): void;
  close(): Promise<void>;
}

// Starts the daemon (unlocked with password "pw", or locked), waits until it owns org.freedesktop.secrets, prints
// the bus and its pid, then waits for stdin to close and stops the daemon.
const PRIVATE_SESSION_SCRIPT = `
if [ "$1" = unlocked ]; then printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null
else gnome-keyring-daemon --components=secrets --daemonize >/dev/null; fi
pid=; i=0
while [ -z "$pid" ] && [ $i -lt 200 ]; do
  pid=$(dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus / \\
    org.freedesktop.DBus.GetConnectionUnixProcessID string:org.freedesktop.secrets 2>/dev/null | awk '{print $2}')
  [ -z "$pid" ] && sleep 0.05; i=$((i+1))
done
echo "ready bus=$DBUS_SESSION_BUS_ADDRESS pid=$pid"
cat >/dev/null
[ -n "$pid" ] && { kill -CONT "$pid"; kill "$pid"; }
exit 0
`;

async function privateKeyring(mode: 'locked' | 'unlocked', home: string): Promise<PrivateKeyring> {
  const child = spawnTracked('dbus-run-session', ['--', 'sh', '-c', PRIVATE_SESSION_SCRIPT, 'sh', mode], {
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const ready = await new Promise<{ bus: string; pid: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`private keyring session did not start in 10 s:\n${stderr}`)), 10_000);
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
      const match = /ready bus=(\S+) pid=(\d*)/.exec(stdout);
      if (!match) return;
      clearTimeout(timer);
      if (match[2]) resolve({ bus: match[1]!, pid: Number(match[2]) });
      else reject(new Error(`gnome-keyring-daemon never owned org.freedesktop.secrets:\n${stderr}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`private keyring session exited with ${code}:\n${stderr}`));
    });
  }).catch(async (error: unknown) => {
    await stopProcess(child, 'SIGKILL').catch(() => {});
    throw error;
  });
  let frozen = false;
  return {
    env: bridgeEnv({ HOME: home, DBUS_SESSION_BUS_ADDRESS: ready.bus }),
    freeze() {
      process.kill(ready.pid, 'SIGSTOP');
      frozen = true;
    },
    async close() {
      if (frozen) process.kill(ready.pid, 'SIGCONT');
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin!.end();
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      await stopProcess(child, 'SIGKILL');
    },
  };
}

/** Opens a private keyring session for the current test and closes it when the test finishes. */
async function privateKeyringForTest(mode: 'locked' | 'unlocked', home: string): Promise<PrivateKeyring> {
  const keyring = await privateKeyring(mode, home);
  onTestFinished(() => keyring.close());
  return keyring;
}

// ---------------------------------------------------------------------------------------------------------------
// Assertions.

/** A classified keychain failure: fast, exit 1, its own message, and a fix that offers ROUNDTABLE_TOKEN. */
function expectKeychainFailure(run: Run, message: RegExp): void {
  expect(run.ms, `took ${run.ms.toFixed(0)} ms:\n${run.output}`).toBeLessThan(KEYCHAIN_BUDGET_MS);
  expect(run.code, run.output).toBe(1);
  expect(run.output).toMatch(message);
  expect(run.output).toContain('ROUNDTABLE_TOKEN');
}

/** A tool call answered with the bridge's own keychain error, fast. */
function expectKeychainToolError(call: Awaited<ReturnType<typeof callTool>>, code: string): void {
  expect(call.ms, `took ${call.ms.toFixed(0)} ms`).toBeLessThan(KEYCHAIN_BUDGET_MS);
  expect(call.isError).toBe(true);
  expect(call.json.error).toMatchObject({ code, source: 'bridge' });
  expect(call.json.error.message).toContain('ROUNDTABLE_TOKEN');
}

const KEYCHAIN_MESSAGES = {
  unavailable: /no OS keychain can be reached/,
  locked: /the keychain is locked/,
  timeout: /the keychain did not answer/,
} as const;

// ---------------------------------------------------------------------------------------------------------------

let board: TestBoard;
let sharedProblem: string | undefined;

beforeAll(async () => {
  board = await startBoard();
  for (const value of Object.values(board.tokens)) secrets.add(value);
  sharedProblem = await sharedKeyringProblem();
  if (sharedProblem && !REQUIRE_KEYCHAIN) console.warn(`keychain tests on the shared keyring are skipped: ${sharedProblem}`);
});
afterAll(async () => {
  await board?.stop();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

describe('login, status, logout with the shared keyring', () => {
  requireOrSkip(() => sharedProblem);

  it('a wrong token: exit 1, says it is not valid, stores nothing', async () => {
    const p = profile('wrong');
    forgetAfterTest(['--url', board.url, '--profile', p], sharedEnv());
    const run = await bridge(['login', '--url', board.url, '--profile', p, '--token-stdin'], { env: sharedEnv(), stdin: wrongToken() });
    expect(run.code, run.output).toBe(1);
    expect(run.output).toMatch(/not valid/);
    expect(run.output).toMatch(/nothing was stored/);

    const status = await bridge(['status', '--url', board.url, '--profile', p], { env: sharedEnv() });
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/token:\s+none usable: no token for/);
  });

  it('a right token: login names the agent, status and a served bridge use it, logout removes it', async () => {
    // The default account is the board's origin (no --profile). Clear anything left by an earlier, killed run.
    await bridge(['logout', '--url', board.url], { env: sharedEnv() });

    const run = await login(board, 'w1');
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toContain(`Logged in to ${board.url} as w1 (worker)`);
    expect(run.stdout).toContain(`account "${new URL(board.url).origin}"`);

    const status = await bridge(['status', '--url', board.url], { env: sharedEnv() });
    expect(status.code, status.output).toBe(0);
    expect(status.stdout).toMatch(/token:\s+from keychain/);
    expect(status.stdout).toMatch(/daemon:\s+reachable, [\d.]+ ms round trip/);
    expect(status.stdout).toMatch(/agent:\s+w1 \(worker\), skills: python, sql/);

    const served = await serve(['--url', board.url], sharedEnv());
    const whoami = await callTool(served, 'whoami');
    expect(whoami.isError, JSON.stringify(whoami.json)).toBe(false);
    expect(whoami.json).toMatchObject({ name: 'w1', role: 'worker' });

    const logout = await bridge(['logout', '--url', board.url], { env: sharedEnv() });
    expect(logout.code).toBe(0);
    expect(logout.stdout).toContain(`Removed the token for ${new URL(board.url).origin}`);

    const after = await bridge(['status', '--url', board.url], { env: sharedEnv() });
    expect(after.code).toBe(1);
    expect(after.stdout).toMatch(/token:\s+none usable: no token for/);

    const again = await bridge(['logout', '--url', board.url], { env: sharedEnv() });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`No token was stored for ${new URL(board.url).origin}`);
  });

  it('--profile keeps two agents apart on one board URL', async () => {
    const [a, b] = [profile('prof-a'), profile('prof-b')];
    expect((await login(board, 'w2', { profile: a })).code).toBe(0);
    expect((await login(board, 'lead', { profile: b })).code).toBe(0);

    const statusA = await bridge(['status', '--url', board.url, '--profile', a], { env: sharedEnv() });
    expect(statusA.stdout).toMatch(new RegExp(`token:\\s+from keychain \\(account "${a}"\\)`));
    expect(statusA.stdout).toMatch(/agent:\s+w2 \(worker\)/);

    const [servedA, servedB] = await Promise.all([
      serve(['--url', board.url, '--profile', a], sharedEnv()),
      serve(['--url', board.url, '--profile', b], sharedEnv()),
    ]);
    expect((await callTool(servedA, 'whoami')).json).toMatchObject({ name: 'w2', role: 'worker' });
    expect((await callTool(servedB, 'whoami')).json).toMatchObject({ name: 'lead', role: 'leader' });

    // Logging one profile out leaves the other.
    expect((await bridge(['logout', '--url', board.url, '--profile', a], { env: sharedEnv() })).code).toBe(0);
    expect((await bridge(['status', '--url', board.url, '--profile', a], { env: sharedEnv() })).code).toBe(1);
    const statusB = await bridge(['status', '--url', board.url, '--profile', b], { env: sharedEnv() });
    expect(statusB.code, statusB.output).toBe(0);
    expect(statusB.stdout).toMatch(/agent:\s+lead \(leader\)/);
  });
});

describe('order of token sources', () => {
  describe('with the shared keyring', () => {
    requireOrSkip(() => sharedProblem);

    it('ROUNDTABLE_TOKEN wins over the keychain', async () => {
      const p = profile('env-wins');
      expect((await login(board, 'w1', { profile: p })).code).toBe(0);
      const env = sharedEnv({ ROUNDTABLE_TOKEN: board.tokens['w3']! });

      const status = await bridge(['status', '--url', board.url, '--profile', p], { env });
      expect(status.code, status.output).toBe(0);
      expect(status.stdout).toMatch(/token:\s+from ROUNDTABLE_TOKEN/);
      expect(status.stdout).toMatch(/agent:\s+w3 \(worker\)/);

      const served = await serve(['--url', board.url, '--profile', p], env);
      expect((await callTool(served, 'whoami')).json).toMatchObject({ name: 'w3' });
    });

    it('the keychain wins over ROUNDTABLE_TOKEN_FILE', async () => {
      const p = profile('kc-wins');
      expect((await login(board, 'w1', { profile: p })).code).toBe(0);
      const file = join(tempDir('file'), 'token');
      writeFileSync(file, board.tokens['w2']!, { mode: 0o600 });

      const status = await bridge(['status', '--url', board.url, '--profile', p], { env: sharedEnv({ ROUNDTABLE_TOKEN_FILE: file }) });
      expect(status.code, status.output).toBe(0);
      expect(status.stdout).toMatch(/token:\s+from keychain/);
      expect(status.stdout).toMatch(/agent:\s+w1 \(worker\)/);
    });

    it('ROUNDTABLE_TOKEN_FILE (mode 600) is used when neither the environment nor the keychain has a token', async () => {
      const p = profile('file-used');
      const file = join(tempDir('file'), 'token');
      writeFileSync(file, `${board.tokens['w2']!}\n`, { mode: 0o600 });
      const env = sharedEnv({ ROUNDTABLE_TOKEN_FILE: file });

      const status = await bridge(['status', '--url', board.url, '--profile', p], { env });
      expect(status.code, status.output).toBe(0);
      expect(status.stdout).toMatch(/token:\s+from ROUNDTABLE_TOKEN_FILE/);
      expect(status.stdout).toMatch(/agent:\s+w2 \(worker\)/);

      const served = await serve(['--url', board.url, '--profile', p], env);
      expect((await callTool(served, 'whoami')).json).toMatchObject({ name: 'w2' });
    });

    it('a token file of mode 644 is refused, naming the file and `chmod 600`', async () => {
      const p = profile('file-644');
      const file = join(tempDir('file'), 'token');
      writeFileSync(file, board.tokens['w2']!);
      chmodSync(file, 0o644);

      const status = await bridge(['status', '--url', board.url, '--profile', p], { env: sharedEnv({ ROUNDTABLE_TOKEN_FILE: file }) });
      expect(status.code).toBe(1);
      expect(status.stdout).toContain(`ROUNDTABLE_TOKEN_FILE ${file} has mode 644`);
      expect(status.stdout).toContain(`chmod 600 ${file}`);
      expect(status.stdout).not.toMatch(/agent:/);

      const served = await serve(['--url', board.url, '--profile', p], sharedEnv({ ROUNDTABLE_TOKEN_FILE: file }));
      const call = await callTool(served, 'whoami');
      expect(call.isError).toBe(true);
      expect(call.json.error).toMatchObject({ code: 'token_file_insecure', source: 'bridge' });
      expect(call.json.error.message).toContain(`chmod 600 ${file}`);
    });
  });

  it.each([
    ['status', '--token', 'separate'],
    ['login', '--token', 'separate'],
    ['status', '--token', 'inline'],
    ['serve', '--token', 'separate'],
  ])('a token in argv is refused: %s %s (%s value) is an unknown option', async (command, flag, style) => {
    const value = board.tokens['lead']!;
    const args = [...(command === 'serve' ? [] : [command]), '--url', board.url, ...(style === 'inline' ? [`${flag}=${value}`] : [flag, value])];
    const run = await bridge(args, { env: envWithoutBus() });
    expect(run.code).not.toBe(0);
    expect(run.code).not.toBeNull();
    expect(run.stderr).toContain(`unknown option ${flag}: the bridge takes no token on its command line`);
    expect(run.stderr).not.toContain(value);
    expect(run.stdout).toBe('');
  });
});

describe('keychain failure modes', () => {
  describe('unavailable: no D-Bus session', () => {
    it('status reports keychain_unavailable within 3 s, with a fix', async () => {
      const home = tempDir('home');
      const run = await bridge(['status', '--url', board.url, '--profile', profile('unavail')], { env: envWithoutBus({ HOME: home }), cwd: home });
      expectKeychainFailure(run, KEYCHAIN_MESSAGES.unavailable);
      expect(run.stdout).toMatch(/token:\s+none usable: no OS keychain can be reached/);
      expect(run.stdout).toContain('ROUNDTABLE_TOKEN_FILE');
    });

    it('a tool call through a served bridge is an isError result with code keychain_unavailable from the bridge', async () => {
      const home = tempDir('home');
      const served = await serve(['--url', board.url, '--profile', profile('unavail-serve')], envWithoutBus({ HOME: home }));
      expectKeychainToolError(await callTool(served, 'whoami'), 'keychain_unavailable');
    });

    it('ROUNDTABLE_TOKEN still works without a keychain', async () => {
      const run = await bridge(['status', '--url', board.url], { env: envWithoutBus({ ROUNDTABLE_TOKEN: board.tokens['w1']! }) });
      expect(run.code, run.output).toBe(0);
      expect(run.stdout).toMatch(/agent:\s+w1 \(worker\)/);
    });

    it('ROUNDTABLE_TOKEN_FILE still works without a keychain', async () => {
      const file = join(tempDir('file'), 'token');
      writeFileSync(file, board.tokens['w3']!, { mode: 0o600 });
      const run = await bridge(['status', '--url', board.url, '--profile', profile('unavail-file')], {
        env: envWithoutBus({ ROUNDTABLE_TOKEN_FILE: file }),
      });
      expect(run.code, run.output).toBe(0);
      expect(run.stdout).toMatch(/token:\s+from ROUNDTABLE_TOKEN_FILE/);
      expect(run.stdout).toMatch(/agent:\s+w3 \(worker\)/);
    });

    it('login fails with exit 1 and writes the token nowhere in plaintext', async () => {
      const home = tempDir('home');
      const secret = board.tokens['w3']!;
      const run = await bridge(['login', '--url', board.url, '--profile', profile('unavail-login'), '--token-stdin'], {
        env: envWithoutBus({ HOME: home }),
        cwd: home,
        stdin: secret,
      });
      expectKeychainFailure(run, KEYCHAIN_MESSAGES.unavailable);
      expect(run.stdout).not.toMatch(/Logged in/);
      expect(filesContaining(home, secret)).toEqual([]);
    });
  });

  describe('in a private D-Bus session', () => {
    requireOrSkip(privateSessionProblem);

    it('locked: status, a served tool call and login report keychain_locked within 3 s; login stores nothing', async () => {
      const home = tempDir('home');
      const p = profile('locked');
      // First store a token while the keyring is unlocked, so there is an entry the locked keyring must unlock to read.
      const unlocked = await privateKeyring('unlocked', home);
      try {
        const stored = await loginAs(board, 'w1', { profile: p, env: unlocked.env });
        expect(stored.code, stored.output).toBe(0);
      } finally {
        await unlocked.close();
      }

      const locked = await privateKeyringForTest('locked', home);
      const status = await bridge(['status', '--url', board.url, '--profile', p], { env: locked.env, cwd: home });
      expectKeychainFailure(status, KEYCHAIN_MESSAGES.locked);
      expect(status.stdout).toMatch(/token:\s+none usable: the keychain is locked/);

      const served = await serve(['--url', board.url, '--profile', p], locked.env);
      expectKeychainToolError(await callTool(served, 'whoami'), 'keychain_locked');

      const secret = board.tokens['w2']!;
      const run = await bridge(['login', '--url', board.url, '--profile', profile('locked-login'), '--token-stdin'], {
        env: locked.env,
        cwd: home,
        stdin: secret,
      });
      expectKeychainFailure(run, KEYCHAIN_MESSAGES.locked);
      expect(filesContaining(home, secret)).toEqual([]);
      // The keyring file exists and holds the first token, encrypted.
      expect(statSync(join(home, '.local/share/keyrings/login.keyring')).isFile()).toBe(true);
      expect(filesContaining(home, board.tokens['w1']!)).toEqual([]);
    });

    it('a keychain token the board refuses: the error names the keychain entry and the login command for it', async () => {
      const home = tempDir('home');
      const keyring = await privateKeyringForTest('unlocked', home);
      const p = profile('refused');
      expect((await loginAs(board, 'w1', { profile: p, env: keyring.env })).code).toBe(0);
      // Another board does not know w1's token: the same keychain entry is refused there.
      const other = await startBoard();
      onTestFinished(() => other.stop().then(() => undefined));
      const served = await serve(['--url', other.url, '--profile', p], keyring.env);
      const call = await callTool(served, 'whoami');
      expect(call.isError).toBe(true);
      expect(call.json.error.code).toBe('unauthorized');
      expect(call.json.error.message).toContain(`the board at ${other.url} refused the token stored in the keychain (service "roundtable", account "${p}")`);
      expect(call.json.error.message).toContain(`roundtable-bridge login --url ${other.url} --profile ${p}`);
    });

    it('no token anywhere: one line at start says the keychain entry it looked in is empty, and how to fill it', async () => {
      const home = tempDir('home');
      const keyring = await privateKeyringForTest('unlocked', home);
      const p = profile('empty');
      const served = await serve(['--url', board.url, '--profile', p], keyring.env);
      await served.client.listTools();
      await eventually('the no-token line on stderr', () => /no token for/.test(served.stderr()), { timeoutMs: 5_000 });
      const lines = served.stderr().split('\n').filter((l) => /no token for/.test(l));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`ROUNDTABLE_TOKEN is not set, the keychain has none (service "roundtable", account "${p}"), ROUNDTABLE_TOKEN_FILE is not set`);
      expect(lines[0]).toContain(`run \`roundtable-bridge login --url ${board.url} --profile ${p}\``);
    });

    it('stuck: a stopped Secret Service gives keychain_timeout within 3 s for status, a served tool call and login', async () => {
      const home = tempDir('home');
      const keyring = await privateKeyringForTest('unlocked', home);
      keyring.freeze();

      const status = await bridge(['status', '--url', board.url, '--profile', profile('stuck')], { env: keyring.env, cwd: home });
      expectKeychainFailure(status, KEYCHAIN_MESSAGES.timeout);
      expect(status.stdout).toMatch(/token:\s+none usable: the keychain did not answer/);

      const served = await serve(['--url', board.url, '--profile', profile('stuck-serve')], keyring.env);
      expectKeychainToolError(await callTool(served, 'whoami'), 'keychain_timeout');

      const secret = board.tokens['lead']!;
      const run = await bridge(['login', '--url', board.url, '--profile', profile('stuck-login'), '--token-stdin'], {
        env: keyring.env,
        cwd: home,
        stdin: secret,
      });
      expectKeychainFailure(run, KEYCHAIN_MESSAGES.timeout);
      expect(filesContaining(home, secret)).toEqual([]);
    });
  });
});

// Runs last (tests in a file run in order): every output collected above, checked for every token.
describe('secrets', () => {
  it('no token appears in any command output', () => {
    expect(transcript.length).toBeGreaterThan(0);
    const leaks = transcript.flatMap(({ command, text }) =>
      [...secrets].filter((secret) => text.includes(secret)).map((secret) => `${command} printed a token ending ${secret.slice(-4)}`),
    );
    expect(leaks).toEqual([]);
  });
});
