// Agents in PostgreSQL: `roundtable agents ...` edit the agents table, and every daemon on the board applies the change
// within a second (NOTIFY). Import moves agents.json in once. Real daemons, a real database (a fresh one per board).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, daemonEnv, runCli, startBoard, token, writeAgentsFile, type AgentSpec, type TestBoard } from '../helpers/board.js';
import { eventually, within } from '../helpers/eventually.js';
import { connectTo, createTestDatabase, PG_SKIP_REASON } from '../helpers/postgres.js';

const AGENTS: AgentSpec[] = [
  { name: 'lead', role: 'leader' },
  { name: 'w1', role: 'worker' },
  { name: 'w2', role: 'worker' },
  { name: 'w3', role: 'worker' },
];

async function statusWith(board: TestBoard, bearer: string): Promise<number> {
  const response = await fetch(`${board.url}/api/v1/tools/whoami`, { method: 'POST', headers: { authorization: `Bearer ${bearer}` }, body: '{}' });
  return response.status;
}

/** Waits until `bearer` gets `status` on every daemon; returns each daemon's time from `since`, in ms. */
async function inForceEverywhere(boards: TestBoard[], bearer: string, status: number, since: number, what: string): Promise<number[]> {
  return Promise.all(
    boards.map(async (board, i) => {
      await eventually(`${what} on daemon ${i}`, async () => (await statusWith(board, bearer)) === status, { intervalMs: 20 });
      return performance.now() - since;
    }),
  );
}

/** The rows of the catalog's tables, to show that a refused command wrote nothing. */
async function tableRows(url: string): Promise<string> {
  const sql = connectTo(url);
  try {
    return JSON.stringify([await sql`SELECT * FROM agents ORDER BY project, name`, await sql`SELECT * FROM projects ORDER BY slug`, await sql`SELECT * FROM people ORDER BY name`, await sql`SELECT * FROM grants ORDER BY person, project`]);
  } finally {
    await sql.end();
  }
}

describe.skipIf(PG_SKIP_REASON)(`agents in PostgreSQL${PG_SKIP_REASON ? ` (skipped: ${PG_SKIP_REASON})` : ''}`, () => {
  let boards: TestBoard[];
  let databaseUrl: string;
  let env: Record<string, string>;
  const issued: string[] = [];
  const cli = (args: string[]) => runCli(args, env, 30_000);
  /** The tokens are the first daemon's: its agents.json is the one in the table. */
  const tokenOf = (name: string) => boards[0]!.tokens[name]!;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase('agents');
    const first = await startBoard({ agents: AGENTS, databaseUrl });
    // The others have no agents.json of their own worth reading: the table is filled already.
    const others = await Promise.all([0, 1].map(() => startBoard({ agents: [{ name: 'stranger', role: 'leader' }], databaseUrl })));
    boards = [first, ...others];
    env = daemonEnv(first.dir, { ROUNDTABLE_DATABASE_URL: databaseUrl });
  });
  afterAll(async () => {
    await Promise.all(boards.map((b) => b.stop()));
    for (const board of boards) for (const secret of issued) expect(board.output().stderr + board.output().stdout).not.toContain(secret);
  });

  it('the first daemon moved its agents.json into the empty table; the others use the table, not their own file', async () => {
    expect(boards[0]!.output().stderr).toContain('imported agents.json');
    for (const board of boards) {
      expect(await statusWith(board, boards[0]!.tokens['w1']!)).toBe(200);
      expect(await statusWith(board, boards[1]!.tokens['stranger']!)).toBe(401);
    }
  });

  it('add: the new token works on all three daemons within a second; the table holds its hash only', async () => {
    const added = await cli(['agents', 'add', 'gemini', '--role', 'worker', '--skills', 'python', '--json']);
    const since = performance.now();
    expect(added.code, added.stderr).toBe(0);
    const { token: fresh } = JSON.parse(added.stdout) as { token: string };
    issued.push(fresh);
    const times = await inForceEverywhere(boards, fresh, 200, since, 'the new token to work');
    // The issue's target is one second; a loaded 2-core machine may be slower without the mechanism being at fault.
    console.info(`agents add in force on the three daemons after ${times.map((t) => Math.round(t)).join(', ')} ms`);
    for (const t of times) expect(t).toBeLessThan(5_000);
    expect(await tableRows(databaseUrl)).not.toContain(fresh);
    expect((await api(boards[2]!, fresh, 'whoami')).body).toMatchObject({ name: 'gemini', role: 'worker', skills: ['python'] });
    const list = await cli(['agents', 'list']);
    expect(list.stdout).toMatch(/gemini\s+worker\s+python/);
  });

  it('rotate: the old token is refused on every daemon and a wait parked on another one ends with 401', async () => {
    const parked = api(boards[2]!, boards[0]!.tokens['w2']!, 'wait_for_activity', { timeout_s: 40 });
    await eventually('w2 to be parked on daemon 2', async () => (await api(boards[2]!, tokenOf('lead'), 'members')).body.members.find((m: { name: string }) => m.name === 'w2')?.waiting);
    const rotated = await cli(['agents', 'rotate', 'w2', '--json']);
    const since = performance.now();
    expect(rotated.code, rotated.stderr).toBe(0);
    const { token: fresh } = JSON.parse(rotated.stdout) as { token: string };
    issued.push(fresh);
    const answer = await within('the parked wait to end', parked, 10_000);
    expect(answer.status).toBe(401);
    expect(answer.body.error!.message).toMatch(/your token was removed or rotated/);
    await inForceEverywhere(boards, boards[0]!.tokens['w2']!, 401, since, 'the old token to be refused');
    const times = await inForceEverywhere(boards, fresh, 200, since, 'the rotated token to work');
    console.info(`agents rotate in force on the three daemons after ${times.map((t) => Math.round(t)).join(', ')} ms`);
  });

  it("remove: the token is refused on every daemon and the agent's claim goes back to the pool", async () => {
    const id = (await api(boards[0]!, tokenOf('lead'), 'create_task', { title: 'held by w3' })).body.task.id as number;
    expect((await api(boards[1]!, tokenOf('w3'), 'claim_task', { task_id: id })).status).toBe(200);
    const removed = await cli(['agents', 'remove', 'w3']);
    const since = performance.now();
    expect(removed.code, removed.stderr).toBe(0);
    await inForceEverywhere(boards, boards[0]!.tokens['w3']!, 401, since, "w3's token to be refused");
    await eventually("w3's task to be open again", async () => (await api(boards[2]!, tokenOf('lead'), 'get_task', { task_id: id })).body.task.status === 'open');
    const history = (await api(boards[0]!, tokenOf('lead'), 'get_task', { task_id: id })).body.history as Array<{ action: string }>;
    // Every daemon hears of the removal; the task is released once.
    expect(history.filter((h) => h.action === 'released')).toHaveLength(1);
  });

  it('bad input is refused with a message naming the rule, and nothing is written', async () => {
    const before = await tableRows(databaseUrl);
    const refusals: Array<[string[], RegExp]> = [
      [['agents', 'add', 'gemini'], /the agents table: an agent called "gemini" already exists/],
      [['agents', 'set', 'w1', '--role', 'leader'], /the agents table: .*role: .* needs exactly one leader, found 2/],
      [['agents', 'remove', 'lead'], /exactly one leader, found 0/],
      [['agents', 'rotate', 'nobody'], /the agents table: no agent is called "nobody"/],
      [['agents', 'add', 'all'], /name: is reserved/],
      [['agents', 'set', 'w1', '--toolsets', 'chores'], /toolsets/],
      [['agents', 'import', join(boards[0]!.dir, 'agents.json')], /the agents table already holds \d+ agent\(s\) and \d+ person\(s\); import only fills an empty one/],
    ];
    for (const [args, message] of refusals) {
      const run = await cli(args);
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr, args.join(' ')).toMatch(message);
      expect(run.stdout).toBe('');
    }
    expect(await tableRows(databaseUrl)).toBe(before);
  });
});

describe.skipIf(PG_SKIP_REASON)(`agents import${PG_SKIP_REASON ? ` (skipped: ${PG_SKIP_REASON})` : ''}`, () => {
  it('moves a file into an empty table (tokens as hashes), refuses a second time, and a board starts from it', async () => {
    const databaseUrl = await createTestDatabase('import');
    const seed = await startBoard({ agents: AGENTS }); // for a directory and an agents.json with known tokens
    await seed.stop();
    const file = join(seed.dir, 'agents.json');
    // A plaintext token, as a hand-written file may hold: the table keeps its hash only.
    const plain = token();
    writeAgentsFile(file, [...AGENTS, { name: 'hand', role: 'worker' }], { ...seed.tokens, hand: plain });
    const raw = JSON.parse(readFileSync(file, 'utf8'));
    raw.agents.find((a: { name: string }) => a.name === 'hand').token = plain;
    delete raw.agents.find((a: { name: string }) => a.name === 'hand').token_sha256;
    writeFileSync(file, JSON.stringify(raw));
    const env = daemonEnv(seed.dir, { ROUNDTABLE_DATABASE_URL: databaseUrl, ROUNDTABLE_AGENTS_CONFIG: join(seed.dir, 'missing.json') });

    const sqliteOnly = await runCli(['agents', 'import', file], daemonEnv(seed.dir));
    expect(sqliteOnly.code).toBe(1);
    expect(sqliteOnly.stderr).toMatch(/set ROUNDTABLE_DATABASE_URL/);

    // With neither agents in the table nor an agents.json to move in, the daemon refuses to start and says what to run.
    const refused = await runCli(['run'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/the agents table is empty .*roundtable agents import/);

    expect((await runCli(['doctor'], env)).stdout).toMatch(/fail\s+agents\s+the agents table is empty and there is no/);

    const imported = await runCli(['agents', 'import', file], env);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/Moved 5 agent\(s\) from .* into the agents table/);
    expect(await tableRows(databaseUrl)).not.toContain(plain);

    expect((await runCli(['doctor'], env)).stdout).toMatch(/ok\s+agents\s+5 agents \(1 leader, 4 workers\) in the agents table/);

    const again = await runCli(['agents', 'import', file], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/the agents table already holds 5 agent\(s\) and 0 person\(s\); import only fills an empty one/);

    const board = await startBoard({ dir: seed.dir, tokens: seed.tokens, databaseUrl, env: { ROUNDTABLE_AGENTS_CONFIG: join(seed.dir, 'missing.json') } });
    try {
      expect(await statusWith(board, plain)).toBe(200);
      expect(await statusWith(board, seed.tokens['lead']!)).toBe(200);
    } finally {
      await board.stop();
    }
  });
});
