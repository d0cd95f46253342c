// Agent admin without restarts: add, rotate and remove take effect on a running board; bad edits are ignored.
import { readAgentsFile } from '../helpers/agents-file.js';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, daemonEnv, mcpClient, startBoard, type TestBoard, runCli } from '../helpers/board.js';
import { eventually } from '../helpers/eventually.js';

let board: TestBoard;
let env: Record<string, string>;
const issued: string[] = [];

const cli = (args: string[]) => runCli(args, env, 20_000);

async function statusWith(token: string): Promise<number> {
  const response = await fetch(`${board.url}/api/v1/tools/whoami`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: '{}' });
  return response.status;
}

beforeAll(async () => {
  board = await startBoard();
  env = daemonEnv(board.dir);
});
afterAll(async () => {
  await board.stop();
  const output = board.output();
  for (const token of issued) expect(output.stderr + output.stdout).not.toContain(token);
});

describe('roundtable agents', () => {
  it('add: the new token works on the running board within seconds, and the file keeps hashes only, mode 600', async () => {
    const added = await cli(['agents', 'add', 'gemini', '--role', 'worker', '--skills', 'python, docs', '--json']);
    expect(added.code, added.stderr).toBe(0);
    const { name, token } = JSON.parse(added.stdout) as { name: string; token: string };
    issued.push(token);
    expect(name).toBe('gemini');
    const path = join(board.dir, 'agents.json');
    expect(readFileSync(path, 'utf8')).not.toContain(token);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    await eventually('the new token to work', async () => (await statusWith(token)) === 200);
    const me = (await api(board, token, 'whoami')).body;
    expect(me).toMatchObject({ name: 'gemini', role: 'worker', skills: ['python', 'docs'] });
    const list = await cli(['agents', 'list']);
    expect(list.stdout).toMatch(/gemini\s+worker\s+python,docs/);
    expect(list.stdout).not.toMatch(/[0-9a-f]{64}/);
  });

  it('rotate: the old token is refused from the next request on, the new one works, open connections are kept', async () => {
    const client = await mcpClient(board, 'w2');
    const rotated = await cli(['agents', 'rotate', 'w2', '--json']);
    const { token } = JSON.parse(rotated.stdout) as { token: string };
    issued.push(token);
    await eventually('the new token to work', async () => (await statusWith(token)) === 200);
    expect(await statusWith(board.tokens['w2']!)).toBe(401);
    // Other agents were not disturbed by the reload.
    expect((await api(board, 'w1', 'whoami')).status).toBe(200);
    await client.close();
  });

  it('set --toolsets narrows what the agent lists; an unknown toolset is refused; an empty one lifts the narrowing', async () => {
    const path = join(board.dir, 'agents.json');
    const narrowed = await cli(['agents', 'set', 'lead', '--toolsets', 'tasks']);
    expect(narrowed.code, narrowed.stderr).toBe(0);
    expect(narrowed.stdout).toContain('toolsets (all) -> tasks');
    await eventually('the board to apply the toolsets', async () => {
      const me = await api(board, 'lead', 'whoami');
      return me.status === 200 && JSON.stringify(me.body.toolsets) === '["tasks"]';
    });
    const client = await mcpClient(board, 'lead');
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('create_task');
      expect(names).not.toContain('post');
    } finally {
      await client.close();
    }
    const before = readFileSync(path, 'utf8');
    const unknown = await cli(['agents', 'set', 'lead', '--toolsets', 'tasks,frob']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('toolsets.1: each toolset must be one of tasks, room, presence, reservations');
    expect(readFileSync(path, 'utf8')).toBe(before);
    const lifted = await cli(['agents', 'set', 'lead', '--toolsets', '']);
    expect(lifted.stdout).toContain('toolsets tasks -> (all)');
    expect(readAgentsFile(path).agents.find((a) => a.name === 'lead')).not.toHaveProperty('toolsets');
  });

  it('remove: the token is refused, its claimed tasks go back to the pool; rules are checked before anything is written', async () => {
    const held = (await api(board, 'lead', 'create_task', { title: 'held by w3' })).body.task.id as number;
    expect((await api(board, 'w3', 'claim_task', { task_id: held })).status).toBe(200);
    const removed = await cli(['agents', 'remove', 'w3']);
    expect(removed.code).toBe(0);
    await eventually("w3's token to be refused", async () => (await statusWith(board.tokens['w3']!)) === 401);
    await eventually("w3's task to be open again", async () => (await api(board, 'lead', 'get_task', { task_id: held })).body.task.status === 'open');
    const last = (await api(board, 'lead', 'get_task', { task_id: held })).body.history[0];
    expect(last).toMatchObject({ action: 'released', agent: 'roundtable', from_status: 'claimed', to_status: 'open', note: 'w3 was removed from agents.json' });

    const before = readFileSync(join(board.dir, 'agents.json'), 'utf8');
    const noLeader = await cli(['agents', 'remove', 'lead']);
    expect(noLeader.code).toBe(1);
    expect(noLeader.stderr).toContain('exactly one leader');
    const twoLeaders = await cli(['agents', 'add', 'boss2', '--role', 'leader']);
    expect(twoLeaders.stderr).toContain('exactly one leader, found 2');
    const duplicate = await cli(['agents', 'add', 'w1']);
    expect(duplicate.stderr).toContain('already exists');
    const badName = await cli(['agents', 'add', 'bad name']);
    expect(badName.code).toBe(1);
    const unknown = await cli(['agents', 'rotate', 'nobody']);
    expect(unknown.stderr).toContain('no agent is called "nobody"');
    expect(readFileSync(join(board.dir, 'agents.json'), 'utf8')).toBe(before);
  });

  it("set: changes an agent's skills and role on the running board, keeps its token, prints what changed and no token", async () => {
    const path = join(board.dir, 'agents.json');
    const hashBefore = readAgentsFile(path).agents.find((a) => a.name === 'w1')!.token_sha256;
    const skills = await cli(['agents', 'set', 'w1', '--skills', 'go, rust,go']);
    expect(skills.code, skills.stderr).toBe(0);
    expect(skills.stdout).toBe('Changed w1: skills python,sql -> go,rust. A running board applies it within seconds; the token is unchanged.\n');
    await eventually('the board to apply the new skills', async () => ((await api(board, 'w1', 'whoami')).body.skills as string[]).join() === 'go,rust');

    // w1 holds a task when it becomes an observer, which can neither submit nor release it: it goes back to the pool.
    const held = (await api(board, 'lead', 'create_task', { title: 'held by w1' })).body.task.id as number;
    expect((await api(board, 'w1', 'claim_task', { task_id: held })).status).toBe(200);
    const role = await cli(['agents', 'set', 'w1', '--role', 'observer', '--skills', '']);
    expect(role.stdout).toBe('Changed w1: role worker -> observer; skills go,rust -> (none). A running board applies it within seconds; the token is unchanged.\n');
    await eventually('the board to apply the new role', async () => (await api(board, 'w1', 'whoami')).body.role === 'observer');
    await eventually("w1's task to be open again", async () => (await api(board, 'lead', 'get_task', { task_id: held })).body.task.status === 'open');
    expect((await api(board, 'lead', 'get_task', { task_id: held })).body.history[0]).toMatchObject({
      action: 'released',
      agent: 'roundtable',
      note: 'w1 became an observer, who does not claim tasks',
    });
    expect((await api(board, 'w1', 'whoami')).body.skills).toEqual([]);
    const same = await cli(['agents', 'set', 'w1', '--role', 'observer']);
    expect(same.stdout).toBe('w1 already has that role, those skills and those toolsets; nothing written.\n');

    expect(readAgentsFile(path).agents.find((a) => a.name === 'w1')!.token_sha256).toBe(hashBefore);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    for (const run of [skills, role, same]) expect(run.stdout + run.stderr).not.toMatch(/rt_|[0-9a-f]{64}/);
    await cli(['agents', 'set', 'w1', '--role', 'worker', '--skills', 'python,sql']);
  });

  it('set: every rule is checked on the result first; a refused change writes nothing', async () => {
    const path = join(board.dir, 'agents.json');
    const before = readFileSync(path, 'utf8');
    const secondLeader = await cli(['agents', 'set', 'w1', '--role', 'leader']);
    expect(secondLeader.code).toBe(1);
    expect(secondLeader.stderr).toContain('exactly one leader, found 2 (lead, w1)');
    const noLeader = await cli(['agents', 'set', 'lead', '--role', 'worker']);
    expect(noLeader.stderr).toContain('exactly one leader, found 0');
    const peer = await cli(['agents', 'set', 'w1', '--role', 'peer']);
    expect(peer.stderr).toContain('"peer" needs "mode": "peer"');
    const longSkill = await cli(['agents', 'set', 'w1', '--skills', 'x'.repeat(101)]);
    expect(longSkill.stderr).toMatch(/\("w1"\) skills\.0: .*100 characters/);
    const nobody = await cli(['agents', 'set', 'nobody', '--skills', 'go']);
    expect(nobody.stderr).toContain('no agent is called "nobody"');
    for (const run of [secondLeader, noLeader, peer, longSkill, nobody]) expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(readFileSync(path, 'utf8')).toBe(before);
  });

  it('a hand edit that breaks the file is ignored with a logged error; the last good agents stay in force', async () => {
    const path = join(board.dir, 'agents.json');
    const good = readFileSync(path, 'utf8');
    writeFileSync(path, '{"agents": [ broken');
    await eventually('the broken file to be logged', () => board.output().stderr.includes('agents file is invalid; keeping the agents in force'));
    expect((await api(board, 'w1', 'whoami')).status).toBe(200);
    writeFileSync(path, good);
  });

  it('a hand edit is picked up by itself, and SIGHUP reloads too', async () => {
    const path = join(board.dir, 'agents.json');
    const { file, agents } = readAgentsFile(path);
    agents.find((a) => a.name === 'w1')!.skills = ['python', 'sql', 'rust'];
    writeFileSync(path, JSON.stringify(file));
    await eventually('the hand edit to apply', async () => ((await api(board, 'w1', 'whoami')).body.skills as string[]).includes('rust'));
    agents.find((a) => a.name === 'w1')!.skills = ['go'];
    writeFileSync(path, JSON.stringify(file));
    board.process.kill('SIGHUP');
    await eventually('the SIGHUP reload to apply', async () => ((await api(board, 'w1', 'whoami')).body.skills as string[]).join() === 'go');
    // The signal arrived before the watcher's debounce, so the reload that applied it was the SIGHUP one.
    expect(board.output().stderr).toMatch(/"reason":"SIGHUP".*"msg":"agents reloaded"|"msg":"agents reloaded".*"reason":"SIGHUP"/);
  });
});
