// `roundtable migrate --to URL`: the stopped SQLite board copied into an empty PostgreSQL database, its counts checked.
import { existsSync } from 'node:fs';
import type { Config } from '../runtime/config.js';
import { daemonUsing } from '../runtime/db-lock.js';
import { MigrationRefused } from '../store/migration-refused.js';
import { describeDatabase } from '../store/open.js';
import type { Command } from './command.js';
import { tableText } from './table.js';

/** Copies the SQLite board at ROUNDTABLE_DB_PATH into an empty PostgreSQL database; the URL is never printed. */
async function migrateCommand(config: Config, to: string): Promise<void> {
  if (!existsSync(config.dbPath)) throw new MigrationRefused(`no SQLite board at ${config.dbPath}; set ROUNDTABLE_DB_PATH to the board to copy`);
  const pid = daemonUsing(config.dbPath);
  if (pid !== undefined) throw new MigrationRefused(`a roundtable daemon (pid ${pid}) is using ${config.dbPath}; stop it first, so that no write is left behind`);
  const [{ SqliteStore }, { copyBoard }] = await Promise.all([import('../store/sqlite/index.js'), import('../store/postgres/copy-board.js')]);
  const store = new SqliteStore({ path: config.dbPath });
  try {
    const { rows } = await copyBoard(store.db, to);
    const target = describeDatabase({ ...config, databaseUrl: to });
    process.stdout.write(`Copied ${config.dbPath} into ${target}; every table has as many rows on both sides:\n`);
    process.stdout.write(tableText(Object.entries(rows).map(([table, count]) => [table, String(count)]), { widths: [18], gap: ' ', indent: '  ' }));
    process.stdout.write('Start the daemons with ROUNDTABLE_DATABASE_URL set to that database; keep the SQLite file as a backup.\n');
  } finally {
    await store.close();
  }
}

export const MIGRATE: Command = {
  name: 'migrate',
  usage: 'migrate --to postgres://USER@HOST/DB',
  summary: 'copy the SQLite board (audit log included) into an empty PostgreSQL database and check the counts (the board must be stopped)',
  options: ['to'],
  args: [],
  misuse: (values) =>
    typeof values['to'] !== 'string' || !/^postgres(ql)?:\/\/\S+$/.test(values['to'])
      ? 'roundtable migrate needs --to with a PostgreSQL URL such as postgres://roundtable@db.internal/roundtable'
      : undefined,
  run: (config, { values }) => migrateCommand(config, String(values['to'])),
};
