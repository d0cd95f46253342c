// `roundtable backup` and `roundtable restore`: the SQLite board's online backups; a PostgreSQL board uses PostgreSQL's tools.
import { existsSync } from 'node:fs';
import { projectFiles, type ProjectFiles } from '../process/project-files.js';
import type { Config } from '../runtime/config.js';
import { escapeControls } from '../runtime/terminal-text.js';
import { backupDatabaseFile, BackupError, listBackups, restoreBackup } from '../store/backup.js';
import type { Command, Invocation } from './command.js';
import { projectMisuse, projectOption, requireProject } from './project-option.js';

/** On PostgreSQL, backups are PostgreSQL's own: the board does not wrap pg_dump (docs/DECISIONS.md, issue 16). */
const POSTGRES_BACKUPS =
  "the board is on PostgreSQL (ROUNDTABLE_DATABASE_URL): back it up and restore it with PostgreSQL's own tools, e.g. `pg_dump --format=custom --file=board.dump DBNAME` and `pg_restore`, or base backups with WAL archiving (docs/DEPLOY.md)";

/** The project's database and backup folder (`default`: the board's own), once the catalog is known to hold it. */
async function filesOf(config: Config, values: Invocation['values']): Promise<ProjectFiles> {
  const project = projectOption(values);
  await requireProject(config, project);
  return projectFiles(config, project);
}

async function backupCommand(config: Config, values: Invocation['values']): Promise<void> {
  if (config.databaseUrl) throw new BackupError(POSTGRES_BACKUPS);
  const files = await filesOf(config, values);
  if (values['list'] === true) {
    for (const name of listBackups(files.backup.dir)) process.stdout.write(`${name}\n`);
    return;
  }
  if (!existsSync(files.dbPath)) throw new BackupError(`${files.dbPath} does not exist yet: the project's board is made when a daemon first serves it; nothing to back up`);
  const outcome = await backupDatabaseFile(files.dbPath, files.backup);
  if (!outcome.taken) throw new BackupError(`backup skipped: ${outcome.reason}`);
  process.stdout.write(`Backup written and checked: ${outcome.file} (${outcome.bytes} bytes)${outcome.pruned.length ? `; pruned ${outcome.pruned.length} old` : ''}\n`);
}

async function restoreCommand(config: Config, file: string, values: Invocation['values']): Promise<void> {
  if (config.databaseUrl) throw new BackupError(POSTGRES_BACKUPS);
  const { dbPath, backup } = await filesOf(config, values);
  const { restored, keptAside } = restoreBackup(file, { dbPath, backupDir: backup.dir });
  process.stdout.write(`Restored ${dbPath} from ${escapeControls(restored)}.${keptAside ? ` The previous database is kept as ${keptAside}.` : ''}\n`);
}

export const BACKUP: Command = {
  name: 'backup',
  usage: 'backup [--list] [--project SLUG]',
  summary: "take an online backup of the project's board now (or list them; default: the project default)",
  options: ['list', 'project'],
  args: [],
  misuse: projectMisuse,
  run: (config, { values }) => backupCommand(config, values),
};

export const RESTORE: Command = {
  name: 'restore',
  usage: 'restore FILE [--project SLUG]',
  summary: "replace the project's database with a checked backup (the board must be stopped)",
  options: ['project'],
  args: [{ name: 'FILE', missing: 'a FILE from `roundtable backup --list`' }],
  misuse: projectMisuse,
  run: (config, { args, values }) => restoreCommand(config, args[0]!, values),
};
