// `roundtable migrate --to URL`: the stopped SQLite board, every project of it, copied into an empty PostgreSQL
// database (each project into its schema, the catalog into its tables), its counts checked.
import { existsSync } from 'node:fs';
import { DEFAULT_PROJECT } from 'roundtable-shared';
import type { Config } from '../runtime/config.js';
import { daemonUsing } from '../runtime/db-lock.js';
import { MigrationRefused } from '../store/migration-refused.js';
import { describeDatabase } from '../store/open.js';
import { projectFiles } from '../process/project-files.js';
import type { Command } from './command.js';
import { tableText } from './table.js';

/** The projects agents.json names (only `default` without one), each with its SQLite file when it has one yet. */
async function projectsToCopy(config: Config): Promise<Array<{ slug: string; dbPath: string }>> {
  let slugs = [DEFAULT_PROJECT];
  if (existsSync(config.agentsConfigPath)) {
    const { loadCatalog } = await import('../agents/catalog.js');
    slugs = [DEFAULT_PROJECT, ...loadCatalog(config.agentsConfigPath).projects.map((p) => p.slug).filter((slug) => slug !== DEFAULT_PROJECT)];
  }
  // A project added but never served has no board yet: it starts empty on PostgreSQL too.
  return slugs.map((slug) => ({ slug, dbPath: projectFiles(config, slug).dbPath })).filter((p) => p.slug === DEFAULT_PROJECT || existsSync(p.dbPath));
}

/** Copies the SQLite board at ROUNDTABLE_DB_PATH into an empty PostgreSQL database; the URL is never printed. */
async function migrateCommand(config: Config, to: string): Promise<void> {
  if (!existsSync(config.dbPath)) throw new MigrationRefused(`no SQLite board at ${config.dbPath}; set ROUNDTABLE_DB_PATH to the board to copy`);
  const projects = await projectsToCopy(config);
  for (const { dbPath } of projects) {
    const pid = daemonUsing(dbPath);
    if (pid !== undefined) throw new MigrationRefused(`a roundtable daemon (pid ${pid}) is using ${dbPath}; stop it first, so that no write is left behind`);
  }
  const [{ SqliteStore }, { copyBoard }, { schemaOf }] = await Promise.all([
    import('../store/sqlite/index.js'),
    import('../store/postgres/copy-board.js'),
    import('../store/postgres/project-schema.js'),
  ]);
  const target = describeDatabase({ ...config, databaseUrl: to });
  // One transaction per project: a copy that fails leaves the projects before it copied, and a second run is refused
  // (their schemas are no longer empty); start again from an empty database.
  for (const { slug, dbPath } of projects) {
    const store = new SqliteStore({ path: dbPath });
    try {
      const { rows } = await copyBoard(store.db, to, schemaOf(slug));
      process.stdout.write(`Copied project ${slug} (${dbPath}) into ${target}; every table has as many rows on both sides:\n`);
      process.stdout.write(tableText(Object.entries(rows).map(([table, count]) => [table, String(count)]), { widths: [18], gap: ' ', indent: '  ' }));
    } finally {
      await store.close();
    }
  }
  if (existsSync(config.agentsConfigPath)) {
    const [{ openAgentsTable }, { importAgents }] = await Promise.all([import('../agents/table.js'), import('../agents/editing.js')]);
    const table = await openAgentsTable(to);
    try {
      const moved = await importAgents(table, config.agentsConfigPath, { ifEmpty: true });
      process.stdout.write(moved ? `Moved the projects, agents and people of ${config.agentsConfigPath} into the agents table.\n` : `The agents table already held a catalog; ${config.agentsConfigPath} was left out.\n`);
    } finally {
      await table.close();
    }
  }
  process.stdout.write('Start the daemons with ROUNDTABLE_DATABASE_URL set to that database; keep the SQLite files as a backup.\n');
}

export const MIGRATE: Command = {
  name: 'migrate',
  usage: 'migrate --to postgres://USER@HOST/DB',
  summary: 'copy the SQLite board, every project and the agents file (audit logs included), into an empty PostgreSQL database and check the counts (the board must be stopped)',
  options: ['to'],
  args: [],
  misuse: (values) =>
    typeof values['to'] !== 'string' || !/^postgres(ql)?:\/\/\S+$/.test(values['to'])
      ? 'roundtable migrate needs --to with a PostgreSQL URL such as postgres://roundtable@db.internal/roundtable'
      : undefined,
  run: (config, { values }) => migrateCommand(config, String(values['to'])),
};
