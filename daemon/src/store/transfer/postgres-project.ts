// `projects export` and `projects import` on PostgreSQL (issue 33): the export file is the SQLite one (one format,
// store/project-export.ts), made from or copied into the project's schema through a SQLite board in a private folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { SqliteStore } from '../sqlite/index.js';
import { checkExportTarget, installExportFile, ProjectTransferError, writeExportFile } from '../project-export.js';
import { copyBoard } from '../postgres/copy-board.js';
import { copyProjectToSqlite } from './postgres-to-sqlite.js';
import { openMigratedPool } from '../postgres/migrate.js';
import { dropProjectSchema, schemaOf } from '../postgres/project-schema.js';
import { openPool } from '../postgres/connection.js';

/** A folder of this user's only (mode 700), beside `near`, for the SQLite board in between; removed by the caller. */
function scratchBeside(near: string): string {
  return mkdtempSync(join(dirname(resolve(near)), '.roundtable-transfer-'));
}

/** Writes the export of project `slug`'s schema to `file`, as writeExportFile does for a SQLite board. */
export async function writePostgresExport(options: { url: string; slug: string; file: string; entryJson: string }): Promise<{ tasks: number; bytes: number }> {
  // Every refusal about FILE before the board is read.
  checkExportTarget(options.file);
  const scratch = scratchBeside(options.file);
  try {
    const sql = await openMigratedPool(options.url, schemaOf(options.slug));
    const dbPath = join(scratch, 'board.db');
    try {
      await copyProjectToSqlite(sql, dbPath);
    } finally {
      await sql.end({ timeout: 5 });
    }
    return await writeExportFile({ dbPath, file: options.file, entryJson: options.entryJson });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Copies the checked export `file` into the schema of project `slug` (refused unless that schema holds no board yet),
 * its event log and key included. Returns how to drop it again, for when the catalog then refuses the project.
 */
export async function installPostgresExport(options: { url: string; slug: string; file: string }): Promise<{ undo(): Promise<void> }> {
  const scratch = scratchBeside(options.file);
  try {
    const dbPath = join(scratch, 'board.db');
    await installExportFile({ file: options.file, dbPath });
    // Opened as the daemon opens a board: an export from an older release is brought up to this one's schema first.
    const store = new SqliteStore({ path: dbPath });
    try {
      await copyBoard(store.db, options.url, schemaOf(options.slug));
    } catch (error) {
      throw error instanceof ProjectTransferError ? error : new ProjectTransferError(`copying ${options.file} into project ${options.slug}'s schema failed: ${(error as Error).message}; nothing was imported`);
    } finally {
      await store.close();
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return {
    async undo() {
      const sql = openPool({ url: options.url, max: 1 });
      try {
        await dropProjectSchema(sql, options.slug);
      } finally {
        await sql.end({ timeout: 5 });
      }
    },
  };
}
