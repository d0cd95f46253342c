// File modes: the database, its -wal and -shm, the lock file and the backups are private (600) whatever the umask.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { api, daemonEnv, runCli, startBoard } from '../helpers/board.js';

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

let previousUmask: number;
beforeEach(() => {
  // The usual umask, which leaves files SQLite creates readable by everyone (644) unless the daemon sees to it.
  previousUmask = process.umask(0o022);
});
afterEach(() => {
  process.umask(previousUmask);
});

it('with umask 022, the database, -wal, -shm, lock file and a backup are all 600', async () => {
  const board = await startBoard({ env: { ROUNDTABLE_BACKUP_INTERVAL: '0' } });
  try {
    expect((await api(board, 'lead', 'create_task', { title: 'something to back up' })).status).toBe(200);
    const files = ['', '-wal', '-shm', '.lock'].map((suffix) => board.dbPath + suffix);
    for (const file of files) expect(existsSync(file), file).toBe(true);
    expect(Object.fromEntries(files.map((f) => [f, modeOf(f)]))).toEqual(Object.fromEntries(files.map((f) => [f, '600'])));

    const backup = await runCli(['backup'], daemonEnv(board.dir, { ROUNDTABLE_BACKUP_INTERVAL: '0' }));
    expect(backup.code, backup.stderr).toBe(0);
    const folder = join(board.dir, 'backups');
    const taken = readdirSync(folder);
    expect(taken).toHaveLength(1);
    expect(modeOf(join(folder, taken[0]!))).toBe('600');
    expect(modeOf(folder)).toBe('700');
  } finally {
    await board.stop();
  }
});
