// Projects on PostgreSQL (issue 33): a schema per project on one database, the catalog in tables beside `default`,
// the upgrade of a board made before projects, and `roundtable migrate` of a SQLite board with two projects.
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPool, type Db } from '../../daemon/src/store/postgres/connection.js';
import { PostgresStore } from '../../daemon/src/store/postgres/index.js';
import { PG_SCHEMA_VERSION } from '../../daemon/src/store/postgres/migrate.js';
import { startSharedState, type SharedState } from '../../daemon/src/store/postgres/shared.js';
import { dropProjectSchema, listProjectSchemas, schemaOf } from '../../daemon/src/store/postgres/project-schema.js';
import { readMigrations } from '../../daemon/src/store/migration-files.js';
import { api, daemonEnv, runCli, startBoard, token, type TestBoard } from '../helpers/board.js';
import { eventually, within } from '../helpers/eventually.js';
import { connectTo, createTestDatabase, PG_SKIP_REASON } from '../helpers/postgres.js';

const sha = (value: string) => createHash('sha256').update(value).digest('hex');

/** The board's URLs for one project: `/p/SLUG/...`. */
const inProject = (board: TestBoard, slug: string): TestBoard => ({ ...board, url: `${board.url}/p/${slug}` });

/** A directory with an agents.json in the second spelling: projects alpha and beta, each a leader and a worker. */
function twoProjects(): { dir: string; tokens: Record<string, string> } {
  const dir = mkdtempSync(join(tmpdir(), 'roundtable-test-'));
  const tokens = Object.fromEntries(['a-lead', 'a-w', 'b-lead', 'b-w', 'pat'].map((name) => [name, token()]));
  const agent = (name: string, role: string) => ({ name, role, skills: [], token_sha256: sha(tokens[name]!) });
  const file = {
    projects: [
      { slug: 'default', mode: 'role', agents: [agent('a-lead', 'leader'), agent('a-w', 'worker')] },
      { slug: 'beta-two', title: 'Beta', mode: 'role', agents: [agent('b-lead', 'leader'), agent('b-w', 'worker')] },
    ],
    people: [{ name: 'pat', token_sha256: sha(tokens['pat']!), grants: { default: 'owner', 'beta-two': 'observer' } }],
  };
  writeFileSync(join(dir, 'agents.json'), JSON.stringify(file), { mode: 0o600 });
  return { dir, tokens };
}

describe.skipIf(PG_SKIP_REASON)(`projects on PostgreSQL${PG_SKIP_REASON ? ` (skipped: ${PG_SKIP_REASON})` : ''}`, () => {
  it('a prepared statement follows the search_path: two schemas and the public one alternating on one connection', async () => {
    const url = await createTestDatabase('paths');
    const sql = openPool({ url, max: 1 });
    try {
      for (const schema of ['rt_a', 'rt_b', 'public']) {
        await sql.unsafe(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
        await sql.unsafe(`CREATE TABLE ${schema}.t (v TEXT NOT NULL)`);
        await sql.unsafe(`INSERT INTO ${schema}.t VALUES ('in ${schema}')`);
      }
      // One call site, so one statement text: prepared once on the connection, under one name (connection.ts).
      const read = async (db: Db) => (await db<Array<{ v: string; pid: number }>>`SELECT v, pg_backend_pid() AS pid FROM t`)[0]!;
      const order = ['rt_a', 'rt_b', 'public', 'rt_b', 'rt_a', 'rt_a', 'public', 'rt_b'] as const;
      const seen: string[] = [];
      const pids = new Set<number>();
      for (const schema of order) {
        const scoped = sql.scoped(schema === 'public' ? undefined : schema);
        const row = await read(scoped);
        seen.push(row.v);
        pids.add(row.pid);
        // And inside a transaction, where the path goes out with BEGIN.
        seen.push((await scoped.begin((tx) => read(tx))).v);
      }
      expect(seen).toEqual(order.flatMap((schema) => [`in ${schema}`, `in ${schema}`]));
      expect(pids.size).toBe(1);
    } finally {
      await sql.end();
    }
  });

  it("migrations run per schema: a project's schema has its own schema_version and board, none of the catalog's tables; drop removes it", async () => {
    const url = await createTestDatabase('schemas');
    const stores = await Promise.all([undefined, schemaOf('web-app')].map((schema) => PostgresStore.open({ url, schema, sharePool: true })));
    const sql = connectTo(url);
    try {
      const tables = async (schema: string) =>
        (await sql<Array<{ name: string }>>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ${schema}`).map((r) => r.name);
      expect(await tables('rt_web_app')).toEqual(expect.arrayContaining(['tasks', 'audit_log', 'event_log', 'webhooks', 'rate_buckets', 'waiting_agents', 'schema_version']));
      for (const catalogTable of ['agents', 'agents_mode', 'web_sessions', 'projects', 'people', 'grants']) expect(await tables('rt_web_app')).not.toContain(catalogTable);
      expect(await tables('public')).toEqual(expect.arrayContaining(['tasks', 'agents', 'projects', 'people', 'grants', 'web_sessions']));
      const [version] = await sql.unsafe('SELECT MAX(version) AS v FROM rt_web_app.schema_version');
      expect(version?.['v']).toBe(PG_SCHEMA_VERSION);
      expect(await listProjectSchemas(sql)).toEqual(['web-app']);
      await expect(dropProjectSchema(sql, 'default')).rejects.toThrow(/cannot be dropped/);
      await Promise.all(stores.map((s) => s.close()));
      expect(await dropProjectSchema(sql, 'web-app')).toBe(true);
      expect(await listProjectSchemas(sql)).toEqual([]);
      expect(await dropProjectSchema(sql, 'web-app')).toBe(false);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
      await sql.end();
    }
  });

  it("events are per project: one project's NOTIFY never reaches another's listeners on the same pool", async () => {
    const url = await createTestDatabase('channels');
    // This daemon's two projects on one shared pool (one LISTEN connection), and another daemon of each project.
    const [alpha, beta] = await Promise.all([undefined, schemaOf('beta')].map((schema) => PostgresStore.open({ url, schema, sharePool: true })));
    const [alphaElsewhere, betaElsewhere] = await Promise.all([undefined, schemaOf('beta')].map((schema) => PostgresStore.open({ url, schema })));
    const states = await Promise.all([alpha!, beta!, alphaElsewhere!, betaElsewhere!].map((store) => startSharedState(store.sql)));
    const [alphaState, betaState, alphaOther, betaOther] = states as [SharedState, SharedState, SharedState, SharedState];
    const heard = (state: SharedState) => {
      const agents: string[] = [];
      state.events.subscribe((event) => event.type === 'presence' && agents.push(event.agent));
      return agents;
    };
    const inBeta = heard(betaState);
    const inAlphaElsewhere = heard(alphaOther);
    try {
      alphaState.events.publish({ type: 'presence', agent: 'from-alpha' });
      await eventually('the other alpha daemon to hear alpha', () => inAlphaElsewhere.includes('from-alpha'));
      // Sent after alpha's was delivered: on beta's listening connection it comes after alpha's, had that come at all.
      betaOther.events.publish({ type: 'presence', agent: 'from-beta' });
      await eventually('beta to hear the other beta daemon', () => inBeta.includes('from-beta'));
      expect(inBeta).toEqual(['from-beta']);
    } finally {
      await Promise.all(states.map((state) => state.close()));
      await Promise.all([alpha!, beta!, alphaElsewhere!, betaElsewhere!].map((store) => store.close()));
    }
  });

  it('two projects on one database are isolated: tasks, events and waits of one never reach the other', async () => {
    const { dir, tokens } = twoProjects();
    const board = await startBoard({ dir, tokens, store: 'postgres' });
    try {
      const alpha = inProject(board, 'default');
      const beta = inProject(board, 'beta-two');
      const created = await api(alpha, 'a-lead', 'create_task', { title: 'alpha only' });
      expect(created.status).toBe(200);
      const id = created.body.task.id as number;
      expect((await api(beta, 'b-lead', 'list_tasks', {})).body.tasks).toEqual([]);
      expect((await api(alpha, 'a-lead', 'list_tasks', {})).body.tasks.map((t: { title: string }) => t.title)).toEqual(['alpha only']);

      // A wait in beta, edge-triggered from now, is not woken by a new task, a claim or a message in alpha; a new task in beta wakes it.
      const { cursor } = (await api(beta, 'b-w', 'wait_for_activity', { timeout_s: 0 })).body as { cursor: string };
      const wait = api(beta, 'b-w', 'wait_for_activity', { timeout_s: 40, since: cursor });
      await eventually('b-w to be parked', async () => (await api(beta, 'b-lead', 'members')).body.members.find((m: { name: string }) => m.name === 'b-w')?.waiting);
      let answered = false;
      void wait.then(() => (answered = true));
      expect((await api(alpha, 'a-lead', 'create_task', { title: 'alpha second' })).status).toBe(200);
      expect((await api(alpha, 'a-w', 'claim_task', { task_id: id })).status).toBe(200);
      expect((await api(alpha, 'a-w', 'post_message', { task_id: id, kind: 'note', text: 'news in alpha' })).status).toBe(200);
      // Not a sleep-then-assert: alpha's own waiter hears of its new task, and by then beta's would have too.
      const alphaWait = await api(alpha, 'a-w', 'wait_for_activity', { timeout_s: 10 });
      expect(alphaWait.body.reason).not.toBe('timeout');
      expect(answered).toBe(false);
      expect((await api(beta, 'b-lead', 'members')).body.members.find((m: { name: string }) => m.name === 'b-w')?.waiting).toBeTruthy();
      const betaTask = await api(beta, 'b-lead', 'create_task', { title: 'beta only' });
      // Each schema numbers its own tasks: beta's first is 1, as alpha's was.
      expect(betaTask.body.task.id).toBe(id);
      const woke = await within('the beta wait to end', wait, 10_000);
      expect(woke.status).toBe(200);
      expect(woke.body.changes).toEqual([`task:${id}:created`]);

      // An agent's token on the other project's URL: 403. The person holds both, with their role in each.
      expect((await api(beta, 'a-lead', 'whoami')).status).toBe(403);
      expect((await api(alpha, 'pat', 'whoami')).body).toMatchObject({ name: 'pat', role: 'owner' });
      expect((await api(beta, 'pat', 'whoami')).body).toMatchObject({ name: 'pat', role: 'observer' });

      // The catalog is in the tables: both projects, the person and their grants.
      const sql = connectTo(board.databaseUrl!);
      try {
        expect([...(await sql`SELECT slug, title, mode FROM projects ORDER BY position`)]).toEqual([
          { slug: 'default', title: null, mode: 'role' },
          { slug: 'beta-two', title: 'Beta', mode: 'role' },
        ]);
        expect([...(await sql`SELECT person, project, role FROM grants ORDER BY project`)]).toEqual([
          { person: 'pat', project: 'beta-two', role: 'observer' },
          { person: 'pat', project: 'default', role: 'owner' },
        ]);
        expect((await sql.unsafe('SELECT title FROM rt_beta_two.tasks')).map((r) => r['title'])).toEqual(['beta only']);
        expect((await sql.unsafe('SELECT title FROM public.tasks ORDER BY id')).map((r) => r['title'])).toEqual(['alpha only', 'alpha second']);
      } finally {
        await sql.end();
      }
    } finally {
      await board.stop();
    }
  });

  it('a board made before projects upgrades: every row and token intact, owners become people, old entries keep working', async () => {
    const url = await createTestDatabase('upgrade');
    const sql = connectTo(url);
    const tokens = Object.fromEntries(['lead', 'w1', 'boss', 'eye'].map((name) => [name, token()]));
    try {
      // The release before this one: migrations up to 011, its agents table, and board rows as it wrote them.
      await sql.begin(async (tx) => {
        await tx`CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)`;
        for (const migration of readMigrations('migrations-pg').filter((m) => m.version <= 11)) {
          await tx.unsafe(migration.sql);
          await tx`INSERT INTO schema_version (version, applied_at) VALUES (${migration.version}, ${new Date().toISOString()})`;
        }
        const roles: Record<string, string> = { lead: 'leader', w1: 'worker', boss: 'owner', eye: 'observer' };
        for (const [position, name] of Object.keys(tokens).entries()) {
          await tx`INSERT INTO agents (name, position, role, skills, token_sha256) VALUES (${name}, ${position}, ${roles[name]!}, ${'["sql"]'}, ${sha(tokens[name]!)})`;
        }
        await tx`INSERT INTO agents_mode (only_row, mode) VALUES (TRUE, 'role')`;
        const at = '2026-01-01T00:00:00.000Z';
        await tx`INSERT INTO tasks (title, status, created_by, created_at, updated_at) VALUES ('from the old release', 'open', 'lead', ${at}, ${at})`;
        await tx`INSERT INTO audit_log (at, agent, tool, task_id, outcome) VALUES (${at}, 'lead', 'create_task', 1, 'ok')`;
      });
      // The columns the old release wrote (later migrations add columns, such as search's generated tsvector).
      const oldTasks = () => sql`SELECT id, title, description, status, assignee, created_by, result, created_at, updated_at FROM tasks`;
      const before = JSON.stringify([await oldTasks(), await sql`SELECT * FROM audit_log`]);

      const dir = mkdtempSync(join(tmpdir(), 'roundtable-test-'));
      const env = daemonEnv(dir, { ROUNDTABLE_DATABASE_URL: url, ROUNDTABLE_AGENTS_CONFIG: join(dir, 'missing.json') });
      // doctor reads without migrating: the old table still reads.
      expect((await runCli(['doctor'], env)).stdout).toMatch(/ok\s+agents\s+.*in the agents table/);
      // No agents.json: the daemon reads the table it finds.
      const board = await startBoard({ dir, tokens, databaseUrl: url, env: { ROUNDTABLE_AGENTS_CONFIG: join(dir, 'missing.json') } });
      try {
        expect(JSON.stringify([await oldTasks(), await sql`SELECT * FROM audit_log WHERE id = 1`])).toBe(before);
        expect([...(await sql`SELECT slug, mode FROM projects`)]).toEqual([{ slug: 'default', mode: 'role' }]);
        expect([...(await sql`SELECT project, name, role, token_sha256 FROM agents ORDER BY position`)]).toEqual([
          { project: 'default', name: 'lead', role: 'leader', token_sha256: sha(tokens['lead']!) },
          { project: 'default', name: 'w1', role: 'worker', token_sha256: sha(tokens['w1']!) },
        ]);
        expect([...(await sql`SELECT p.name, p.token_sha256, g.project, g.role FROM people p JOIN grants g ON g.person = p.name ORDER BY p.position`)]).toEqual([
          { name: 'boss', token_sha256: sha(tokens['boss']!), project: 'default', role: 'owner' },
          { name: 'eye', token_sha256: sha(tokens['eye']!), project: 'default', role: 'observer' },
        ]);
        expect((await sql`SELECT to_regclass('agents_mode') IS NULL AS gone`)[0]?.['gone']).toBe(true);

        // Old entries: the unprefixed /api and /mcp with the old tokens.
        expect((await api(board, 'w1', 'get_task', { task_id: 1 })).body.task.title).toBe('from the old release');
        expect((await api(board, 'boss', 'whoami')).body).toMatchObject({ name: 'boss', role: 'owner' });
        expect((await api(board, 'eye', 'whoami')).body).toMatchObject({ name: 'eye', role: 'observer' });
        const mcp = await fetch(`${board.url}/mcp`, {
          method: 'POST',
          headers: { authorization: `Bearer ${tokens['lead']}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'old-entry', version: '1' } } }),
        });
        expect(mcp.status).toBe(200);

        // An edit writes the catalog back whole: the person stays a person.
        const added = await runCli(['agents', 'add', 'w2', '--role', 'worker'], env);
        expect(added.code, added.stderr).toBe(0);
        expect((await sql`SELECT COUNT(*)::int AS n FROM people`)[0]?.['n']).toBe(2);
        expect((await sql`SELECT COUNT(*)::int AS n FROM agents`)[0]?.['n']).toBe(3);
      } finally {
        await board.stop();
      }
    } finally {
      await sql.end();
    }
  });

  it('roundtable migrate carries every project of a SQLite board, and the catalog into the catalog tables', async () => {
    const { dir, tokens } = twoProjects();
    const sqlite = await startBoard({ dir, tokens });
    try {
      expect((await api(inProject(sqlite, 'default'), 'a-lead', 'create_task', { title: 'default task' })).status).toBe(200);
      expect((await api(inProject(sqlite, 'beta-two'), 'b-lead', 'create_task', { title: 'beta task' })).status).toBe(200);
      expect((await api(inProject(sqlite, 'beta-two'), 'b-lead', 'create_task', { title: 'beta task 2' })).status).toBe(200);
    } finally {
      await sqlite.stop();
    }
    const url = await createTestDatabase('migrate2');
    const migrated = await runCli(['migrate', '--to', url], daemonEnv(dir));
    expect(migrated.stderr).toBe('');
    expect(migrated.code).toBe(0);
    expect(migrated.stdout).toMatch(/beta-two/);
    const board = await startBoard({ dir, tokens, databaseUrl: url, env: { ROUNDTABLE_AGENTS_CONFIG: join(dir, 'missing.json') } });
    try {
      const titles = async (slug: string, agent: string) => (await api(inProject(board, slug), agent, 'list_tasks', {})).body.tasks.map((t: { title: string }) => t.title).sort();
      expect(await titles('default', 'a-lead')).toEqual(['default task']);
      expect(await titles('beta-two', 'b-lead')).toEqual(['beta task', 'beta task 2']);
      expect((await api(inProject(board, 'beta-two'), 'pat', 'whoami')).body).toMatchObject({ role: 'observer' });
    } finally {
      await board.stop();
    }
  });
});
