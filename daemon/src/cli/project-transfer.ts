// `roundtable projects export SLUG FILE` and `projects import FILE [--as SLUG]`: one project moved to another daemon with
// its history, as one SQLite file (docs/DECISIONS.md, issue 33: export and import of a project).
import { PROJECT_SLUG_PATTERN, PROJECT_SLUG_RULE, projectPrefix } from 'roundtable-shared';
import { agentsFileTarget } from '../agents/editing.js';
import { addImportedProject, exportedEntry, parseEntry } from '../agents/project-entry.js';
import { projectFiles } from '../process/project-files.js';
import type { Config } from '../runtime/config.js';
import { escapeControls, quoted } from '../runtime/terminal-text.js';
import { installExportFile, ProjectTransferError, readExportFile, writeExportFile } from '../store/project-export.js';
import type { Command } from './command.js';

/**
 * On PostgreSQL a project other than `default` is not served yet (a schema per project is being built), so a project's
 * board can be neither read out to a file nor copied in; refused before anything is read or written.
 * What remains: export = the project's schema copied into a SQLite file (the reverse of store/postgres/copy-board.ts,
 * event_log and event_log_state included), import = copy-board.ts into the project's schema, then the same catalog edit.
 */
function refuseOnPostgres(config: Config, what: 'export' | 'import'): void {
  if (!config.databaseUrl) return;
  throw new ProjectTransferError(
    `projects ${what} works on a SQLite board only for now; this board is on PostgreSQL (ROUNDTABLE_DATABASE_URL). ${
      what === 'export' ? 'Export from a SQLite daemon' : 'Import into a SQLite daemon'
    }, or move the whole board with pg_dump (docs/DEPLOY.md)`,
  );
}

async function exportCommand(config: Config, slug: string, file: string): Promise<void> {
  refuseOnPostgres(config, 'export');
  const target = agentsFileTarget(config.agentsConfigPath);
  const entry = await exportedEntry(target, slug);
  const { tasks, bytes } = await writeExportFile({ dbPath: projectFiles(config, slug).dbPath, file, entryJson: JSON.stringify(entry) });
  process.stdout.write(
    `Exported project ${slug} to ${escapeControls(file)} (${bytes} bytes, mode 600): ${tasks} task(s) with their history, ${entry.agents.length} agent(s) with token hashes. ` +
      'Not carried: people (grant them on the other daemon) and webhooks (add them again there; their secrets stay here). ' +
      'On the other daemon: roundtable projects import FILE [--as SLUG]\n',
  );
}

async function importCommand(config: Config, file: string, as: string | undefined): Promise<void> {
  refuseOnPostgres(config, 'import');
  const read = readExportFile(file);
  const entry = parseEntry(read.entryJson, file);
  const slug = as ?? entry.slug;
  const target = agentsFileTarget(config.agentsConfigPath);
  // Every refusal the catalog would give comes before the board is copied, so a refused import writes nothing.
  await addImportedProject(target, entry, slug, { dryRun: true });
  const installed = await installExportFile({ file, dbPath: projectFiles(config, slug).dbPath });
  try {
    await addImportedProject(target, entry, slug);
  } catch (error) {
    installed.undo();
    throw error;
  }
  process.stdout.write(
    `Imported project ${slug}${slug === entry.slug ? '' : ` (exported as ${entry.slug})`}: ${read.tasks} task(s) with their history, ${entry.agents.length} agent(s) whose tokens work here. ` +
      `A running daemon serves it within seconds at ${projectPrefix(slug)}/. People were not carried: grant them here with \`roundtable people grant NAME ${slug} --role owner|observer\`; webhooks were not carried either.\n`,
  );
}

export const PROJECT_TRANSFER_COMMANDS: readonly Command[] = [
  {
    name: 'projects export',
    usage: 'projects export SLUG FILE',
    summary: "write one project's board, history and agents (token hashes) to FILE, a SQLite file (mode 600), for `projects import` on another daemon",
    options: [],
    args: [
      { name: 'SLUG', missing: 'the SLUG of the project to export (`roundtable projects list` shows them)' },
      { name: 'FILE', missing: 'the FILE to write the export to (it must not exist yet)' },
    ],
    run: (config, { args }) => exportCommand(config, args[0]!, args[1]!),
  },
  {
    name: 'projects import',
    usage: 'projects import FILE [--as SLUG]',
    summary: 'add the project exported to FILE to this daemon (under SLUG with --as); its agents keep their tokens',
    options: ['as'],
    args: [{ name: 'FILE', missing: 'the FILE that `roundtable projects export` wrote' }],
    misuse: (values) =>
      values['as'] !== undefined && !PROJECT_SLUG_PATTERN.test(String(values['as'])) ? `--as must be ${PROJECT_SLUG_RULE} (got ${quoted(String(values['as']))})` : undefined,
    run: (config, { args, values }) => importCommand(config, args[0]!, values['as'] === undefined ? undefined : String(values['as'])),
  },
];

export { ProjectTransferError };
