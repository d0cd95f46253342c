// The SQLite database file and the settings every board runs with: WAL, synchronous=FULL, foreign keys, a page cache.
import { closeSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { Unavailable } from '../../errors.js';

/**
 * Creates a missing database file with mode 600 before SQLite opens it: SQLite would create it 644 less the umask,
 * and it gives the -wal and -shm files the database file's mode, so all three stay private to the daemon's user.
 * An existing file keeps the mode its owner gave it.
 */
export function createPrivately(path: string): void {
  if (path === ':memory:' || path === '') return;
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

export interface DatabaseOptions {
  readonly path: string;
  readonly busyTimeoutMs?: number;
}

export function openDatabase(options: DatabaseOptions): Database.Database {
  createPrivately(options.path);
  const db = new Database(options.path);
  db.pragma('journal_mode = WAL');
  // FULL: a write is on disk before it is acknowledged, so it survives a power loss.
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  // After a checkpoint the WAL file is cut back to this size, so it does not stay as large as its largest burst.
  db.pragma('journal_size_limit = 67108864');
  // SQLite's default page cache is 2 MB; at a million tasks the index pages the hot calls walk no longer fit, and
  // every call would reread them from the OS. 64 MB holds them (it is an upper bound, taken only as pages are read).
  db.pragma('cache_size = -65536');
  return db;
}

/**
 * What a failed write means for the caller. Unless its fsync failed, SQLite rolled the write back, so nothing was changed: a full
 * disk (SQLITE_FULL), or another process holding the file's lock past busy_timeout (SQLITE_BUSY). Anything else is
 * left as it is (and becomes `internal`).
 */
export function storeFailure(error: unknown): unknown {
  const { code, syscall } = (error ?? {}) as { code?: unknown; syscall?: unknown };
  if (typeof code !== 'string') return error;
  // The group's fsync of the WAL (group-commit.ts) failed after its commit: the change may stand, and the store takes
  // no more writes until the daemon restarts.
  if (syscall === 'fdatasync') return new Unavailable(code === 'ENOSPC' ? 'disk_full' : 'unreachable', 'unknown', { cause: error });
  if (code === 'SQLITE_FULL') return new Unavailable('disk_full', 'no');
  if (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_')) return new Unavailable('deadline', 'no');
  return error;
}
