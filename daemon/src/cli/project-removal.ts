// `roundtable projects remove SLUG`: refused while the project has tasks unless --force, which first writes a checked
// backup of its database; then the catalog entry goes (a running daemon closes the project by itself), then its folder
// (on PostgreSQL: its schema).
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_PROJECT, TASK_STATUSES } from 'roundtable-shared';
import { DEFAULT_STAYS, readCatalogFile, removeProject } from '../agents/catalog-editing.js';
import { AgentsFileError } from '../agents/directory.js';
import { projectIn, type AgentsTarget } from '../agents/editing.js';
import { projectFiles, projectsRoot } from '../process/project-files.js';
import type { Config } from '../runtime/config.js';
import { daemonUsing } from '../runtime/db-lock.js';
import { quoted } from '../runtime/terminal-text.js';
import { backupDatabaseFile, BackupError } from '../store/backup.js';
import { readTaskCounts } from '../store/sqlite/task-counts.js';
import { exportedEntry } from '../agents/project-entry.js';
import { exportProject } from './project-transfer.js';

/** How long a running daemon gets to close the project (it rereads agents.json within a second or two) before its folder goes. */
const LET_GO_MS = 20_000;

export interface Removal {
  readonly backup: string | undefined;
  readonly tasks: number;
  /** The people whose grant to the project went with it. */
  readonly grantsRemoved: readonly string[];
  /** The folder removed; undefined when a daemon still held it (it is then named in `folderLeft`). */
  readonly folderRemoved: string | undefined;
  readonly folderLeft: string | undefined;
  /** On PostgreSQL: the schema dropped with the project's board. */
  readonly schemaDropped?: string | undefined;
}

function taskTotal(dbPath: string, slug: string): number {
  const counts = readTaskCounts(dbPath);
  if (!counts) throw new AgentsFileError(`project ${quoted(slug)}: its database ${dbPath} cannot be read by this user, so its tasks cannot be counted; run as the daemon's user. Nothing removed`);
  return TASK_STATUSES.reduce((n, s) => n + counts[s], 0);
}

async function daemonLetGo(dbPath: string): Promise<boolean> {
  const deadline = Date.now() + LET_GO_MS;
  while (daemonUsing(dbPath) !== undefined) {
    if (Date.now() > deadline) return false;
    await sleep(200);
  }
  return true;
}

/** Refuses a removal without --force while the project has tasks; `tasks` counted by the caller in its store. */
function refuseWithTasks(slug: string, tasks: number, force: boolean): void {
  if (tasks > 0 && !force) {
    throw new AgentsFileError(
      `project ${quoted(slug)} has ${tasks} task(s); nothing removed. \`roundtable projects remove ${slug} --force\` writes a backup of it first, then removes it`,
    );
  }
}

/** A name for the backup `--force` writes on PostgreSQL: the project and the time, UTC, to the second. */
export function removalBackupName(slug: string, now: Date): string {
  return `${slug}-removed-${now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}.export.db`;
}

/**
 * On PostgreSQL: the project's board is its schema. --force first writes its export file (`projects import` reads it
 * back) into the project's backup folder; then the catalog entry and its grants go (every daemon closes the project
 * within a second), then the schema with every table of the board.
 */
async function removePostgresProject(config: Config, url: string, target: AgentsTarget, slug: string, force: boolean): Promise<Removal> {
  const { readProjectTaskCounts } = await import('../store/postgres/task-counts.js');
  const counts = (await readProjectTaskCounts(url, [slug])).get(slug)!;
  const tasks = TASK_STATUSES.reduce((n, s) => n + counts[s], 0);
  refuseWithTasks(slug, tasks, force);
  let backup: string | undefined;
  if (force) {
    const dir = projectFiles(config, slug).backup.dir;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    backup = join(dir, removalBackupName(slug, new Date()));
    const entry = await exportedEntry(target, slug);
    await exportProject(config, { slug, file: backup, entryJson: JSON.stringify(entry) });
  }
  const grantsRemoved = await removeProject(target, slug);
  const { dropProjectSchema, schemaOf } = await import('../store/postgres/project-schema.js');
  const { openPool } = await import('../store/postgres/connection.js');
  const sql = openPool({ url, max: 1 });
  try {
    await dropProjectSchema(sql, slug);
  } finally {
    await sql.end({ timeout: 5 });
  }
  return { backup, tasks, grantsRemoved, folderRemoved: undefined, folderLeft: undefined, schemaDropped: schemaOf(slug) };
}

export async function removeProjectWithFiles(config: Config, target: AgentsTarget, slug: string, force: boolean): Promise<Removal> {
  if (slug === DEFAULT_PROJECT) throw new AgentsFileError(DEFAULT_STAYS);
  projectIn(await readCatalogFile(target), slug, target.where);
  if (config.databaseUrl) return removePostgresProject(config, config.databaseUrl, target, slug, force);
  const files = projectFiles(config, slug);
  const tasks = taskTotal(files.dbPath, slug);
  refuseWithTasks(slug, tasks, force);
  let backup: string | undefined;
  if (force && existsSync(files.dbPath)) {
    const outcome = await backupDatabaseFile(files.dbPath, files.backup);
    if (!outcome.taken) throw new BackupError(`project ${quoted(slug)} not removed: its backup was skipped (${outcome.reason})`);
    backup = outcome.file;
  }
  const grantsRemoved = await removeProject(target, slug);
  const folder = dirname(files.dbPath);
  // Only ever a folder under roundtable-projects/, never the default board's own folder.
  if (dirname(folder) !== projectsRoot(config) || !existsSync(folder)) return { backup, tasks, grantsRemoved, folderRemoved: undefined, folderLeft: undefined };
  if (!(await daemonLetGo(files.dbPath))) return { backup, tasks, grantsRemoved, folderRemoved: undefined, folderLeft: folder };
  rmSync(folder, { recursive: true, force: true });
  return { backup, tasks, grantsRemoved, folderRemoved: folder, folderLeft: undefined };
}
