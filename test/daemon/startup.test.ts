// Start-up: config and agents.json validation, `roundtable init`, durability across restarts, schema versions.
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { connect } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { api, daemonEnv, startBoard, token, writeAgentsFile, DEFAULT_AGENTS, runCli } from '../helpers/board.js';
import { eventually } from '../helpers/eventually.js';
import { freePort } from '../helpers/net.js';


const cli = runCli;

function tempDir() {
  return mkdtempSync(join(tmpdir(), 'roundtable-start-'));
}

describe('agents.json validation', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['no leader', { agents: [{ name: 'w', role: 'worker', token_sha256: 'a'.repeat(64) }] }, /exactly one leader, found 0/],
    [
      'two leaders',
      { agents: [{ name: 'a', role: 'leader', token_sha256: 'a'.repeat(64) }, { name: 'b', role: 'leader', token_sha256: 'b'.repeat(64) }] },
      /exactly one leader, found 2 \(a, b\)/,
    ],
    [
      'duplicate names',
      { agents: [{ name: 'a', role: 'leader', token_sha256: 'a'.repeat(64) }, { name: 'a', role: 'worker', token_sha256: 'b'.repeat(64) }] },
      /agents\[1\] \("a"\) name: duplicate/,
    ],
    ['a bad role', { agents: [{ name: 'x', role: 'boss', token_sha256: 'a'.repeat(64) }] }, /agents\[0\] \("x"\) role: must be one of leader, worker/],
    ['a bad hash', { agents: [{ name: 'x', role: 'leader', token_sha256: 'xyz' }] }, /agents\[0\] \("x"\) token_sha256: must be 64 lowercase hex/],
    ['no token at all', { agents: [{ name: 'x', role: 'leader' }] }, /agents\[0\] \("x"\) token_sha256: needs exactly one of/],
    ['an unknown field', { agents: [{ name: 'x', role: 'leader', token_sha256: 'a'.repeat(64), admin: true }] }, /agents\[0\] \("x"\).*admin/],
    ['not JSON', '{"agents": [', /not valid JSON at line 1, column 13; check the commas, quotes and brackets there/],
    ['not JSON around a plaintext token (the snippet is not echoed)', '{"agents": [\n{"name": "x", "token": "rt_PLAINTEXT_SECRET_123" oops', /not valid JSON at line 2, column 50(?![\s\S]*PLAINTEXT)/],
    ['a bad literal, which the parser places nowhere', '{\n  "agents": tru }', /not valid JSON at line 2, column 16;/],
    ['peer mode with a leader', { mode: 'peer', agents: [{ name: 'x', role: 'leader', token_sha256: 'a'.repeat(64) }] }, /agents\[0\] \("x"\) role: a peer-mode board has no leader/],
    ['peer mode without peers', { mode: 'peer', agents: [{ name: 'x', role: 'observer', token_sha256: 'a'.repeat(64) }] }, /needs at least one "peer"/],
    ['a peer in role mode', { agents: [{ name: 'l', role: 'leader', token_sha256: 'a'.repeat(64) }, { name: 'x', role: 'peer', token_sha256: 'b'.repeat(64) }] }, /"peer" needs "mode": "peer"/],
    ['an unknown mode', { mode: 'anarchy', agents: [{ name: 'x', role: 'leader', token_sha256: 'a'.repeat(64) }] }, /mode: must be one of role, peer/],
    ['an unknown toolset', { agents: [{ name: 'x', role: 'leader', token_sha256: 'a'.repeat(64), toolsets: ['tasks', 'chat'] }] }, /agents\[0\] \("x"\) toolsets\.1: each toolset must be one of tasks, room, presence, reservations/],
    ['no toolset in the list', { agents: [{ name: 'x', role: 'leader', token_sha256: 'a'.repeat(64), toolsets: [] }] }, /agents\[0\] \("x"\) toolsets: must name at least one of tasks, room/],
  ];

  it.each(cases)('%s: refuses to start, exit non-zero, names the file, entry and field', async (_label, content, message) => {
    const dir = tempDir();
    const path = join(dir, 'agents.json');
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    const result = await cli(['run'], daemonEnv(dir));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(path);
    expect(result.stderr).toMatch(message);
  });

  it('a missing file says how to create one', async () => {
    const dir = tempDir();
    const result = await cli(['run'], daemonEnv(dir));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('roundtable init');
  });

  it('a plaintext token is accepted with a warning that does not show the token', async () => {
    const dir = tempDir();
    const secret = token();
    writeFileSync(join(dir, 'agents.json'), JSON.stringify({ agents: [{ name: 'boss', role: 'leader', token: secret }] }));
    const board = await startBoard({ dir, tokens: { boss: secret }, agents: [] as never });
    try {
      expect((await api(board, 'boss', 'whoami')).body.name).toBe('boss');
      const { stderr, stdout } = board.output();
      expect(stderr).toMatch(/plaintext token/);
      expect(stderr + stdout).not.toContain(secret);
    } finally {
      await board.stop();
    }
  });
});

describe('environment validation', () => {
  it.each([
    ['ROUNDTABLE_PORT', 'eighty'],
    ['ROUNDTABLE_PORT', '70000'],
    ['ROUNDTABLE_RATE_LIMIT_PER_MINUTE', '0'],
    ['ROUNDTABLE_ALLOWED_HOSTS', 'good.example,bad host'],
    ['ROUNDTABLE_ALLOWED_HOSTS', 'good.example:0'],
    ['ROUNDTABLE_ALLOWED_HOSTS', 'good.example:99999'],
    ['ROUNDTABLE_MAX_EVENT_STREAMS', '0'],
    ['ROUNDTABLE_DB_DEADLINE', '0'],
    ['ROUNDTABLE_DB_DEADLINE', '50ms'],
    ['ROUNDTABLE_DB_STATEMENT_TIMEOUT', 'soon'],
    ['ROUNDTABLE_DB_POOL_WAIT', '0.05s'],
    ['ROUNDTABLE_DB_BUSY_TIMEOUT', '-1'],
  ])('%s=%s exits non-zero naming the variable', async (name, value) => {
    const dir = tempDir();
    writeAgentsFile(join(dir, 'agents.json'), DEFAULT_AGENTS, Object.fromEntries(DEFAULT_AGENTS.map((a) => [a.name, token()])));
    const result = await cli(['run'], daemonEnv(dir, { [name]: value }));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(name);
  });

  it('a database timeout longer than ROUNDTABLE_DB_DEADLINE is refused, naming both', async () => {
    const dir = tempDir();
    writeAgentsFile(join(dir, 'agents.json'), DEFAULT_AGENTS, Object.fromEntries(DEFAULT_AGENTS.map((a) => [a.name, token()])));
    const result = await cli(['run'], daemonEnv(dir, { ROUNDTABLE_DB_DEADLINE: '2s', ROUNDTABLE_DB_BUSY_TIMEOUT: '3s' }));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/ROUNDTABLE_DB_BUSY_TIMEOUT \(3s\) is longer than ROUNDTABLE_DB_DEADLINE \(2s\)/);
  });

  it('TLS cert without key is refused', async () => {
    const dir = tempDir();
    const result = await cli(['run'], daemonEnv(dir, { ROUNDTABLE_TLS_CERT: '/tmp/cert.pem' }));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('ROUNDTABLE_TLS_KEY');
  });
});

describe('plain HTTP beyond loopback', () => {
  const WARNING = 'listening beyond loopback without TLS: tokens cross the network in clear';

  async function startupLog(host: string): Promise<string[]> {
    const board = await startBoard({ env: { ROUNDTABLE_HOST: host } });
    try {
      await eventually('the "board started" log line', () => board.output().stderr.includes('"msg":"board started"'));
      return board.output().stderr.split('\n');
    } finally {
      await board.stop();
    }
  }

  it('a board on 0.0.0.0 without TLS logs one warning naming the address and the fix; on loopback it does not', async () => {
    // 0.0.0.0 on a random port for a moment: the only way to see the warning of a real start. Nothing is sent.
    const exposed = (await startupLog('0.0.0.0')).filter((line) => line.includes(WARNING));
    expect(exposed).toHaveLength(1);
    expect(JSON.parse(exposed[0]!)).toMatchObject({
      level: 40,
      address: '0.0.0.0',
      fix: expect.stringMatching(/ROUNDTABLE_TLS_CERT and ROUNDTABLE_TLS_KEY.*TLS reverse proxy of docs\/DEPLOY\.md/),
    });
    expect((await startupLog('127.0.0.1')).filter((line) => line.includes(WARNING))).toEqual([]);
  });
});

describe('--env FILE', () => {
  it('reads settings from a KEY=value file first, and names a missing file', async () => {
    const dir = tempDir();
    const envFile = join(dir, 'roundtable.env');
    writeFileSync(envFile, `# the service's settings\nROUNDTABLE_AGENTS_CONFIG=${join(dir, 'from-env-file.json')}\n`);
    const init = await cli(['init', '--json', '--env', envFile], { PATH: process.env['PATH'] ?? '/usr/bin:/bin' });
    expect(init.code, init.stderr).toBe(0);
    expect(statSync(join(dir, 'from-env-file.json')).mode & 0o777).toBe(0o600);
    const missing = await cli(['agents', 'list', '--env', join(dir, 'nope.env')], { PATH: process.env['PATH'] ?? '/usr/bin:/bin' });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('nope.env: no such file');
  });
});

describe('roundtable init', () => {
  it('writes hashes only, mode 600, prints each token once, and refuses to overwrite', async () => {
    const dir = tempDir();
    const env = daemonEnv(dir);
    const first = await cli(['init', '--json'], env);
    expect(first.code).toBe(0);
    const issued = JSON.parse(first.stdout) as { agents: Array<{ name: string; role: string; skills: string[]; token: string }> };
    expect(issued.agents.map((a) => a.role)).toEqual(['owner', 'leader', 'worker', 'worker']);
    for (const a of issued.agents) expect(a.token).toMatch(/^rt_[A-Za-z0-9_-]{43}$/);
    const path = join(dir, 'agents.json');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const file = readFileSync(path, 'utf8');
    for (const a of issued.agents) expect(file).not.toContain(a.token);
    // The catalog's spelling: the project default with its agents, and the owner as a person granted it (issue 33).
    const catalog = JSON.parse(file);
    expect(catalog.projects.map((p: { slug: string; agents: Array<{ name: string }> }) => [p.slug, p.agents.map((a) => a.name)])).toEqual([['default', ['leader', 'worker-1', 'worker-2']]]);
    expect(catalog.people).toEqual([{ name: 'owner', token_sha256: expect.stringMatching(/^[0-9a-f]{64}$/), grants: { default: 'owner' } }]);
    const second = await cli(['init'], env);
    expect(second.code).not.toBe(0);
    expect(second.stderr).toContain('refusing to overwrite');
    expect(readFileSync(path, 'utf8')).toBe(file);
    // The printed tokens work.
    const board = await startBoard({ dir, tokens: Object.fromEntries(issued.agents.map((a) => [a.name, a.token])) });
    try {
      expect((await api(board, 'leader', 'whoami')).body.role).toBe('leader');
      expect((await api(board, 'owner', 'whoami')).body.role).toBe('owner');
      expect(board.output().stderr).not.toContain(issued.agents[0]!.token);
    } finally {
      await board.stop();
    }
  });

  it("prints the owner's token first, with the page's address, then the agents' (issue 31, item 3)", async () => {
    // Free ports: init may check that the port is free before it writes anything (issue 31, item 2).
    const [port, port2] = [await freePort(), await freePort()];
    const out = await cli(['init'], daemonEnv(tempDir(), { ROUNDTABLE_PORT: String(port) }));
    expect(out.code, out.stderr).toBe(0);
    const rows = [...out.stdout.matchAll(/^ {2}(\S+)\s+(owner|leader|worker)\s+(rt_[A-Za-z0-9_-]{43})$/gm)].map((m) => `${m[1]} ${m[2]}`);
    expect(rows).toEqual(['owner owner', 'leader leader', 'worker-1 worker', 'worker-2 worker']);
    const lines = out.stdout.split('\n');
    const ownerRow = lines.findIndex((line) => /^ {2}owner\s+owner\s+rt_/.test(line));
    // The page's address is said right above the owner's token, and before any other token.
    expect(lines[ownerRow - 1]).toBe(`Yours, to act on the board's page: sign in at http://127.0.0.1:${port}/ with`);
    expect(out.stdout.indexOf(`http://127.0.0.1:${port}/`)).toBeLessThan(out.stdout.indexOf('rt_'));
    expect(out.stdout).toContain('For the agents (give each its own');
    // --json names the page too; with port 0 the address is known only once the board listens.
    const json = await cli(['init', '--json'], daemonEnv(tempDir(), { ROUNDTABLE_PORT: String(port2), ROUNDTABLE_HOST: '::1' }));
    expect(JSON.parse(json.stdout)).toMatchObject({ page: `http://[::1]:${port2}/`, agents: [{ name: 'owner', role: 'owner' }, { role: 'leader' }, { role: 'worker' }, { role: 'worker' }] });
    const unknownPort = await cli(['init'], daemonEnv(tempDir()));
    expect(unknownPort.stdout).toContain('sign in at the web page address printed when the board starts with');
  });
});

describe('durability and schema', () => {
  it('a restart, even after SIGKILL, keeps every acknowledged write', async () => {
    const first = await startBoard();
    const ids: number[] = [];
    for (let i = 0; i < 20; i++) ids.push((await api(first, 'lead', 'create_task', { title: `durable ${i}` })).body.task.id);
    await api(first, 'w1', 'claim_task', { task_id: ids[0] });
    await api(first, 'w1', 'post_message', { task_id: ids[0], kind: 'progress', text: 'kept' });
    await first.stop('SIGKILL');
    const second = await startBoard({ dir: first.dir, tokens: first.tokens });
    try {
      const listed = (await api(second, 'w2', 'list_tasks', { limit: 100 })).body.tasks.map((t: { id: number }) => t.id);
      expect(listed).toEqual(ids);
      const detail = (await api(second, 'w2', 'get_task', { task_id: ids[0] })).body;
      expect(detail.task).toMatchObject({ status: 'claimed', assignee: 'w1' });
      expect(detail.messages.map((m: { text: string }) => m.text)).toEqual(['kept']);
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });

  it('SIGTERM shuts down cleanly with exit code 0', async () => {
    const board = await startBoard();
    expect(await board.stop('SIGTERM')).toBe(0);
  });

  it('SIGTERM answers a parked wait and exits without waiting for the client to hang up', async () => {
    const board = await startBoard();
    // A raw keep-alive client that parks a wait and then neither reads on nor hangs up (as fetch does for 4 s
    // after giving up on a request): the daemon used to hold its exit for the server's keep-alive timeout.
    const socket = connect(board.port, '127.0.0.1');
    onTestFinished(() => void socket.destroy());
    const body = JSON.stringify({ timeout_s: 40 });
    socket.write(
      `POST /api/v1/tools/wait_for_activity HTTP/1.1\r\nHost: 127.0.0.1:${board.port}\r\nAuthorization: Bearer ${board.tokens['w1']}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: keep-alive\r\n\r\n${body}`,
    );
    await eventually('the wait to park', async () => (await api(board, 'lead', 'members')).body.members.find((m: { name: string }) => m.name === 'w1').waiting);
    const started = Date.now();
    expect(await board.stop('SIGTERM')).toBe(0);
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('a database newer than the code is refused', async () => {
    const board = await startBoard();
    await board.stop();
    const db = new Database(board.dbPath);
    db.prepare('INSERT INTO schema_version (version, applied_at) VALUES (999, ?)').run(new Date().toISOString());
    db.close();
    const result = await cli(['run'], daemonEnv(board.dir));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/schema version 999, newer than this roundtable/);
  });
});
