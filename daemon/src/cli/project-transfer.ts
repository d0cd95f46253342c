// `roundtable projects export SLUG FILE` and `projects import FILE [--as SLUG]`: one project moved to another daemon with
// its history, as one SQLite file (docs/DECISIONS.md, issue 33: export and import of a project).
import { PROJECT_SLUG_PATTERN, PROJECT_SLUG_RULE, projectPrefix } from 'roundtable-shared';
import { addImportedProject, exportedEntry, parseEntry, type ProjectEntry } from '../agents/project-entry.js';
import { projectFiles } from '../process/project-files.js';
import type { Config } from '../runtime/config.js';
import { escapeControls, quoted } from '../runtime/terminal-text.js';
import { installExportFile, ProjectTransferError, readExportFile, writeExportFile } from '../store/project-export.js';
import { agentsTarget } from './agents.js';
import type { Command } from './command.js';

/** The project's board written to `file`: its SQLite file's snapshot, or on PostgreSQL its schema copied into one. */
export async function exportProject(config: Config, options: { slug: string; file: string; entryJson: string }): Promise<{ tasks: number; bytes: number }> {
  if (!config.databaseUrl) return writeExportFile({ dbPath: projectFiles(config, options.slug).dbPath, file: options.file, entryJson: options.entryJson });
  const { writePostgresExport } = await import('../store/transfer/postgres-project.js');
  return writePostgresExport({ url: config.databaseUrl, ...options });
}

async function exportCommand(config: Config, slug: string, file: string): Promise<void> {
  const target = await agentsTarget(config);
  let entry: ProjectEntry;
  try {
    entry = await exportedEntry(target, slug);
  } finally {
    await target.close();
  }
  const { tasks, bytes } = await exportProject(config, { slug, file, entryJson: JSON.stringify(entry) });
  process.stdout.write(
    `Exported project ${slug} to ${escapeControls(file)} (${bytes} bytes, mode 600): ${tasks} task(s) with their history, ${entry.agents.length} agent(s) with token hashes. ` +
      'Not carried: people (grant them on the other daemon) and webhooks (add them again there; their secrets stay here). ' +
      'On the other daemon: roundtable projects import FILE [--as SLUG]\n',
  );
}

/** The export's board installed as project `slug`'s: its SQLite file, or on PostgreSQL its schema. */
async function installProject(config: Config, file: string, slug: string): Promise<{ undo(): void | Promise<void> }> {
  if (!config.databaseUrl) return installExportFile({ file, dbPath: projectFiles(config, slug).dbPath });
  const { installPostgresExport } = await import('../store/transfer/postgres-project.js');
  return installPostgresExport({ url: config.databaseUrl, slug, file });
}

async function importCommand(config: Config, file: string, as: string | undefined): Promise<void> {
  const read = readExportFile(file);
  const entry = parseEntry(read.entryJson, file);
  const slug = as ?? entry.slug;
  const target = await agentsTarget(config);
  try {
    // Every refusal the catalog would give comes before the board is copied, so a refused import writes nothing.
    await addImportedProject(target, entry, slug, { dryRun: true });
    const installed = await installProject(config, file, slug);
    try {
      await addImportedProject(target, entry, slug);
    } catch (error) {
      await installed.undo();
      throw error;
    }
  } finally {
    await target.close();
  }
  process.stdout.write(
    `Imported project ${slug}${slug === entry.slug ? '' : ` (exported as ${entry.slug})`}: ${read.tasks} task(s) with their history, ${entry.agents.length} agent(s) whose tokens work here. ` +
      `${config.databaseUrl ? 'Every daemon on the board serves it within a second' : 'A running daemon serves it within seconds'} at ${projectPrefix(slug)}/. People were not carried: grant them here with \`roundtable people grant NAME ${slug} --role owner|observer\`; webhooks were not carried either.\n`,
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
