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

/** "  leader     leader  rt_..." lines. */
function printedTokens(output: string): Array<{ name: string; role: string; token: string }> {
  return [...output.matchAll(/^ {2}(\S+)\s+(leader|worker)\s+(rt_[A-Za-z0-9_-]{43})$/gm)].map((m) => ({ name: m[1]!, role: m[2]!, token: m[3]! }));
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
    expect(tokens.map((t) => t.role)).toEqual(['leader', 'worker', 'worker']);
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
    expect(Number(readFileSync(join(dataDir, 'roundtable.db.lock'), 'utf8'))).toBe(pid);

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

  it('a port already taken: exits non-zero with the log, still shows the new tokens once, leaves nothing running', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'roundtable-install-'));
    const squatter = await standInServer((_req, res) => res.end('not a board'));
    try {
      const port = Number(new URL(squatter.url).port);
      const result = await runScript(scriptEnv(dataDir, port));
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/port is already in use/);
      expect(result.stderr).toContain('the board did not answer');
      expect(printedTokens(result.stderr)).toHaveLength(3);
      expect(existsSync(join(dataDir, 'roundtable.pid'))).toBe(false);
      expect(existsSync(join(dataDir, 'roundtable.db.lock'))).toBe(false);
    } finally {
      await squatter.close();
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
