// `projects export` then `projects import` into another daemon: the project's tasks, history, messages and agents are
// equal there, its tokens work there, its change cursor continues; every refusal writes nothing (issue 33). The
// refusals and the snapshot under writes on SQLite; the moves between SQLite and PostgreSQL at the end.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, daemonEnv, DEFAULT_AGENTS, runCli, startBoard, token, type TestBoard } from '../helpers/board.js';
import { eventually } from '../helpers/eventually.js';
import { PG_SKIP_REASON } from '../helpers/postgres.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Calls a tool on one project's URL (/p/SLUG/api/v1/tools/TOOL). */
async function projectApi(board: TestBoard, slug: string, bearer: string, tool: string, args: unknown = {}): Promise<{ status: number; body: any }> {
  const response = await fetch(`${board.url}/p/${slug}/api/v1/tools/${tool}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify(args),
  });
  return { status: response.status, body: await response.json() };
}

/** Every row of the tables that hold a project's work, in a stable order. */
function boardRows(dbPath: string): Record<string, unknown[]> {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const rows: Record<string, unknown[]> = {};
    for (const table of ['tasks', 'task_skills', 'claims', 'messages', 'reviews', 'activity', 'audit_log', 'room_messages', 'room_receipts', 'agent_cursors', 'event_log', 'event_log_state']) {
      // Some tables have no rowid: every row, in the order of its JSON.
      rows[table] = db.prepare(`SELECT * FROM ${table}`).all().map((row) => JSON.stringify(row, (_key, value: unknown) => (Buffer.isBuffer(value) ? value.toString('hex') : value))).sort();
    }
    return rows;
  } finally {
    db.close();
  }
}

/** What a refusal must leave as it was: the catalog's bytes, and every file under the projects folder. */
function snapshot(dir: string): { catalog: string; files: string[] } {
  const root = join(dir, 'roundtable-projects');
  const files = existsSync(root) ? readdirSync(root, { recursive: true }).map(String).sort() : [];
  return { catalog: readFileSync(join(dir, 'agents.json'), 'utf8'), files };
}

const WEB_AGENTS = [
  { name: 'wlead', role: 'leader', skills: [] as string[] },
  { name: 'wdev', role: 'worker', skills: ['js', 'css'], toolsets: ['tasks', 'room'] },
  // Written with a plaintext token: the export must carry only its hash.
  { name: 'wqa', role: 'worker', skills: [] as string[], plaintext: true },
];

describe('projects export and import (SQLite)', () => {
  let a: TestBoard;
  let b: TestBoard;
  let c: TestBoard | undefined;
  const web: Record<string, string> = Object.fromEntries(WEB_AGENTS.map((agent) => [agent.name, token()]));
  const defaults: Record<string, string> = Object.fromEntries(DEFAULT_AGENTS.map((agent) => [agent.name, token()]));
  const owner = token();
  const work = mkdtempSync(join(tmpdir(), 'roundtable-transfer-'));
  const exportFile = join(work, 'web.rtexport');
  let cursor: string;
  let aWebDb: string;
  /** A's web board as it was exported (nothing is called on A's web after that, until the comparison). */
  let exported: Record<string, unknown[]>;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roundtable-test-'));
    const catalog = {
      projects: [
        { slug: 'default', mode: 'role', agents: DEFAULT_AGENTS.map((x) => ({ name: x.name, role: x.role, skills: x.skills ?? [], token_sha256: sha256(defaults[x.name]!) })) },
        {
          slug: 'web',
          title: 'Web app',
          mode: 'role',
          agents: WEB_AGENTS.map(({ plaintext, ...x }) => ({ ...x, ...(plaintext ? { token: web[x.name]! } : { token_sha256: sha256(web[x.name]!) }) })),
        },
      ],
      people: [{ name: 'olivia', token_sha256: sha256(owner), grants: { web: 'owner' } }],
    };
    writeFileSync(join(dir, 'agents.json'), JSON.stringify(catalog), { mode: 0o600 });
    a = await startBoard({ dir, tokens: { ...defaults, ...web, olivia: owner } });
    aWebDb = join(dir, 'roundtable-projects', 'web', 'board.db');

    // History on web: a task approved after a message, one held under a claim, one open with a message; unprefixed
    // calls serve each agent's own project.
    const done = (await api(a, 'wlead', 'create_task', { title: 'ship the header', required_skills: ['js'] })).body.task.id as number;
    const held = (await api(a, 'wlead', 'create_task', { title: 'test the footer' })).body.task.id as number;
    const open = (await api(a, 'wlead', 'create_task', { title: 'later' })).body.task.id as number;
    const claim = (await api(a, 'wdev', 'claim_task', { task_id: done })).body.task;
    expect((await api(a, 'wdev', 'post_message', { task_id: done, kind: 'progress', text: 'halfway', claim_id: claim.claim_id })).status).toBe(200);
    expect((await api(a, 'wdev', 'submit_result', { task_id: done, result: 'header shipped' })).status).toBe(200);
    expect((await api(a, 'wlead', 'review_task', { task_id: done, verdict: 'approve' })).status).toBe(200);
    expect((await api(a, 'wqa', 'claim_task', { task_id: held })).status).toBe(200);
    expect((await api(a, 'wlead', 'post_message', { task_id: open, kind: 'note', text: 'no rush' })).status).toBe(200);
    expect((await api(a, 'wlead', 'post', { to: 'all', text: 'hello web' })).status).toBe(200);
    cursor = (await api(a, 'wdev', 'wait_for_activity', { timeout_s: 0 })).body.cursor as string;
    expect(cursor).toBeTruthy();

    b = await startBoard({ tokens: defaults });
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop(), c?.stop()]);
  });

  it('export: a running daemon\'s project to a mode-600 file holding token hashes only, no people, no plaintext token', async () => {
    const run = await runCli(['projects', 'export', 'web', exportFile], daemonEnv(a.dir));
    expect(run.code, run.stderr).toBe(0);
    exported = boardRows(aWebDb);
    expect(run.stdout).toMatch(/^Exported project web to .*web\.rtexport \(\d+ bytes, mode 600\): 3 task\(s\) with their history, 3 agent\(s\)/);
    expect(statSync(exportFile).mode & 0o777).toBe(0o600);
    expect(readdirSync(work)).toEqual(['web.rtexport']);
    const bytes = readFileSync(exportFile);
    for (const value of [...Object.values(web), owner]) expect(bytes.includes(value)).toBe(false);
    for (const value of [...Object.values(web), owner]) expect(run.stdout + run.stderr).not.toContain(value);
    const db = new Database(exportFile, { readonly: true });
    try {
      const row = db.prepare('SELECT format, project FROM roundtable_export').get() as { format: number; project: string };
      expect(row.format).toBe(1);
      const entry = JSON.parse(row.project) as { slug: string; title: string; agents: Array<{ name: string; token_sha256: string; token?: string }> };
      expect(entry.slug).toBe('web');
      expect(entry.title).toBe('Web app');
      expect(entry.agents.map((x) => [x.name, x.token_sha256, x.token])).toEqual(WEB_AGENTS.map((x) => [x.name, sha256(web[x.name]!), undefined]));
      expect(row.project).not.toContain('olivia');
      expect(db.pragma('journal_mode', { simple: true })).toBe('delete');
    } finally {
      db.close();
    }
  });

  it('import into another daemon: tasks, history, messages and agents equal; the tokens work on /p/web; the cursor continues', async () => {
    const run = await runCli(['projects', 'import', exportFile], daemonEnv(b.dir));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Imported project web: 3 task(s) with their history, 3 agent(s) whose tokens work here.');
    expect(run.stdout).toContain('roundtable people grant NAME web');

    // Compared before any call on B: a call by the claim's holder renews its lease, which is a change.
    const bWebDb = join(b.dir, 'roundtable-projects', 'web', 'board.db');
    expect(statSync(bWebDb).mode & 0o777).toBe(0o600);
    expect(boardRows(bWebDb)).toEqual(exported);
    expect(exported['messages']!.length).toBeGreaterThanOrEqual(2);
    expect(exported['reviews']!.length).toBe(1);
    expect(exported['claims']!.length).toBe(2);
    const db = new Database(bWebDb, { readonly: true });
    try {
      expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'roundtable_export'").get()).toBeUndefined();
    } finally {
      db.close();
    }
    // wlead holds no claim, so its calls change nothing the comparison sees.
    await eventually("wlead's token to open /p/web on B", async () => (await projectApi(b, 'web', web['wlead']!, 'whoami')).status === 200);
    for (const id of [1, 2, 3]) {
      const there = await projectApi(a, 'web', web['wlead']!, 'get_task', { task_id: id, history_limit: 100, messages_limit: 100 });
      const here = await projectApi(b, 'web', web['wlead']!, 'get_task', { task_id: id, history_limit: 100, messages_limit: 100 });
      expect(here.status).toBe(200);
      expect(here.body).toEqual(there.body);
    }
    for (const name of Object.keys(web)) {
      const whoami = await projectApi(b, 'web', web[name]!, 'whoami');
      expect([whoami.status, whoami.body.name]).toEqual([200, name]);
      // The agent's token opens its project only; B's own agents keep theirs.
      expect((await projectApi(b, 'default', web[name]!, 'whoami')).status).toBe(403);
    }
    expect((await api(b, 'lead', 'whoami')).body.name).toBe('lead');
    // The person is not carried: grants are per daemon.
    expect((await projectApi(b, 'web', owner, 'whoami')).status).toBe(401);

    // The agents, as the catalog holds them: equal, the plaintext token now its hash; olivia absent.
    const catalogOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'agents.json'), 'utf8')) as { projects: Array<{ slug: string; title?: string; mode: string; agents: any[] }>; people: Array<{ name: string }> };
    const fromA = catalogOf(a.dir).projects.find((p) => p.slug === 'web')!;
    const toB = catalogOf(b.dir).projects.find((p) => p.slug === 'web')!;
    expect(toB).toEqual({ ...fromA, agents: fromA.agents.map(({ token: plain, ...x }) => ({ ...x, token_sha256: x.token_sha256 ?? sha256(plain) })) });
    expect(catalogOf(b.dir).people.map((p) => p.name)).not.toContain('olivia');
    expect(statSync(join(b.dir, 'agents.json')).mode & 0o777).toBe(0o600);

    // A cursor taken on A goes on on B: it is accepted, and names what changed after it.
    const created = (await projectApi(b, 'web', web['wlead']!, 'create_task', { title: 'after the move' })).body.task.id as number;
    expect(created).toBe(4);
    const waited = await projectApi(b, 'web', web['wdev']!, 'wait_for_activity', { timeout_s: 0, since: cursor });
    expect(waited.status, JSON.stringify(waited.body)).toBe(200);
    expect(waited.body.changes).toContain(`task:${created}:created`);
  });

  it('import --as: the project under another slug, its tokens working there', async () => {
    c = await startBoard();
    const run = await runCli(['projects', 'import', exportFile, '--as', 'site'], daemonEnv(c.dir));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Imported project site (exported as web)');
    await eventually("wdev's token to open /p/site on C", async () => (await projectApi(c!, 'site', web['wdev']!, 'whoami')).status === 200);
    expect((await projectApi(c, 'web', web['wdev']!, 'whoami')).status).toBe(403);
    expect((await projectApi(c, 'site', web['wlead']!, 'get_task', { task_id: 1 })).body.task.status).toBe('done');
  });

  it('export under concurrent writes: a sound file holding every write acknowledged before it began', async () => {
    const acknowledged: string[] = [];
    let writing = true;
    const writers = [0, 1].map(async (w) => {
      for (let i = 0; writing; i++) {
        const title = `busy ${w}-${i}`;
        if ((await api(a, 'wlead', 'create_task', { title, description: 'x'.repeat(2000) })).status === 200) acknowledged.push(title);
      }
    });
    await eventually('5 acknowledged writes before the export', () => acknowledged.length >= 5);
    const before = [...acknowledged];
    const file = join(work, 'busy.rtexport');
    const run = await runCli(['projects', 'export', 'web', file], daemonEnv(a.dir));
    const during = acknowledged.length;
    await eventually('writes to go on after the export', () => acknowledged.length >= during + 2);
    writing = false;
    await Promise.all(writers);
    expect(run.code, run.stderr).toBe(0);
    const db = new Database(file, { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const titles = new Set(db.prepare('SELECT title FROM tasks').pluck().all() as string[]);
      for (const title of before) expect(titles.has(title), title).toBe(true);
    } finally {
      db.close();
    }
  });

  describe('refusals write nothing', () => {
    const refused = async (args: string[], message: RegExp) => {
      const before = snapshot(b.dir);
      const run = await runCli(['projects', 'import', ...args], daemonEnv(b.dir));
      expect(run.code, run.stdout).toBe(1);
      expect(run.stderr).toMatch(message);
      expect(snapshot(b.dir)).toEqual(before);
      for (const value of Object.values(web)) expect(run.stderr).not.toContain(value);
    };

    it('a slug that exists', () => refused([exportFile], /a project called "web" already exists on this daemon; import it under another slug with --as SLUG/));

    it('a second copy on the same daemon: its tokens are already held here', () =>
      refused([exportFile, '--as', 'web2'], /the imported agent "wlead" has the token of agent "wlead" of project "web" already on this daemon/));

    it('a file that is not SQLite', async () => {
      const junk = join(work, 'junk.rtexport');
      writeFileSync(junk, 'x'.repeat(4096));
      await refused([junk, '--as', 'junk'], /junk\.rtexport is not a project export \(.*\); `roundtable projects export SLUG FILE` writes one/);
    });

    it('a SQLite board that is not an export', async () => {
      const plain = join(work, 'plain.db');
      const db = new Database(aWebDb, { readonly: true });
      await db.backup(plain);
      db.close();
      await refused([plain, '--as', 'plain'], /plain\.db is a SQLite database but not a project export \(it has no roundtable_export table\)/);
    });

    it('an export of a newer format', async () => {
      const newer = join(work, 'newer.rtexport');
      copyFileSync(exportFile, newer);
      const db = new Database(newer);
      db.prepare('UPDATE roundtable_export SET format = 2').run();
      db.close();
      await refused([newer, '--as', 'newer'], /newer\.rtexport is export format 2, newer than this roundtable reads \(1\); upgrade roundtable/);
    });

    it('a database already in the slug\'s place', async () => {
      const fresh = await startBoard();
      try {
        const leftover = join(fresh.dir, 'roundtable-projects', 'site');
        mkdirSync(leftover, { recursive: true });
        writeFileSync(join(leftover, 'board.db'), 'kept as it is');
        const before = snapshot(fresh.dir);
        const run = await runCli(['projects', 'import', exportFile, '--as', 'site'], daemonEnv(fresh.dir));
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(/a database already exists at .*roundtable-projects\/site\/board\.db .*; move it aside, then import/);
        expect(snapshot(fresh.dir)).toEqual(before);
        expect(readFileSync(join(leftover, 'board.db'), 'utf8')).toBe('kept as it is');
      } finally {
        await fresh.stop();
      }
    });

    it('export: an existing FILE is not overwritten, and an unknown slug is refused', async () => {
      const taken = join(work, 'taken.rtexport');
      writeFileSync(taken, 'mine');
      const over = await runCli(['projects', 'export', 'web', taken], daemonEnv(a.dir));
      expect(over.code).toBe(1);
      expect(over.stderr).toContain('taken.rtexport already exists; choose another FILE');
      expect(readFileSync(taken, 'utf8')).toBe('mine');
      const unknown = await runCli(['projects', 'export', 'nope', join(work, 'nope.rtexport')], daemonEnv(a.dir));
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/no project is called "nope"/);
      expect(existsSync(join(work, 'nope.rtexport'))).toBe(false);
      expect(readdirSync(work).filter((f) => f.includes('.partial'))).toEqual([]);
    });
  });
});

// Across the stores: the export file is one format, so a project moves from a SQLite daemon to a PostgreSQL one (its
// schema filled by copy-board.ts) and back (its schema copied into a SQLite file), history, tokens and cursors intact.
describe.skipIf(PG_SKIP_REASON)(`projects export and import between SQLite and PostgreSQL${PG_SKIP_REASON ? ` (skipped: ${PG_SKIP_REASON})` : ''}`, () => {
  const web: Record<string, string> = Object.fromEntries(WEB_AGENTS.map((agent) => [agent.name, token()]));
  const defaults: Record<string, string> = Object.fromEntries(DEFAULT_AGENTS.map((agent) => [agent.name, token()]));
  const work = mkdtempSync(join(tmpdir(), 'roundtable-transfer-pg-'));
  const boards: TestBoard[] = [];
  let sqlite: TestBoard;
  let postgres: TestBoard;
  let cursor: string;

  const envOf = (board: TestBoard) => daemonEnv(board.dir, board.databaseUrl ? { ROUNDTABLE_DATABASE_URL: board.databaseUrl } : {});
  /** The agents of web as `agents list` prints them (name, role, skills). */
  const agentsOf = async (board: TestBoard) => {
    const run = await runCli(['agents', 'list', '--project', 'web'], envOf(board));
    expect(run.code, run.stderr).toBe(0);
    return run.stdout;
  };
  /** Every task of web on `board`, whole (history and messages), as wlead reads it. */
  const tasksOn = async (board: TestBoard, count: number) => {
    const tasks: unknown[] = [];
    for (let id = 1; id <= count; id++) {
      const answer = await projectApi(board, 'web', web['wlead']!, 'get_task', { task_id: id, history_limit: 100, messages_limit: 100 });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      tasks.push(answer.body);
    }
    return tasks;
  };

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roundtable-test-'));
    const catalog = {
      projects: [
        { slug: 'default', mode: 'role', agents: DEFAULT_AGENTS.map((x) => ({ name: x.name, role: x.role, skills: x.skills ?? [], token_sha256: sha256(defaults[x.name]!) })) },
        { slug: 'web', title: 'Web app', mode: 'role', agents: WEB_AGENTS.map(({ plaintext: _plain, ...x }) => ({ ...x, token_sha256: sha256(web[x.name]!) })) },
      ],
      people: [],
    };
    writeFileSync(join(dir, 'agents.json'), JSON.stringify(catalog), { mode: 0o600 });
    sqlite = await startBoard({ dir, tokens: { ...defaults, ...web } });
    boards.push(sqlite);
    const done = (await api(sqlite, 'wlead', 'create_task', { title: 'ship the header', required_skills: ['js'] })).body.task.id as number;
    const held = (await api(sqlite, 'wlead', 'create_task', { title: 'test the footer' })).body.task.id as number;
    const open = (await api(sqlite, 'wlead', 'create_task', { title: 'later' })).body.task.id as number;
    const claim = (await api(sqlite, 'wdev', 'claim_task', { task_id: done })).body.task;
    expect((await api(sqlite, 'wdev', 'post_message', { task_id: done, kind: 'progress', text: 'halfway', claim_id: claim.claim_id })).status).toBe(200);
    expect((await api(sqlite, 'wdev', 'submit_result', { task_id: done, result: 'header shipped' })).status).toBe(200);
    expect((await api(sqlite, 'wlead', 'review_task', { task_id: done, verdict: 'approve' })).status).toBe(200);
    expect((await api(sqlite, 'wqa', 'claim_task', { task_id: held })).status).toBe(200);
    expect((await api(sqlite, 'wlead', 'post_message', { task_id: open, kind: 'note', text: 'no rush' })).status).toBe(200);
    cursor = (await api(sqlite, 'wdev', 'wait_for_activity', { timeout_s: 0 })).body.cursor as string;
    postgres = await startBoard({ store: 'postgres', tokens: defaults });
    boards.push(postgres);
  });

  afterAll(async () => {
    await Promise.all(boards.map((board) => board.stop()));
  });

  it('SQLite to PostgreSQL: tasks, history and agents equal, the tokens work, a cursor taken on SQLite goes on', async () => {
    const file = join(work, 'web-from-sqlite.rtexport');
    const exported = await runCli(['projects', 'export', 'web', file], envOf(sqlite));
    expect(exported.code, exported.stderr).toBe(0);
    const imported = await runCli(['projects', 'import', file], envOf(postgres));
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('Imported project web: 3 task(s) with their history, 3 agent(s) whose tokens work here.');
    // Compared before the claim's holder calls: its calls renew its lease.
    await eventually("wlead's token to open /p/web on PostgreSQL", async () => (await projectApi(postgres, 'web', web['wlead']!, 'whoami')).body.name === 'wlead');
    expect(await tasksOn(postgres, 3)).toEqual(await tasksOn(sqlite, 3));
    expect(await agentsOf(postgres)).toEqual(await agentsOf(sqlite));
    for (const name of Object.keys(web)) {
      expect((await projectApi(postgres, 'web', web[name]!, 'whoami')).body.name).toBe(name);
      expect((await projectApi(postgres, 'default', web[name]!, 'whoami')).status).toBe(403);
    }
    const created = (await projectApi(postgres, 'web', web['wlead']!, 'create_task', { title: 'after the move' })).body.task.id as number;
    expect(created).toBe(4);
    const waited = await projectApi(postgres, 'web', web['wdev']!, 'wait_for_activity', { timeout_s: 5, since: cursor });
    expect(waited.status, JSON.stringify(waited.body)).toBe(200);
    expect(waited.body.changes).toContain(`task:${created}:created`);
    // Nothing before the cursor is named again.
    expect(waited.body.changes.filter((change: string) => /^task:[123]:/.test(change))).toEqual([]);
  });

  it('PostgreSQL to SQLite: the schema copied into an export file; equal on a SQLite daemon, tokens and cursor working', async () => {
    const since = (await projectApi(postgres, 'web', web['wdev']!, 'wait_for_activity', { timeout_s: 0 })).body.cursor as string;
    const file = join(work, 'web-from-postgres.rtexport');
    const exported = await runCli(['projects', 'export', 'web', file], envOf(postgres));
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(/^Exported project web to .*\(\d+ bytes, mode 600\): 4 task\(s\) with their history, 3 agent\(s\)/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(work).sort()).toEqual(['web-from-postgres.rtexport', 'web-from-sqlite.rtexport']);
    const target = await startBoard({ tokens: defaults });
    boards.push(target);
    const imported = await runCli(['projects', 'import', file], envOf(target));
    expect(imported.code, imported.stderr).toBe(0);
    await eventually("wlead's token to open /p/web on SQLite", async () => (await projectApi(target, 'web', web['wlead']!, 'whoami')).body.name === 'wlead');
    expect(await tasksOn(target, 4)).toEqual(await tasksOn(postgres, 4));
    expect(await agentsOf(target)).toEqual(await agentsOf(postgres));
    for (const name of Object.keys(web)) expect((await projectApi(target, 'web', web[name]!, 'whoami')).body.name).toBe(name);
    const created = (await projectApi(target, 'web', web['wlead']!, 'create_task', { title: 'back on SQLite' })).body.task.id as number;
    expect(created).toBe(5);
    const waited = await projectApi(target, 'web', web['wdev']!, 'wait_for_activity', { timeout_s: 5, since });
    expect(waited.status, JSON.stringify(waited.body)).toBe(200);
    expect(waited.body.changes).toContain(`task:${created}:created`);
    expect(waited.body.changes.filter((change: string) => /^task:[1234]:/.test(change))).toEqual([]);
  });
});
