// Online backups with SQLite's backup API: server-chosen names, checked before older ones are pruned,
// skipped when the disk is nearly full; and restore, which checks the file and keeps the current database aside.
import { chmodSync, closeSync, copyFileSync, existsSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, realpathSync, renameSync, statfsSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { daemonUsing } from '../runtime/db-lock.js';
import { CODE_SCHEMA_VERSION } from './sqlite/migrate.js';
import { createPrivately } from './sqlite/connection.js';

export const BACKUP_NAME = /^roundtable-\d{8}T\d{6}Z(-\d+)?\.db$/;

export class BackupError extends Error {}

export interface BackupSettings {
  readonly dir: string;
  readonly keep: number;
  readonly minFreeMb: number;
}

export type BackupOutcome =
  | { readonly taken: true; readonly file: string; readonly bytes: number; readonly pruned: readonly string[] }
  | { readonly taken: false; readonly reason: string };

/** The backup folder, created (mode 700) if missing; a symlink is refused. */
function backupDir(dir: string): string {
  if (existsSync(dir)) {
    if (lstatSync(dir).isSymbolicLink()) throw new BackupError(`backup folder ${dir} is a symlink; point ROUNDTABLE_BACKUP_DIR at a real folder`);
  } else {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }
  return dir;
}

function freeMb(dir: string): number {
  const stats = statfsSync(dir);
  return (stats.bavail * stats.bsize) / (1024 * 1024);
}

function newName(dir: string, now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  let name = `roundtable-${stamp}.db`;
  for (let n = 2; existsSync(join(dir, name)); n++) name = `roundtable-${stamp}-${n}.db`;
  return name;
}

/** Opens a database file read-only and checks it: integrity, and a schema this code can run. */
export function checkDatabaseFile(path: string): { schemaVersion: number } {
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new BackupError(`${path} fails PRAGMA integrity_check (${String(integrity)})`);
    const version = (db.prepare('SELECT MAX(version) AS v FROM schema_version').get() as { v: number | null }).v ?? 0;
    if (version > CODE_SCHEMA_VERSION) throw new BackupError(`${path} is at schema version ${version}, newer than this roundtable (${CODE_SCHEMA_VERSION})`);
    return { schemaVersion: version };
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw new BackupError(`${path} is not a usable Roundtable database (${(error as Error).message})`);
  } finally {
    db?.close();
  }
}

/** The newest backups first. */
export function listBackups(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && BACKUP_NAME.test(e.name))
    .map((e) => e.name)
    .sort()
    .reverse();
}

/** How old the newest backup is (Infinity when there is none). */
export function newestBackupAgeMs(dir: string): number {
  const newest = listBackups(dir)[0];
  return newest === undefined ? Number.POSITIVE_INFINITY : Date.now() - statSync(join(dir, newest)).mtimeMs;
}

/** Takes one online backup of an open database; the daemon keeps serving meanwhile. */
export async function takeBackup(db: Database.Database, settings: BackupSettings, now = new Date()): Promise<BackupOutcome> {
  const dir = backupDir(settings.dir);
  const free = freeMb(dir);
  if (free < settings.minFreeMb) {
    return { taken: false, reason: `only ${Math.floor(free)} MB free in ${dir}, below ROUNDTABLE_BACKUP_MIN_FREE_MB=${settings.minFreeMb}` };
  }
  const name = newName(dir, now);
  const partial = join(dir, `.${name}.partial`);
  try {
    // Created 600 first: the backup API would create it 644 less the umask, and a backup holds the whole board.
    createPrivately(partial);
    await db.backup(partial);
    // A backup is one self-contained file: take it out of WAL mode so it has no -wal or -shm companions.
    const copy = new Database(partial);
    try {
      copy.pragma('journal_mode = DELETE');
    } finally {
      copy.close();
    }
    checkDatabaseFile(partial);
    renameSync(partial, join(dir, name));
  } catch (error) {
    for (const leftover of [partial, `${partial}-wal`, `${partial}-shm`, `${partial}-journal`]) if (existsSync(leftover)) unlinkSync(leftover);
    throw error instanceof BackupError ? error : new BackupError(`backup failed: ${(error as Error).message}`);
  }
  // Only now that the new backup is checked are older ones pruned.
  const pruned = listBackups(dir).slice(settings.keep);
  for (const old of pruned) unlinkSync(join(dir, old));
  return { taken: true, file: join(dir, name), bytes: lstatSync(join(dir, name)).size, pruned };
}

/** Backs up a database by path (for `roundtable backup`, alongside a running daemon). */
export async function backupDatabaseFile(dbPath: string, settings: BackupSettings): Promise<BackupOutcome> {
  const db = new Database(dbPath, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    return await takeBackup(db, settings);
  } finally {
    db.close();
  }
}

/** Resolves FILE (a name in the backup folder, or a path inside it) and refuses symlinks and paths outside it. */
export function resolveBackupFile(file: string, dir: string): string {
  const folder = realpathSync(backupDir(dir));
  const candidate = isAbsolute(file) || file.includes('/') ? resolve(file) : join(folder, file);
  if (!existsSync(candidate)) throw new BackupError(`${file}: no such backup; \`roundtable backup --list\` shows them`);
  if (lstatSync(candidate).isSymbolicLink()) throw new BackupError(`${file} is a symlink; restore only from a real file in ${dir}`);
  const real = realpathSync(candidate);
  const inside = relative(folder, real);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside) || dirname(inside) !== '.') {
    throw new BackupError(`${file} is not in the backup folder ${dir}; restore only from files the daemon wrote there`);
  }
  if (!lstatSync(real).isFile()) throw new BackupError(`${file} is not a regular file`);
  return real;
}

/**
 * Replaces the database with a checked backup. Refused while a daemon uses the database.
 * The current database (with its -wal and -shm files) is kept aside, never deleted.
 */
export function restoreBackup(file: string, options: { dbPath: string; backupDir: string; now?: Date }): { restored: string; keptAside: string | undefined } {
  const source = resolveBackupFile(file, options.backupDir);
  const pid = daemonUsing(options.dbPath);
  if (pid !== undefined) throw new BackupError(`a roundtable daemon (pid ${pid}) is using ${options.dbPath}; stop it first, then restore`);
  checkDatabaseFile(source);
  const stamp = (options.now ?? new Date()).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  let keptAside: string | undefined;
  if (existsSync(options.dbPath)) {
    keptAside = `${options.dbPath}.before-restore-${stamp}`;
    renameSync(options.dbPath, keptAside);
    for (const suffix of ['-wal', '-shm']) {
      if (existsSync(options.dbPath + suffix)) renameSync(options.dbPath + suffix, keptAside + suffix);
    }
  }
  const temp = join(dirname(resolve(options.dbPath)), `.${basename(options.dbPath)}.restoring`);
  copyFileSync(source, temp);
  // copyFile keeps the source's mode; a backup taken by an older version may be 644.
  chmodSync(temp, 0o600);
  const fd = openSync(temp, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, options.dbPath);
  return { restored: source, keptAside };
}
