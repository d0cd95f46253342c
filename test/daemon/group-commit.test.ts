// Group commit: concurrent writes share commits, a failing one rolls back alone, every acknowledged one survives SIGKILL.
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { api, startBoard, type TestBoard } from '../helpers/board.js';

/**
 * How many transactions the write-ahead log holds: its valid frames (salts equal to the header's) that end a commit
 * (a nonzero database size). SQLite's WAL format, https://www.sqlite.org/fileformat2.html#walformat.
 */
function walCommits(dbPath: string): number {
  const wal = readFileSync(`${dbPath}-wal`);
  if (wal.length < 32) return 0;
  const pageSize = wal.readUInt32BE(8);
  const salt1 = wal.readUInt32BE(16);
  const salt2 = wal.readUInt32BE(20);
  let commits = 0;
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    if (wal.readUInt32BE(at + 8) !== salt1 || wal.readUInt32BE(at + 12) !== salt2) break;
    if (wal.readUInt32BE(at + 4) !== 0) commits++;
  }
  return commits;
}

const boards: TestBoard[] = [];
afterAll(async () => {
  for (const board of boards) await board.stop();
});

it('50 concurrent writers: fewer commits than writes, only the invalid one rolled back, all acknowledged ones kept after SIGKILL', async () => {
  const first = await startBoard();
  boards.push(first);
  const before = walCommits(first.dbPath);
  const FAILING = 17;
  // One of them names a dependency that does not exist: the rule refuses it inside the group's transaction.
  const answers = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      api(first, 'lead', 'create_task', { title: `group-${i}`, ...(i === FAILING && { depends_on: [987654] }) }),
    ),
  );
  const commits = walCommits(first.dbPath) - before;

  const failed = answers[FAILING]!;
  expect(failed.status).toBe(400);
  expect(JSON.stringify(failed.body)).toMatch(/987654/);
  const acked = answers.flatMap((a, i) => (i === FAILING ? [] : [{ title: `group-${i}`, status: a.status, id: a.body.task?.id as number }]));
  expect(acked.every((a) => a.status === 200)).toBe(true);
  // One commit per call without group commit (the refused call's audit row is committed before its answer too);
  // calls that arrived together shared theirs.
  expect(commits).toBeGreaterThan(0);
  expect(commits).toBeLessThan(answers.length);

  await first.stop('SIGKILL');
  const second = await startBoard({ dir: first.dir, tokens: first.tokens });
  boards.push(second);
  const db = new Database(second.dbPath, { readonly: true });
  try {
    const titles = new Map((db.prepare("SELECT id, title FROM tasks WHERE title LIKE 'group-%'").all() as Array<{ id: number; title: string }>).map((r) => [r.id, r.title]));
    expect(titles.size).toBe(acked.length);
    for (const a of acked) expect(titles.get(a.id)).toBe(a.title);
    expect([...titles.values()]).not.toContain(`group-${FAILING}`);
    const audited = new Set(db.prepare("SELECT task_id FROM audit_log WHERE tool = 'create_task' AND outcome = 'ok'").pluck().all() as number[]);
    for (const a of acked) expect(audited.has(a.id)).toBe(true);
  } finally {
    db.close();
  }
});
