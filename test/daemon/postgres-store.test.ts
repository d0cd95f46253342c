// What only the PostgreSQL store has: its own migrations, the audit log made append-only by the database itself,
// and a connection URL that never appears in an error. The board's rules on it are the store-parameterized suites.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, daemonEnv, runCli, startBoard, type TestBoard } from '../helpers/board.js';
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
