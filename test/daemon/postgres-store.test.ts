// What only the PostgreSQL store has: its own migrations, the audit log made append-only by the database itself,
// and a connection URL that never appears in an error. The board's rules on it are the store-parameterized suites.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, daemonEnv, runCli, startBoard, type TestBoard } from '../helpers/board.js';
import { openBoardDb } from '../helpers/board-db.js';
import { IDLE_IN_TRANSACTION_MS, openPool } from '../../daemon/src/store/postgres/connection.js';
import { connectTo, createTestDatabase, PG_SKIP_REASON } from '../helpers/postgres.js';

describe.skipIf(PG_SKIP_REASON)(`the PostgreSQL store${PG_SKIP_REASON ? ` (skipped: ${PG_SKIP_REASON})` : ''}`, () => {
  let board: TestBoard;
  beforeAll(async () => {
    board = await startBoard({ store: 'postgres' });
    expect((await api(board, 'lead', 'create_task', { title: 'audited' })).status).toBe(200);
  });
  afterAll(async () => {
    await board.stop();
  });

  it.each([
    ['UPDATE', "UPDATE audit_log SET outcome = 'forged'"],
    ['DELETE', 'DELETE FROM audit_log'],
    ['TRUNCATE', 'TRUNCATE audit_log'],
  ])('the audit log refuses %s, even to the database owner', async (_verb, statement) => {
    const sql = connectTo(board.databaseUrl!);
    try {
      const before = (await sql`SELECT COUNT(*) AS n, string_agg(outcome, ',' ORDER BY id) AS outcomes FROM audit_log`)[0]!;
      expect(Number(before['n'])).toBeGreaterThan(0);
      await expect(sql.unsafe(statement)).rejects.toThrow(/audit_log is append-only/);
      const after = (await sql`SELECT COUNT(*) AS n, string_agg(outcome, ',' ORDER BY id) AS outcomes FROM audit_log`)[0]!;
      expect(after).toEqual(before);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it("the daemon's connections end a transaction left waiting on a vanished daemon, freeing its row locks", async () => {
    const sql = openPool({ url: board.databaseUrl!, max: 1 });
    try {
      const [row] = await sql`SHOW idle_in_transaction_session_timeout`;
      expect(row!['idle_in_transaction_session_timeout']).toBe(`${IDLE_IN_TRANSACTION_MS / 1000}s`);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('a database whose schema is newer than the code is refused', async () => {
    const url = await createTestDatabase('newer');
    const first = await startBoard({ databaseUrl: url });
    await first.stop();
    const sql = connectTo(url);
    await sql`INSERT INTO schema_version (version, applied_at) VALUES (999, ${new Date().toISOString()})`;
    await sql.end({ timeout: 1 });
    const result = await runCli(['run'], daemonEnv(first.dir, { ROUNDTABLE_DATABASE_URL: url }));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/schema version 999, newer than this roundtable/);
  });

  it('several daemons starting at once on an empty database migrate it once', async () => {
    const url = await createTestDatabase('together');
    const boards = await Promise.all([0, 1, 2].map(() => startBoard({ databaseUrl: url })));
    try {
      const sql = connectTo(url);
      const versions = await sql`SELECT version FROM schema_version ORDER BY version`;
      await sql.end({ timeout: 1 });
      expect(versions.map((v) => v['version'])).toEqual([...new Set(versions.map((v) => v['version']))]);
    } finally {
      await Promise.all(boards.map((b) => b.stop()));
    }
  });
});

describe.skipIf(PG_SKIP_REASON)(`roundtable migrate --to postgres://…${PG_SKIP_REASON ? ` (skipped: ${PG_SKIP_REASON})` : ''}`, () => {
  /** Every table's rows, in id order where there is one, as the daemon would answer them. */
  const TABLES = ['tasks', 'task_skills', 'task_dependencies', 'claims', 'messages', 'reviews', 'activity', 'audit_log', 'room_messages', 'room_receipts', 'agent_cursors', 'reservations'];

  it('copies a SQLite board with tasks, history, room and audit rows; the board then runs on PostgreSQL as it was', async () => {
    const sqlite = await startBoard();
    const a = (await api(sqlite, 'lead', 'create_task', { title: 'first', required_skills: ['python'] })).body.task.id;
    const b = (await api(sqlite, 'lead', 'create_task', { title: 'second', depends_on: [a], priority: 'high' })).body.task.id;
    const claim = (await api(sqlite, 'w1', 'claim_task', { task_id: a })).body.task;
    expect((await api(sqlite, 'w1', 'reserve_paths', { task_id: a, paths: ['src/**'] })).status).toBe(200);
    await api(sqlite, 'w1', 'post_message', { task_id: a, kind: 'progress', text: 'half way' });
    await api(sqlite, 'w1', 'submit_result', { task_id: a, result: 'done it' });
    await api(sqlite, 'lead', 'review_task', { task_id: a, verdict: 'approve' });
    await api(sqlite, 'w2', 'post', { to: 'all', text: 'hello room' });
    await api(sqlite, 'w3', 'post', { to: ['w1'], text: 'just you' });
    await api(sqlite, 'w1', 'read_messages');
    await api(sqlite, 'w2', 'claim_task', { task_id: 999 });
    const before = { a: (await api(sqlite, 'lead', 'get_task', { task_id: a })).body, b: (await api(sqlite, 'lead', 'get_task', { task_id: b })).body };
    const log = (await api(sqlite, 'w1', 'read_log', { limit: 50 })).body.messages;
    await sqlite.stop();
    const sqliteDb = openBoardDb(sqlite);
    const counts = async (db: typeof sqliteDb) => Object.fromEntries(await Promise.all(TABLES.map(async (t) => [t, Number((await db.rows<{ n: number }>(`SELECT COUNT(*) AS n FROM ${t}`))[0]!.n)])));
    const expected = await counts(sqliteDb);
    await sqliteDb.close();
    expect(expected['audit_log']).toBeGreaterThan(10);

    const url = await createTestDatabase('migrated');
    const migrated = await runCli(['migrate', '--to', url], daemonEnv(sqlite.dir));
    expect(migrated.stderr).toBe('');
    expect(migrated.code).toBe(0);
    expect(migrated.stdout).toMatch(/every table has as many rows on both sides/);
    expect(migrated.stdout).not.toContain('postgres@');

    const pg = await startBoard({ dir: sqlite.dir, tokens: sqlite.tokens, databaseUrl: url });
    try {
      const pgDb = openBoardDb(pg);
      const copied = await counts(pgDb);
      // Audit rows: the copy, plus none yet (the counts are read before any call to the new board).
      expect(copied).toEqual(expected);
      await pgDb.close();
      expect((await api(pg, 'lead', 'get_task', { task_id: a })).body).toEqual(before.a);
      expect((await api(pg, 'lead', 'get_task', { task_id: b })).body).toEqual(before.b);
      expect((await api(pg, 'w1', 'read_log', { limit: 50 })).body.messages).toEqual(log);
      // New rows continue after the copied ids, and the board's rules hold: B is ready now that A is done.
      const c = (await api(pg, 'lead', 'create_task', { title: 'third' })).body.task.id;
      expect(c).toBe(b + 1);
      expect((await api(pg, 'w2', 'claim_task', { task_id: b })).body.task.claim_id).toBe(claim.claim_id + 1);

      const again = await runCli(['migrate', '--to', url], daemonEnv(sqlite.dir));
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/the target database is not empty \(table tasks has rows\)/);
    } finally {
      await pg.stop();
    }
  });

  it('is refused while a daemon uses the SQLite board, and without a PostgreSQL URL', async () => {
    const running = await startBoard();
    try {
      const url = await createTestDatabase('refused');
      const refused = await runCli(['migrate', '--to', url], daemonEnv(running.dir));
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/is using .*board\.db; stop it first/);
      const noUrl = await runCli(['migrate', '--to', 'mysql://x'], daemonEnv(running.dir));
      expect(noUrl.code).toBe(2);
      expect(noUrl.stderr).toMatch(/needs --to with a PostgreSQL URL/);
    } finally {
      await running.stop();
    }
  });

  it('doctor checks the connection, the schema and LISTEN/NOTIFY; backup points to PostgreSQL\'s own tools', async () => {
    const board = await startBoard({ store: 'postgres' });
    try {
      const env = daemonEnv(board.dir, { ROUNDTABLE_DATABASE_URL: board.databaseUrl! });
      const doctor = await runCli(['doctor'], env);
      expect(doctor.stdout).toMatch(/ok\s+database\s+PostgreSQL postgres:\/\/127\.0\.0\.1:\d+\/rt_\w+, schema \d+ of \d+, LISTEN\/NOTIFY ok/);
      const backup = await runCli(['backup'], env);
      expect(backup.code).toBe(1);
      expect(backup.stderr).toMatch(/pg_dump/);
      const unreachable = await runCli(['doctor'], { ...env, ROUNDTABLE_DATABASE_URL: 'postgres://nobody:pw-secret@127.0.0.1:1/none' });
      expect(unreachable.code).toBe(1);
      expect(unreachable.stdout).toMatch(/fail\s+database\s+cannot connect to postgres:\/\/127\.0\.0\.1:1\/none/);
      expect(unreachable.stdout).not.toContain('pw-secret');
    } finally {
      await board.stop();
    }
  });
});

describe('ROUNDTABLE_DATABASE_URL', () => {
  it('a value that is not a PostgreSQL URL stops the daemon, naming the variable and never echoing the value', async () => {
    const secret = 'mysql://root:hunter2-secret@db/board';
    const result = await runCli(['run'], { ...daemonEnv('/tmp'), ROUNDTABLE_DATABASE_URL: secret });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('ROUNDTABLE_DATABASE_URL');
    expect(result.stderr).toContain('postgres://');
    expect(result.stderr).not.toContain('hunter2');
  });
});
