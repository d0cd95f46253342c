// Backups: online under writes, checked, pruned, guarded against a full disk; restore refuses what it should.
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { api, daemonEnv, startBoard, runCli } from '../helpers/board.js';
import { eventually } from '../helpers/eventually.js';


const cli = runCli;

function integrity(path: string): string {
  const db = new Database(path, { readonly: true });
  try {
    return db.pragma('integrity_check', { simple: true }) as string;
  } finally {
    db.close();
  }
}

function taskTitles(path: string): Set<string> {
  const db = new Database(path, { readonly: true });
  try {
    return new Set((db.prepare('SELECT title FROM tasks').all() as { title: string }[]).map((r) => r.title));
  } finally {
    db.close();
  }
}

describe('online backup', () => {
  it('taken under concurrent writes, restores to a sound database with every write acknowledged before it began', async () => {
    const board = await startBoard({ env: { ROUNDTABLE_BACKUP_INTERVAL: '0' } });
    const env = daemonEnv(board.dir, { ROUNDTABLE_BACKUP_INTERVAL: '0' });
    const acknowledged: string[] = [];
    let writing = true;
    const writers = [0, 1, 2].map(async (w) => {
      for (let i = 0; writing; i++) {
        const title = `w${w}-${i}`;
        const answer = await api(board, 'lead', 'create_task', { title, description: 'x'.repeat(2000) });
        if (answer.status === 200) acknowledged.push(title);
      }
    });
    await eventually('more than 5 acknowledged writes before the backup', () => acknowledged.length > 5);
    const before = [...acknowledged];
    const backup = await cli(['backup'], env);
    // The writers are still going, and the board still takes writes after the backup.
    const afterBackup = acknowledged.length;
    await eventually('3 more acknowledged writes after the backup', () => acknowledged.length >= afterBackup + 3);
    writing = false;
    await Promise.all(writers);
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toMatch(/Backup written and checked: .*roundtable-\d{8}T\d{6}Z(-\d+)?\.db/);
    await board.stop();

    const files = readdirSync(join(board.dir, 'backups'));
    expect(files).toHaveLength(1);
    // Restore into a fresh database path and check what it holds.
    const restoredDb = join(board.dir, 'restored.db');
    const restore = await cli(['restore', files[0]!], { ...env, ROUNDTABLE_DB_PATH: restoredDb });
    expect(restore.code, restore.stderr).toBe(0);
    expect(integrity(restoredDb)).toBe('ok');
    const titles = taskTitles(restoredDb);
    expect(before.length).toBeGreaterThan(5);
    for (const title of before) expect(titles.has(title), title).toBe(true);
    expect(titles.size).toBeLessThanOrEqual(acknowledged.length);
  });

  it('the schedule keeps the newest ROUNDTABLE_BACKUP_KEEP, and skips with a warning when the disk is low', async () => {
    const board = await startBoard({ env: { ROUNDTABLE_BACKUP_INTERVAL: '1s', ROUNDTABLE_BACKUP_KEEP: '2' } });
    try {
      await api(board, 'lead', 'create_task', { title: 'kept' });
      const dir = join(board.dir, 'backups');
      await eventually('4 scheduled backups', () => (board.output().stderr.match(/"backup taken"/g) ?? []).length >= 4);
      const files = readdirSync(dir).filter((f) => f.endsWith('.db'));
      expect(files).toHaveLength(2);
      for (const file of files) expect(integrity(join(dir, file))).toBe('ok');
      expect(board.output().stderr).toMatch(/"pruned":1/);
    } finally {
      await board.stop();
    }

    const low = await startBoard({ env: { ROUNDTABLE_BACKUP_INTERVAL: '1s', ROUNDTABLE_BACKUP_MIN_FREE_MB: '9999999' } });
    try {
      await eventually('a skipped backup', () => low.output().stderr.includes('"backup skipped"'));
      expect(low.output().stderr).toMatch(/below ROUNDTABLE_BACKUP_MIN_FREE_MB=9999999/);
      expect(existsSync(join(low.dir, 'backups')) ? readdirSync(join(low.dir, 'backups')).filter((f) => f.endsWith('.db')) : []).toEqual([]);
      const manual = await cli(['backup'], daemonEnv(low.dir, { ROUNDTABLE_BACKUP_MIN_FREE_MB: '9999999' }));
      expect(manual.code).toBe(1);
      expect(manual.stderr).toContain('backup skipped');
    } finally {
      await low.stop();
    }
  });
});

describe('first backup', () => {
  it('a board without a recent backup takes one soon after start, not an interval later', async () => {
    const board = await startBoard({ env: { ROUNDTABLE_BACKUP_INTERVAL: '1h' } });
    try {
      // The daemon waits 10 s after start; the interval is an hour, so anything within the deadline is "soon".
      await eventually('the first backup', () => board.output().stderr.includes('"backup taken"'), { timeoutMs: 40_000 });
      expect(readdirSync(join(board.dir, 'backups')).filter((f) => f.endsWith('.db'))).toHaveLength(1);
    } finally {
      await board.stop();
    }
  });
});

describe('restore', () => {
  it('refuses a corrupt file, a running daemon, symlinks and paths outside the backup folder; keeps the current database aside', async () => {
    const board = await startBoard({ env: { ROUNDTABLE_BACKUP_INTERVAL: '0' } });
    const env = daemonEnv(board.dir, { ROUNDTABLE_BACKUP_INTERVAL: '0' });
    const dir = join(board.dir, 'backups');
    await api(board, 'lead', 'create_task', { title: 'in the backup' });
    expect((await cli(['backup'], env)).code).toBe(0);
    const [good] = readdirSync(dir);

    const whileRunning = await cli(['restore', good!], env);
    expect(whileRunning.code).toBe(1);
    expect(whileRunning.stderr).toMatch(/a roundtable daemon \(pid \d+\) is using .*stop it first/);

    await api(board, 'lead', 'create_task', { title: 'after the backup' });
    await board.stop();

    const corrupt = join(dir, 'roundtable-20200101T000000Z.db');
    writeFileSync(corrupt, Buffer.alloc(8192, 7));
    const refusedCorrupt = await cli(['restore', 'roundtable-20200101T000000Z.db'], env);
    expect(refusedCorrupt.code).toBe(1);
    expect(refusedCorrupt.stderr).toMatch(/not a usable Roundtable database|integrity_check/);

    const outside = join(board.dir, 'elsewhere.db');
    copyFileSync(join(dir, good!), outside);
    const refusedOutside = await cli(['restore', outside], env);
    expect(refusedOutside.stderr).toContain('is not in the backup folder');
    const refusedDotDot = await cli(['restore', `${dir}/../elsewhere.db`], env);
    expect(refusedDotDot.stderr).toContain('is not in the backup folder');
    symlinkSync(outside, join(dir, 'roundtable-20200102T000000Z.db'));
    const refusedLink = await cli(['restore', 'roundtable-20200102T000000Z.db'], env);
    expect(refusedLink.stderr).toContain('is a symlink');
    mkdirSync(join(dir, 'sub'));
    copyFileSync(join(dir, good!), join(dir, 'sub', 'x.db'));
    expect((await cli(['restore', join(dir, 'sub', 'x.db')], env)).stderr).toContain('is not in the backup folder');
    // Nothing was touched by the refusals.
    expect(taskTitles(board.dbPath).has('after the backup')).toBe(true);

    const restored = await cli(['restore', good!], env);
    expect(restored.code, restored.stderr).toBe(0);
    const aside = /kept as (\S+)\./.exec(restored.stdout)![1]!;
    expect(taskTitles(aside).has('after the backup')).toBe(true);
    expect(taskTitles(board.dbPath).has('after the backup')).toBe(false);
    expect(taskTitles(board.dbPath).has('in the backup')).toBe(true);
    const again = await startBoard({ dir: board.dir, tokens: board.tokens });
    try {
      const titles = (await api(again, 'w1', 'list_tasks', {})).body.tasks.map((t: { title: string }) => t.title);
      expect(titles).toEqual(['in the backup']);
    } finally {
      await again.stop();
    }
  });
});
