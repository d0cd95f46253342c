// `roundtable projects remove SLUG`: refused while the project has tasks unless --force, which first writes a checked
// backup of its database; then the catalog entry goes (a running daemon closes the project by itself), then its folder.
import { existsSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
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

export async function removeProjectWithFiles(config: Config, target: AgentsTarget, slug: string, force: boolean): Promise<Removal> {
  if (slug === DEFAULT_PROJECT) throw new AgentsFileError(DEFAULT_STAYS);
  if (config.databaseUrl) throw new AgentsFileError('projects remove is not yet available on a PostgreSQL board (its projects come with the PostgreSQL catalog). Nothing removed');
  projectIn(await readCatalogFile(target), slug, target.where);
  const files = projectFiles(config, slug);
  const tasks = taskTotal(files.dbPath, slug);
  if (tasks > 0 && !force) {
    throw new AgentsFileError(
      `project ${quoted(slug)} has ${tasks} task(s); nothing removed. \`roundtable projects remove ${slug} --force\` writes a backup of it first, then removes it`,
    );
  }
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
