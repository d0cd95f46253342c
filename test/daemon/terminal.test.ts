// What a person at a terminal sees (issue 31 items 2 and 7): a busy port refused before anything is written, --port and
// --host, `roundtable status`, what a shutdown stopped, and readable log lines on a real pseudo-terminal.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { api, DAEMON_BIN, daemonEnv, runCli, startBoard } from '../helpers/board.js';
import { eventually, within } from '../helpers/eventually.js';
import { freePort } from '../helpers/net.js';
import { spawnTracked, stopProcess } from '../helpers/processes.js';
import { describeEachStore } from '../helpers/stores.js';

const PATH = process.env['PATH'] ?? '/usr/bin:/bin';

function emptyDir(): string {
  return mkdtempSync(join(tmpdir(), 'roundtable-terminal-'));
}

function hasCommand(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const held: Server[] = [];
afterEach(async () => {
  await Promise.all(held.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A port this test process listens on, as another program would. */
async function holdPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  held.push(server);
  return (server.address() as { port: number }).port;
}

/** The daemon's output until it printed its address; its URL. */
async function listening(child: ChildProcess, output: () => string): Promise<string> {
  return eventually(`the daemon to listen (output: ${output().slice(-400)})`, () => {
    if (child.exitCode !== null) throw new Error(`the daemon exited with ${child.exitCode}: ${output()}`);
    return /listening on (https?:\/\/\S+?)\/mcp/.exec(output())?.[1];
  });
}

describe('start on a busy port', () => {
  it.each([
    ['ROUNDTABLE_PORT', (port: number) => ({ args: ['start'], env: { ROUNDTABLE_PORT: String(port) } })],
    ['--port', (port: number) => ({ args: ['start', '--port', String(port)], env: {} })],
  ])('given by %s: refused before anything is written, no token printed; the message names the port, the program and what to do', async (_how, given) => {
    const port = await holdPort();
    const dir = emptyDir();
    const { args, env } = given(port);
    const result = await runCli(args, daemonEnv(dir, env));
    expect(result.code).toBe(1);
    expect(readdirSync(dir)).toEqual([]);
    expect(result.stdout).toBe('');
    expect(result.stderr).not.toMatch(/rt_/);
    expect(result.stderr).toMatch(new RegExp(`^roundtable: port ${port} on 127\\.0\\.0\\.1 is already in use`));
    expect(result.stderr).toMatch(/ROUNDTABLE_PORT=\d+ npm start, or roundtable start --port \d+\n$/);
    // ss (iproute2) or lsof names the process holding it: this test's own node.
    if (hasCommand('ss') || hasCommand('lsof')) expect(result.stderr).toContain(`in use by node (pid ${process.pid})`);
  });

  it('run refuses the same way', async () => {
    const port = await holdPort();
    const dir = emptyDir();
    const result = await runCli(['run', '--port', String(port)], daemonEnv(dir));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`));
    expect(existsSync(join(dir, 'board.db'))).toBe(false);
  });
});

describe('--port and --host', () => {
  it('set the port and the host, over ROUNDTABLE_PORT and ROUNDTABLE_HOST', async () => {
    const dir = emptyDir();
    const port = await freePort();
    let output = '';
    const child = spawnTracked(process.execPath, [DAEMON_BIN, 'start', '--port', String(port), '--host', '127.0.0.1'], {
      cwd: dir,
      env: daemonEnv(dir, { ROUNDTABLE_PORT: '1', ROUNDTABLE_HOST: '192.0.2.1' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    expect(await listening(child, () => output)).toBe(`http://127.0.0.1:${port}`);
    expect(await stopProcess(child)).toBe(0);
  });

  it.each([
    [['run', '--port', 'abc'], /^roundtable: invalid option: --port "abc": a port number from 0 to 65535\n$/],
    [['start', '--port', '70000'], /^roundtable: invalid option: --port "70000": a port number from 0 to 65535\n$/],
  ])('%j: refused, naming the option', async (args, message) => {
    const dir = emptyDir();
    const result = await runCli(args, daemonEnv(dir));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describeEachStore((store) => {
  describe('roundtable status', () => {
    it("names the running board's pid or address, version, uptime, agents active and tasks by state; exit 0", async () => {
      // A board on PostgreSQL keeps no lock file: status asks the configured address, so it needs a fixed port.
      const port = store.name === 'postgres' ? await freePort() : 0;
      const board = await startBoard({ store, env: { ROUNDTABLE_PORT: String(port) } });
      try {
        expect((await api(board, 'lead', 'create_task', { title: 'one' })).status).toBe(200);
        expect((await api(board, 'lead', 'create_task', { title: 'two' })).status).toBe(200);
        const env = daemonEnv(board.dir, { ROUNDTABLE_PORT: String(port), ...(board.databaseUrl && { ROUNDTABLE_DATABASE_URL: board.databaseUrl }) });
        const result = await runCli(['status'], env);
        expect(result.code, result.stderr).toBe(0);
        const lines = result.stdout.trimEnd().split('\n');
        expect(lines[0]).toBe(store.name === 'sqlite' ? `Board "Roundtable" is running (pid ${board.process.pid}) for ${board.dbPath}` : 'Board "Roundtable" is running (PostgreSQL)');
        expect(lines[1]).toBe(`  address  ${board.url} (web page ${board.url}/, MCP ${board.url}/mcp)`);
        expect(lines[2]).toMatch(/^ {2}version {2}\d+\.\d+\.\d+/);
        expect(lines[3]).toMatch(/^ {2}uptime {3}(\d+m )?\d+s$/);
        expect(lines[4]).toBe('  agents   1 active (a tool call in the last 15 minutes)');
        expect(lines[5]).toBe('  tasks    open 2 (2 ready, 0 blocked), claimed 0, submitted 0, done 0, cancelled 0');

        const json = await runCli(['status', '--json'], env);
        expect(json.code).toBe(0);
        expect(JSON.parse(json.stdout)).toMatchObject({ running: true, url: board.url, ok: true, tasks_by_status: { open: 2 }, uptime_seconds: expect.any(Number) });
      } finally {
        await board.stop();
      }
    });

    it('says when no board runs, and how to start one; exit 1', async () => {
      const dir = emptyDir();
      const port = await freePort();
      const env = daemonEnv(dir, { ROUNDTABLE_PORT: String(port), ...(store.name === 'postgres' && { ROUNDTABLE_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }) });
      const result = await runCli(['status'], env);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        store.name === 'sqlite'
          ? `roundtable: no board is running for ${join(dir, 'board.db')} (no live daemon holds its lock). Start one with \`roundtable start\` (in a checkout: \`npm start\`)\n`
          : `roundtable: no board answers at http://127.0.0.1:${port} (ROUNDTABLE_HOST, ROUNDTABLE_PORT): nothing listens there (connection refused). Start one with \`roundtable start\` (in a checkout: \`npm start\`)\n`,
      );
    });
  });

  describe('a shutdown', () => {
    it.each(['SIGTERM', 'SIGINT'] as const)('on %s says what it stopped, and that nothing acknowledged was lost, once the database closed', async (signal) => {
      const board = await startBoard({ store });
      // One parked wait, answered by the shutdown.
      const parked = fetch(`${board.url}/api/v1/tools/wait_for_activity`, {
        method: 'POST',
        headers: { authorization: `Bearer ${board.tokens['w1']}`, 'content-type': 'application/json' },
        body: JSON.stringify({ timeout_s: 40 }),
      }).then((r) => r.status, () => 0);
      await eventually('the wait to park', async () => (await api(board, 'lead', 'members')).body.members.find((m: { name: string }) => m.name === 'w1').waiting);
      expect(await board.stop(signal)).toBe(0);
      await within('the parked wait to be answered', parked, 5000);
      const database = store.name === 'sqlite' ? `SQLite ${board.dbPath}` : `PostgreSQL postgres://${new URL(board.databaseUrl!).host}${new URL(board.databaseUrl!).pathname}`;
      expect(board.output().stdout.trimEnd().split('\n').at(-1)).toBe(
        `Stopped on ${signal}: the HTTP server (0 event streams and 1 parked wait ended), the webhook worker, and the database (${database}), which closed cleanly. Nothing the board acknowledged was lost.`,
      );
      const stopped = board.output().stderr.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l['msg'] === 'stopped');
      expect(stopped).toMatchObject({ level: 30, signal, streams: 0, waits: 1 });
    });
  });
});

describe('the log on a terminal', () => {
  const withScript = hasCommand('script');

  /** Runs `roundtable start` in an empty folder on a pseudo-terminal (util-linux script), makes requests, then Ctrl-C. */
  async function startOnTerminal(extraEnv: Record<string, string> = {}): Promise<string> {
    const dir = emptyDir();
    let output = '';
    const child = spawnTracked('script', ['-qfec', `exec "${process.execPath}" "${DAEMON_BIN}" start`, '/dev/null'], {
      cwd: dir,
      env: { PATH, HOME: dir, TERM: 'dumb', ROUNDTABLE_PORT: '0', ...extraEnv },
      // script forwards its stdin to the terminal: an open pipe, so it does not see an end of input.
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const url = await listening(child, () => output);
    const leader = /^ {2}leader +leader +(rt_\S+)/m.exec(output.replace(/\r/g, ''))![1]!;
    expect((await fetch(`${url}/status`)).status).toBe(200);
    const created = await fetch(`${url}/api/v1/tools/create_task`, {
      method: 'POST',
      headers: { authorization: `Bearer ${leader}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'one' }),
    });
    expect(created.status).toBe(200);
    // The daemon's pid, from the lock beside its database (script runs it under a shell of its own).
    const pid = Number(readFileSync(join(dir, 'roundtable.db.lock'), 'utf8').split('\n')[0]);
    process.kill(pid, 'SIGINT');
    await within('script to end with the daemon', new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve))), 15_000);
    return output.replace(/\r/g, '');
  }

  it.skipIf(!withScript)('shows the tokens, then readable lines without the per-request ones, then what Ctrl-C stopped', async () => {
    const output = await startOnTerminal();
    const banner = output.indexOf('Each token is shown once');
    const listeningAt = output.indexOf('listening on');
    expect(banner).toBeGreaterThanOrEqual(0);
    expect(listeningAt).toBeGreaterThan(banner);
    expect(output).not.toMatch(/^\{/m);
    expect(output).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: board started/m);
    expect(output).not.toMatch(/: request\b/);
    expect(output).not.toMatch(/: tool call\b/);
    expect(output).toMatch(/Stopped on SIGINT: the HTTP server \(0 event streams and 0 parked waits ended\), the webhook worker, and the database \(SQLite roundtable\.db\), which closed cleanly\. Nothing the board acknowledged was lost\.\n/);
  });

  it.skipIf(!withScript)('shows the per-request lines, readable, at ROUNDTABLE_LOG_LEVEL=debug', async () => {
    const output = await startOnTerminal({ ROUNDTABLE_LOG_LEVEL: 'debug' });
    expect(output).not.toMatch(/^\{/m);
    expect(output).toMatch(/^\[\d\d:\d\d:\d\d\] DEBUG: request \{.*"path":"\/status".*\}$/m);
    expect(output).toMatch(/^\[\d\d:\d\d:\d\d\] DEBUG: tool call \{.*"tool":"create_task".*\}$/m);
  });

  it('off a terminal every log line is JSON, the per-request lines at info', async () => {
    const board = await startBoard();
    try {
      expect((await api(board, 'lead', 'create_task', { title: 'one' })).status).toBe(200);
      const lines = await eventually('the request line', () => {
        const parsed = board.output().stderr.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
        return parsed.some((l) => l['msg'] === 'request') && parsed;
      });
      expect(lines.find((l) => l['msg'] === 'request')).toMatchObject({ level: 30 });
      expect(lines.find((l) => l['msg'] === 'tool call')).toMatchObject({ level: 30, tool: 'create_task' });
    } finally {
      await board.stop();
    }
  });
});
