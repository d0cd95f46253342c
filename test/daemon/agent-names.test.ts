// Agent names at the command line (issue 31 item 9): names equal but for case are refused in agents.json, by
// `agents add` and in the agents table (an index that a board already holding such a pair still migrates past), and
// every message that quotes what was typed shows it escaped: no escape sequence reaches the terminal.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, daemonEnv, runCli, startBoard, token, writeAgentsFile, type AgentSpec, type CliRun, type TestBoard } from '../helpers/board.js';
import { eventually } from '../helpers/eventually.js';
import { connectTo, PG_SKIP_REASON } from '../helpers/postgres.js';
import { describeEachStore } from '../helpers/stores.js';

const AGENTS: AgentSpec[] = [
  { name: 'lead', role: 'leader' },
  { name: 'Alice', role: 'worker' },
];
const HOSTILE = 'a\x1b]0;PWNED\x07b';
/** What reaches a terminal must hold no C0 or C1 control but the line break, and no bidi override. */
const RAW_CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

function expectEscaped(run: CliRun, shown: string): void {
  expect(run.code, run.stderr).not.toBe(0);
  expect(run.stdout + run.stderr).not.toMatch(RAW_CONTROLS);
  expect(run.stderr).toContain(shown);
}

describeEachStore((store) => {
  let board: TestBoard;
  let env: Record<string, string>;
  const cli = (args: string[]) => runCli(args, env, 30_000);
  /** The directory as stored: the file's text, or the table's rows. */
  async function stored(): Promise<string> {
    if (!board.databaseUrl) return readFileSync(join(board.dir, 'agents.json'), 'utf8');
    const sql = connectTo(board.databaseUrl);
    try {
      return JSON.stringify(await sql`SELECT name, role, skills, token_sha256 FROM agents ORDER BY name`);
    } finally {
      await sql.end();
    }
  }

  beforeAll(async () => {
    board = await startBoard({ store, agents: AGENTS });
    env = daemonEnv(board.dir, { ...(board.databaseUrl && { ROUNDTABLE_DATABASE_URL: board.databaseUrl }) });
  });
  afterAll(async () => {
    await board?.stop();
  });

  it('agents add refuses a name equal but for case to an agent, naming both and what to do; nothing is written', async () => {
    const before = await stored();
    const refused = await cli(['agents', 'add', 'alice']);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toMatch(
      /^roundtable: .*: "alice" is equal but for case to the agent "Alice"; agent names must differ in more than case\. Choose another name \(or `roundtable agents rotate Alice` for a new token of that one\)$/,
    );
    expect(await stored()).toBe(before);
    const added = await cli(['agents', 'add', 'alice-2']);
    expect(added.code, added.stderr).toBe(0);
  });

  it('a refused name is shown escaped: no escape sequence reaches the terminal', async () => {
    const before = await stored();
    expectEscaped(await cli(['agents', 'add', HOSTILE]), '"a\\x1b]0;PWNED\\x07b"');
    expectEscaped(await cli(['agents', 'set', `x\u202egnp.exe`, '--role', 'worker']), '"x\\u202egnp.exe"');
    expectEscaped(await cli(['agents', 'remove', `\u009b2J${HOSTILE}`]), '"\\x9b2Ja\\x1b]0;PWNED\\x07b"');
    expectEscaped(await cli(['agents', 'rotate', 'Alice', 'b\x1b[2J']), '"b\\x1b[2J"');
    expectEscaped(await cli([`\x1b[2J`]), 'unknown command "\\x1b[2J"');
    expectEscaped(await cli(['agents', 'add', 'ok-name', '--role', `x\x1b]0;T\x07`]), '(got "x\\x1b]0;T\\x07")');
    expectEscaped(await cli(['webhooks', 'remove', HOSTILE]), '"a\\x1b]0;PWNED\\x07b"');
    expect(await stored()).toBe(before);
    expect((await api(board, 'lead', 'whoami')).status).toBe(200);
  });
});

describe('agents.json with two names equal but for case', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'roundtable-case-'));
    const agents: AgentSpec[] = [...AGENTS, { name: 'alice', role: 'worker' }];
    writeAgentsFile(join(dir, 'agents.json'), agents, Object.fromEntries(agents.map((a) => [a.name, token()])));
  });

  it('stops the daemon at start, naming the pair and the fix', async () => {
    const started = await startBoard({ dir, tokens: {} }).then(
      (b) => b.stop().then(() => 'started'),
      (error: Error) => error.message,
    );
    expect(started).toContain(`agents[2] ("alice") name: equal but for case to "Alice"; agent names must differ in more than case. Rename or remove one of the two (edit ${join(dir, 'agents.json')})`);
  });

  it('doctor fails the agents line the same way', async () => {
    const doctor = await runCli(['doctor'], daemonEnv(dir));
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain('equal but for case to "Alice"');
  });

  it('a hand edit that adds such a name to a running board is ignored; the agents in force stay', async () => {
    const fresh = await startBoard({ agents: AGENTS });
    try {
      const path = join(fresh.dir, 'agents.json');
      const tokens = { ...fresh.tokens, ALICE: token() };
      writeAgentsFile(path, [...AGENTS, { name: 'ALICE', role: 'worker' }], tokens);
      fresh.process.kill('SIGHUP');
      await eventually('the refusal is logged', () => /agents file is invalid/.test(fresh.output().stderr) && /equal but for case/.test(fresh.output().stderr));
      expect((await api(fresh, tokens.ALICE, 'whoami')).status).toBe(401);
    } finally {
      await fresh.stop();
    }
  });
});

// PostgreSQL only: the index and its migration are the agents table's; agents.json's side is the block above.
describe.skipIf(PG_SKIP_REASON)(`an agents table that already holds such a pair${PG_SKIP_REASON ? ` (skipped: ${PG_SKIP_REASON})` : ''}`, () => {
  let board: TestBoard;
  let env: Record<string, string>;
  const indexPresent = async (url: string) => {
    const sql = connectTo(url);
    try {
      const [row] = await sql`SELECT to_regclass('agents_project_name_folded') IS NOT NULL AS present`;
      return row?.['present'] as boolean;
    } finally {
      await sql.end();
    }
  };

  beforeAll(async () => {
    board = await startBoard({ store: 'postgres', agents: AGENTS });
    env = daemonEnv(board.dir, { ROUNDTABLE_DATABASE_URL: board.databaseUrl! });
    expect(await indexPresent(board.databaseUrl!)).toBe(true);
    // A table holding a pair the code before migration 011 let in: migrations 011 and 012 leave the index out then (012
    // names it per project); here the pair is put back beside a migrated board, without the index.
    const sql = connectTo(board.databaseUrl!);
    try {
      await sql`DROP INDEX agents_project_name_folded`;
      await sql`INSERT INTO agents (name, project, position, role, skills, token_sha256) VALUES ('alice', 'default', 9, 'worker', '[]', ${'0'.repeat(64)})`;
    } finally {
      await sql.end();
    }
  });
  afterAll(async () => {
    await board?.stop();
  });

  it('a daemon refuses to start and doctor names the pair; removing one makes the index', async () => {
    const listed = await runCli(['agents', 'list'], env);
    expect(listed.code).toBe(1);
    expect(listed.stderr).toContain('the agents table: projects[0] ("default") agents[2] ("alice") name: equal but for case to "Alice"');
    expect(listed.stderr).toContain('`roundtable agents remove alice`, then add it again under another name');
    const sql = connectTo(board.databaseUrl!);
    try {
      expect((await sql`SELECT MAX(version)::int AS v FROM schema_version`)[0]?.['v']).toBeGreaterThanOrEqual(11);
    } finally {
      await sql.end();
    }
    expect(await indexPresent(board.databaseUrl!)).toBe(false);

    const second = await startBoard({ store: 'postgres', databaseUrl: board.databaseUrl, agents: AGENTS }).then(
      (b) => b.stop().then(() => 'started'),
      (error: Error) => error.message,
    );
    expect(second).toContain('equal but for case to "Alice"');
    const doctor = await runCli(['doctor'], env);
    expect(doctor.stdout).toContain('equal but for case to "Alice"');
    expect(doctor.stdout).not.toContain('connection failed');

    const removed = await runCli(['agents', 'remove', 'alice'], env);
    expect(removed.code, removed.stderr).toBe(0);
    expect(await indexPresent(board.databaseUrl!)).toBe(true);
    const direct = connectTo(board.databaseUrl!);
    try {
      await expect(direct`INSERT INTO agents (name, project, position, role, skills, token_sha256) VALUES ('ALICE', 'default', 9, 'worker', '[]', ${'1'.repeat(64)})`).rejects.toThrow(/agents_project_name_folded/);
    } finally {
      await direct.end();
    }
  });
});
