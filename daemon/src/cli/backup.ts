// `roundtable backup` and `roundtable restore`: the SQLite board's online backups; a PostgreSQL board uses PostgreSQL's tools.
import type { Config } from '../runtime/config.js';
import { escapeControls } from '../runtime/terminal-text.js';
import { backupDatabaseFile, BackupError, listBackups, restoreBackup } from '../store/backup.js';
import type { Command } from './command.js';

/** On PostgreSQL, backups are PostgreSQL's own: the board does not wrap pg_dump (docs/DECISIONS.md, issue 16). */
const POSTGRES_BACKUPS =
  "the board is on PostgreSQL (ROUNDTABLE_DATABASE_URL): back it up and restore it with PostgreSQL's own tools, e.g. `pg_dump --format=custom --file=board.dump DBNAME` and `pg_restore`, or base backups with WAL archiving (docs/DEPLOY.md)";

async function backupCommand(config: Config, list: boolean): Promise<void> {
  if (config.databaseUrl) throw new BackupError(POSTGRES_BACKUPS);
  if (list) {
    for (const name of listBackups(config.backup.dir)) process.stdout.write(`${name}\n`);
    return;
  }
  const outcome = await backupDatabaseFile(config.dbPath, config.backup);
  if (!outcome.taken) throw new BackupError(`backup skipped: ${outcome.reason}`);
  process.stdout.write(`Backup written and checked: ${outcome.file} (${outcome.bytes} bytes)${outcome.pruned.length ? `; pruned ${outcome.pruned.length} old` : ''}\n`);
}

function restoreCommand(config: Config, file: string): void {
  if (config.databaseUrl) throw new BackupError(POSTGRES_BACKUPS);
  const { restored, keptAside } = restoreBackup(file, { dbPath: config.dbPath, backupDir: config.backup.dir });
  process.stdout.write(`Restored ${config.dbPath} from ${escapeControls(restored)}.${keptAside ? ` The previous database is kept as ${keptAside}.` : ''}\n`);
}

export const BACKUP: Command = {
  name: 'backup',
  usage: 'backup [--list]',
  summary: 'take an online backup now (or list them)',
  options: ['list'],
  args: [],
  run: (config, { values }) => backupCommand(config, values['list'] === true),
};

export const RESTORE: Command = {
  name: 'restore',
  usage: 'restore FILE',
  summary: 'replace the database with a checked backup (the board must be stopped)',
  options: [],
  args: [{ name: 'FILE', missing: 'a FILE from `roundtable backup --list`' }],
  run: (config, { args }) => restoreCommand(config, args[0]!),
};
