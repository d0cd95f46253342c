// The group commit's own rules (store/sqlite/group-commit.ts), on a real database file: how groups form around the
// fsync that runs off the event loop, what durable() waits for, and that close() loses nothing queued or in flight.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { openDatabase, storeFailure } from '../../daemon/src/store/sqlite/connection.js';
import { GroupCommit, type SyncFile } from '../../daemon/src/store/sqlite/group-commit.js';
import { Unavailable } from '../../daemon/src/errors.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function board(sync?: SyncFile): { db: Database.Database; group: GroupCommit; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'rt-group-'));
  dirs.push(dir);
  const path = join(dir, 'board.db');
  const db = openDatabase({ path });
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE)');
  return { db, group: new GroupCommit(db, sync), path };
}

/** Transactions in the WAL: valid frames that end a commit (https://www.sqlite.org/fileformat2.html#walformat). */
function walCommits(path: string): number {
  const wal = readFileSync(`${path}-wal`);
  if (wal.length < 32) return 0;
  const pageSize = wal.readUInt32BE(8);
  let commits = 0;
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    if (wal.readUInt32BE(at + 8) !== wal.readUInt32BE(16) || wal.readUInt32BE(at + 12) !== wal.readUInt32BE(20)) break;
    if (wal.readUInt32BE(at + 4) !== 0) commits++;
  }
  return commits;
}

const insert = (db: Database.Database, v: string) => () => Number(db.prepare('INSERT INTO t (v) VALUES (?)').run(v).lastInsertRowid);

it('a lone write is committed at the end of its turn and answered after its fsync, with no timer', async () => {
  const { db, group, path } = board();
  const before = walCommits(path);
  const started = performance.now();
  expect(await group.write(insert(db, 'lone'))).toBe(1);
  expect(performance.now() - started).toBeLessThan(1000);
  expect(walCommits(path) - before).toBe(1);
  group.close();
  db.close();
});

it('writes that arrive while a group is being synced wait and commit together as the next group; one that throws rolls back alone', async () => {
  const { db, group, path } = board();
  const before = walCommits(path);
  const first = group.write(insert(db, 'first'));
  // Let the first group commit: its fsync is now on the thread pool.
  await new Promise((resolve) => setImmediate(resolve));
  const rest = Array.from({ length: 40 }, (_, i) => group.write(insert(db, i === 7 ? 'first' : `w${i}`)).then(
    (id) => ({ ok: true as const, id }),
    (error: unknown) => ({ ok: false as const, error }),
  ));
  await first;
  const outcomes = await Promise.all(rest);
  expect(outcomes.filter((o) => !o.ok)).toHaveLength(1);
  expect(outcomes[7]!.ok).toBe(false);
  // The first group, then at most a few more (the rest arrived during the first fsync), never one per write.
  const commits = walCommits(path) - before;
  expect(commits).toBeGreaterThanOrEqual(2);
  expect(commits).toBeLessThan(10);
  expect(db.prepare('SELECT COUNT(*) FROM t').pluck().get()).toBe(40);
  group.close();
  db.close();
});

it('durable() resolves at once when nothing is being synced, and otherwise only after the group in flight is answered', async () => {
  const { db, group } = board();
  const order: string[] = [];
  await group.durable().then(() => order.push('idle'));
  const write = group.write(insert(db, 'a')).then(() => order.push('write'));
  await new Promise((resolve) => setImmediate(resolve));
  // The row is committed (visible to this connection) while its fsync runs.
  expect(db.prepare('SELECT COUNT(*) FROM t').pluck().get()).toBe(1);
  await Promise.all([group.durable().then(() => order.push('durable')), write]);
  expect(order).toEqual(['idle', 'write', 'durable']);
  group.close();
  db.close();
});

it('close() answers what is in flight and what is queued, and refuses later writes; the rows stand after reopening', async () => {
  const { db, group, path } = board();
  const inFlight = group.write(insert(db, 'in-flight'));
  await new Promise((resolve) => setImmediate(resolve));
  const queued = group.write(insert(db, 'queued'));
  group.close();
  await expect(Promise.all([inFlight, queued])).resolves.toEqual([1, 2]);
  await expect(group.write(insert(db, 'late'))).rejects.toThrow(/closed/);
  db.close();
  const again = new Database(path, { readonly: true });
  expect(again.prepare('SELECT v FROM t ORDER BY id').pluck().all()).toEqual(['in-flight', 'queued']);
  again.close();
});

it('a database with no write-ahead log (in memory) commits its groups as before', async () => {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE)');
  const group = new GroupCommit(db);
  expect(await Promise.all([group.write(insert(db, 'x')), group.write(insert(db, 'y'))])).toEqual([1, 2]);
  group.close();
  db.close();
});

it('a failed fsync fails its group with the change possibly applied, and every later write until restart', async () => {
  let fail = true;
  const failing: SyncFile = (_fd, done) => setImmediate(() => done(fail ? Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO', syscall: 'fdatasync' }) : null));
  const { db, group } = board(failing);
  const first = await group.write(insert(db, 'lost?')).catch((error: unknown) => error);
  const refused = storeFailure(first);
  expect(refused).toBeInstanceOf(Unavailable);
  expect(refused).toMatchObject({ reason: 'unreachable', applied: 'unknown' });
  // The disk may have dropped what it could not write: nothing later is promised, even once fsync works again.
  fail = false;
  await expect(group.write(insert(db, 'later'))).rejects.toMatchObject({ syscall: 'fdatasync' });
  expect(db.prepare("SELECT COUNT(*) FROM t WHERE v = 'later'").pluck().get()).toBe(0);
  // ENOSPC from the fsync is named as a full disk.
  expect(storeFailure(Object.assign(new Error('ENOSPC'), { code: 'ENOSPC', syscall: 'fdatasync' }))).toMatchObject({ reason: 'disk_full', applied: 'unknown' });
  group.close();
  db.close();
});
