// A project's board as an export file (issue 33): a SQLite database taken with the online backup API plus one table
// holding the project's catalog entry and the format's version; read back and checked; installed as a project's database.
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmdirSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { CODE_SCHEMA_VERSION } from './sqlite/migrate.js';
import { createPrivately } from './sqlite/connection.js';

/** The export file's layout; a reader refuses a newer one rather than guess at it. */
export const EXPORT_FORMAT = 1;
/** The one table an export adds to the board's own; dropped again on import. */
export const EXPORT_TABLE = 'roundtable_export';

/** An export or import refused or failed; the message names the file, the rule and what to do. */
export class ProjectTransferError extends Error {}

export interface ExportRead {
  readonly format: number;
  /** The project's catalog entry as JSON: checked by the catalog's rules (agents/project-entry.ts), not here. */
  readonly entryJson: string;
  readonly schemaVersion: number;
  /** Rows in the board, for the report. */
  readonly tasks: number;
}

/** Removes a partial file and the companions SQLite may have left beside it. */
function removeLeftovers(path: string): void {
  for (const leftover of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) if (existsSync(leftover)) unlinkSync(leftover);
}

/** A dot name beside `path`, so the rename that finishes the write stays on one file system. */
function partialBeside(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.partial`);
}

function flushToDisk(path: string): void {
  const fd = openSync(path, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Refuses an export FILE that exists already or whose folder does not, before anything is read or written. */
export function checkExportTarget(path: string): void {
  const file = resolve(path);
  if (existsSync(file)) throw new ProjectTransferError(`${path} already exists; choose another FILE, or remove that one first`);
  if (!existsSync(dirname(file))) throw new ProjectTransferError(`${path}: the folder ${dirname(file)} does not exist; create it first`);
}

/**
 * Writes the export of the board at `dbPath` (a daemon may be serving it: the backup API copies a consistent snapshot)
 * to `file`, mode 600 from its creation, through a temporary name renamed into place. Webhooks are left out: their
 * signing secrets stay on this daemon (they are not in the database), and a receiver's URL may itself be a secret.
 */
export async function writeExportFile(options: { dbPath: string; file: string; entryJson: string; now?: Date }): Promise<{ tasks: number; bytes: number }> {
  const file = resolve(options.file);
  checkExportTarget(options.file);
  if (!existsSync(options.dbPath)) throw new ProjectTransferError(`the project has no board yet at ${options.dbPath}; start the daemon once so it creates it, then export`);
  const partial = partialBeside(file);
  const source = new Database(options.dbPath, { fileMustExist: true });
  try {
    source.pragma('busy_timeout = 5000');
    // Created 600 first: the backup API would create it 644 less the umask, and the file holds the board and token hashes.
    createPrivately(partial);
    await source.backup(partial);
    const copy = new Database(partial);
    let tasks: number;
    try {
      // One self-contained file, with no -wal or -shm companions.
      copy.pragma('journal_mode = DELETE');
      // Webhooks are not carried, nor apps signed in by OAuth: their tokens were issued for this daemon's URLs (DECISIONS, issue 34).
      copy.exec('DELETE FROM webhook_deliveries; DELETE FROM webhooks; DELETE FROM oauth_tokens; DELETE FROM oauth_codes; DELETE FROM oauth_grants; DELETE FROM oauth_clients;');
      copy.exec(`CREATE TABLE ${EXPORT_TABLE} (id INTEGER PRIMARY KEY CHECK (id = 1), format INTEGER NOT NULL, project TEXT NOT NULL, exported_at TEXT NOT NULL)`);
      copy.prepare(`INSERT INTO ${EXPORT_TABLE} (id, format, project, exported_at) VALUES (1, ?, ?, ?)`).run(EXPORT_FORMAT, options.entryJson, (options.now ?? new Date()).toISOString());
      // The deleted webhook and OAuth rows must not linger in free pages of a file that leaves this machine.
      copy.exec('VACUUM');
      tasks = copy.prepare('SELECT COUNT(*) FROM tasks').pluck().get() as number;
    } finally {
      copy.close();
    }
    readExportFile(partial);
    flushToDisk(partial);
    renameSync(partial, file);
    return { tasks, bytes: statSync(file).size };
  } catch (error) {
    removeLeftovers(partial);
    throw error instanceof ProjectTransferError ? error : new ProjectTransferError(`export failed: ${(error as Error).message}`);
  } finally {
    source.close();
  }
}

/** Opens an export file read-only and checks it: an export, of a format and a schema this code reads, sound. */
export function readExportFile(file: string): ExportRead {
  if (!existsSync(file)) throw new ProjectTransferError(`${file}: no such file`);
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(EXPORT_TABLE) !== undefined;
    if (!hasTable) throw new ProjectTransferError(`${file} is a SQLite database but not a project export (it has no ${EXPORT_TABLE} table); \`roundtable projects export SLUG FILE\` writes one`);
    const row = db.prepare(`SELECT format, project FROM ${EXPORT_TABLE} WHERE id = 1`).get() as { format: unknown; project: unknown } | undefined;
    if (!row || typeof row.format !== 'number' || typeof row.project !== 'string') throw new ProjectTransferError(`${file}: its ${EXPORT_TABLE} table is damaged; export the project again`);
    if (row.format > EXPORT_FORMAT) {
      throw new ProjectTransferError(`${file} is export format ${row.format}, newer than this roundtable reads (${EXPORT_FORMAT}); upgrade roundtable on this machine, then import`);
    }
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new ProjectTransferError(`${file} fails PRAGMA integrity_check; export the project again`);
    const schemaVersion = (db.prepare('SELECT MAX(version) AS v FROM schema_version').get() as { v: number | null }).v ?? 0;
    if (schemaVersion > CODE_SCHEMA_VERSION) {
      throw new ProjectTransferError(`${file} holds a board at schema version ${schemaVersion}, newer than this roundtable (${CODE_SCHEMA_VERSION}); upgrade roundtable on this machine, then import`);
    }
    const tasks = db.prepare('SELECT COUNT(*) FROM tasks').pluck().get() as number;
    return { format: row.format, entryJson: row.project, schemaVersion, tasks };
  } catch (error) {
    if (error instanceof ProjectTransferError) throw error;
    // The driver's message only: never the file's content.
    throw new ProjectTransferError(`${file} is not a project export (${(error as Error).message}); \`roundtable projects export SLUG FILE\` writes one`);
  } finally {
    db?.close();
  }
}

/**
 * Copies a checked export file into place as a project's database (without the export's table), through a temporary
 * name in the same folder, mode 600. Refused when a database is already there. Returns how to take it out again, for
 * when the catalog then refuses the project.
 */
export async function installExportFile(options: { file: string; dbPath: string }): Promise<{ undo(): void }> {
  const { dbPath } = options;
  if (existsSync(dbPath)) {
    throw new ProjectTransferError(`a database already exists at ${dbPath} (left by a project removed from the catalog?); move it aside, then import`);
  }
  const folder = dirname(dbPath);
  const madeFolder = !existsSync(folder);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const partial = partialBeside(dbPath);
  const source = new Database(options.file, { readonly: true, fileMustExist: true });
  try {
    createPrivately(partial);
    await source.backup(partial);
    const copy = new Database(partial);
    try {
      copy.pragma('journal_mode = DELETE');
      copy.exec(`DROP TABLE ${EXPORT_TABLE}`);
    } finally {
      copy.close();
    }
    flushToDisk(partial);
    renameSync(partial, dbPath);
  } catch (error) {
    removeLeftovers(partial);
    throw new ProjectTransferError(`copying ${options.file} into ${dbPath} failed: ${(error as Error).message}; nothing was imported`);
  } finally {
    source.close();
  }
  return {
    undo() {
      removeLeftovers(dbPath);
      if (madeFolder) {
        try {
          // Only the folder this import made, and only when empty.
          rmdirSync(folder);
        } catch {
          // Not empty, or gone: left as it is.
        }
      }
    },
  };
}
