// scripts/install-local.sh: starts the board in the background, verifies it with a tool call, prints working
// tokens once, and on a second run reuses everything without starting another daemon.
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/board.js';
import { eventually } from '../helpers/eventually.js';
import { freePort, standInServer } from '../helpers/net.js';
import { spawnTracked } from '../helpers/processes.js';

const SCRIPT = join(ROOT, 'scripts/install-local.sh');

/** Daemons the script started in the background; they are not our children, so they are stopped by pid. */
const backgroundPids = new Set<number>();

interface ScriptRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runScript(env: Record<string, string>): Promise<ScriptRun> {
  const child = spawnTracked('bash', [SCRIPT, '--skip-install'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`install-local.sh did not finish in 45 s:\n${stdout}\n${stderr}`));
    }, 45_000);
    // 'close', not 'exit': every pipe is closed, so the background daemon holds none of them.
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie (exited, not yet reaped by init) answers kill(0) but is gone.
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

async function stopDaemon(pid: number): Promise<void> {
  if (!alive(pid)) return;
  process.kill(pid, 'SIGTERM');
  try {
    await eventually(`the background daemon ${pid} to stop after SIGTERM`, () => !alive(pid), { timeoutMs: 10_000, intervalMs: 100 });
  } catch (error) {
    process.kill(pid, 'SIGKILL');
    throw error;
  }
}

afterAll(async () => {
  for (const pid of backgroundPids) await stopDaemon(pid);
  for (const pid of backgroundPids) expect(alive(pid), `background daemon ${pid} left running`).toBe(false);
});

async function whoami(url: string, token: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}/api/v1/tools/whoami`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{}',
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** "  leader     leader  rt_..." lines (the owner's first). */
function printedTokens(output: string): Array<{ name: string; role: string; token: string }> {
  return [...output.matchAll(/^ {2}(\S+)\s+(owner|leader|worker)\s+(rt_[A-Za-z0-9_-]{43})$/gm)].map((m) => ({ name: m[1]!, role: m[2]!, token: m[3]! }));
}

function scriptEnv(dataDir: string, port: number, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: dataDir,
    ROUNDTABLE_DATA_DIR: dataDir,
    ROUNDTABLE_PORT: String(port),
    ...extra,
  };
}

describe('scripts/install-local.sh', () => {
  it('starts the board, verifies a tool call, prints working tokens once; a second run reuses it all', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'roundtable-install-'));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = scriptEnv(dataDir, port);

    const first = await runScript(env);
    const pidFile = join(dataDir, 'roundtable.pid');
    if (existsSync(pidFile)) backgroundPids.add(Number(readFileSync(pidFile, 'utf8')));
    expect(first.code, `${first.stdout}\n${first.stderr}`).toBe(0);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(alive(pid)).toBe(true);
    expect(first.stdout).toContain('starting the board in the background');
    expect(first.stdout).toContain('verified with a tool call: whoami answered leader (leader)');
    expect(first.stdout).toContain(`npx roundtable-bridge login --url ${url}`);
    expect(first.stdout).toContain(`kill $(cat ${pidFile})`);

    // The printed tokens work, each once on screen.
    const tokens = printedTokens(first.stdout);
    expect(tokens.map((t) => t.role)).toEqual(['owner', 'leader', 'worker', 'worker']);
    expect(first.stdout).toContain(`sign in with it at ${url}/ to act on the board's page`);
    for (const t of tokens) {
      expect(first.stdout.split(t.token).length - 1).toBe(1);
      expect(await whoami(url, t.token)).toMatchObject({ status: 200, body: { name: t.name, role: t.role } });
    }
    const status = await fetch(`${url}/status`);
    expect(status.status).toBe(200);

    // No token in any file the script or the board wrote.
    expect(statSync(join(dataDir, 'agents.json')).mode & 0o777).toBe(0o600);
    for (const file of readdirSync(dataDir)) {
      const text = readFileSync(join(dataDir, file), 'latin1');
      for (const t of tokens) expect(text, file).not.toContain(t.token);
    }
    // The script waits for the daemon by pid; the daemon's own lock names the same process.
    expect(Number(readFileSync(join(dataDir, 'roundtable.db.lock'), 'utf8').split('\n')[0])).toBe(pid);

    // Again, with a worker's token to verify with: no new daemon, no token printed.
    const worker = tokens.find((t) => t.role === 'worker')!;
    const second = await runScript({ ...env, ROUNDTABLE_TOKEN: worker.token });
    expect(second.code, `${second.stdout}\n${second.stderr}`).toBe(0);
    expect(second.stdout).toContain('exists: reusing it. No tokens are printed');
    expect(second.stdout).toContain(`the board is already running (pid ${pid}); not starting another`);
    expect(second.stdout).toContain(`whoami answered ${worker.name} (worker)`);
    for (const t of tokens) expect(second.stdout + second.stderr).not.toContain(t.token);
    expect(Number(readFileSync(pidFile, 'utf8'))).toBe(pid);
    const log = readFileSync(join(dataDir, 'roundtable.log'), 'utf8');
    expect(log.match(/"msg":"board started"/g)).toHaveLength(1);
    expect(log).not.toMatch(/in use by another roundtable daemon/);

    // A third run without any token still checks /status and says why it made no tool call.
    const third = await runScript(env);
    expect(third.code).toBe(0);
    expect(third.stdout).toContain('checked /status only');

    await stopDaemon(pid);
    backgroundPids.delete(pid);
    expect(existsSync(join(dataDir, 'roundtable.db.lock'))).toBe(false);
    expect((await whoami(url, tokens[0]!.token).catch(() => null)) === null).toBe(true);
  });

  it('a rerun without ROUNDTABLE_PORT keeps the port of the running board; a variable set on a rerun still wins', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'roundtable-install-'));
    const port = await freePort();
    const { ROUNDTABLE_PORT: _none, ...noPort } = scriptEnv(dataDir, port);

    const first = await runScript(scriptEnv(dataDir, port));
    const pidFile = join(dataDir, 'roundtable.pid');
    if (existsSync(pidFile)) backgroundPids.add(Number(readFileSync(pidFile, 'utf8')));
    expect(first.code, `${first.stdout}\n${first.stderr}`).toBe(0);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    const envFile = join(dataDir, 'env');
    expect(readFileSync(envFile, 'utf8')).toContain(`export ROUNDTABLE_PORT=${port}\n`);

    const again = await runScript(noPort);
    expect(again.code, `${again.stdout}\n${again.stderr}`).toBe(0);
    expect(again.stdout).toContain(`keeping the settings of the earlier run (${envFile}): ROUNDTABLE_HOST=127.0.0.1 ROUNDTABLE_PORT=${port} `);
    expect(again.stdout).toContain(`the board is already running (pid ${pid})`);
    expect(again.stdout).toContain(`Roundtable is running: http://127.0.0.1:${port} (pid ${pid})`);
    expect(again.stdout).not.toContain(':8000');
    expect(readFileSync(envFile, 'utf8')).toContain(`export ROUNDTABLE_PORT=${port}\n`);

    // Stopped, then started again on a port given explicitly: that port wins over the file, and the file follows.
    await stopDaemon(pid);
    backgroundPids.delete(pid);
    const otherPort = await freePort();
    const moved = await runScript({ ...noPort, ROUNDTABLE_PORT: String(otherPort) });
    if (existsSync(pidFile)) backgroundPids.add(Number(readFileSync(pidFile, 'utf8')));
    expect(moved.code, `${moved.stdout}\n${moved.stderr}`).toBe(0);
    expect(moved.stdout).toContain(`Roundtable is running: http://127.0.0.1:${otherPort} `);
    expect(readFileSync(envFile, 'utf8')).toContain(`export ROUNDTABLE_PORT=${otherPort}\n`);
    expect((await fetch(`http://127.0.0.1:${otherPort}/status`)).status).toBe(200);
    const movedPid = Number(readFileSync(pidFile, 'utf8'));
    await stopDaemon(movedPid);
    backgroundPids.delete(movedPid);
  });

  /** "by python3 (pid 42)" when ss or lsof is installed (both are here), a plain fallback otherwise. */
  const holderPattern = (): RegExp => {
    const tools = ['ss', 'lsof'].some((tool) => (process.env['PATH'] ?? '').split(':').some((dir) => existsSync(join(dir, tool))));
    return tools ? new RegExp(`already in use by \\S+ \\(pid ${process.pid}\\)`) : /already in use by another program/;
  };

  it('a port taken by another program: says so, by what, and which ROUNDTABLE_PORT to use; writes and starts nothing', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'roundtable-install-'));
    const squatter = await standInServer((_req, res) => res.end('not a board'));
    try {
      const port = Number(new URL(squatter.url).port);
      const result = await runScript(scriptEnv(dataDir, port));
      expect(result.code).toBe(1);
      const message = result.stderr.trim().split('\n');
      expect(message).toHaveLength(1);
      expect(message[0]).toMatch(new RegExp(`^install-local: port ${port} on 127\\.0\\.0\\.1 is already in use by `));
      expect(message[0]).toMatch(holderPattern());
      expect(message[0]).toMatch(/nothing was started or written\. Stop that program, or choose another port: ROUNDTABLE_PORT=\d+ \S+install-local\.sh --skip-install$/);
      expect(message[0]).not.toContain('Roundtable board');
      expect(result.stdout).not.toContain('the board answers');
      expect(readdirSync(dataDir)).toEqual([]);
    } finally {
      await squatter.close();
    }
  });

  it('a port taken by another Roundtable board: says so, instead of "the board answers" and a 401 for the new tokens', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'roundtable-install-'));
    const otherBoard = await standInServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/status') return void res.end('{"ok":true,"board":"Roundtable","version":"0.1.0"}');
      res.statusCode = 401;
      res.end('{"error":{"code":"unauthorized","message":"unknown token"}}');
    });
    try {
      const port = Number(new URL(otherBoard.url).port);
      const result = await runScript(scriptEnv(dataDir, port));
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(holderPattern());
      expect(result.stderr).toContain('which answers as another Roundtable board (with its own database and agents)');
      // \b: the port number itself may contain "401".
      expect(result.stdout + result.stderr).not.toMatch(/the board answers|\b401\b/);
      expect(printedTokens(result.stdout + result.stderr)).toEqual([]);
      expect(readdirSync(dataDir)).toEqual([]);
    } finally {
      await otherBoard.close();
    }
  });

  it('refuses a non-loopback host', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'roundtable-install-'));
    const result = await runScript(scriptEnv(dataDir, await freePort(), { ROUNDTABLE_HOST: '0.0.0.0' }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('only on loopback');
    expect(readdirSync(dataDir)).toEqual([]);
  });
});
