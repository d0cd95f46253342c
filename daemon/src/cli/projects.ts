// `roundtable projects add|list|rename|remove`: the projects of agents.json's catalog, each a board of its own.
import { BOARD_MODES, type BoardMode, type TaskStatus } from 'roundtable-shared';
import { addProject, readCatalogFile, renameProject, slugMistake } from '../agents/catalog-editing.js';
import { projectFiles } from '../process/project-files.js';
import type { Config } from '../runtime/config.js';
import { quoted } from '../runtime/terminal-text.js';
import { readTaskCounts } from '../store/sqlite/task-counts.js';
import { agentsTarget } from './agents.js';
import type { Command, Invocation } from './command.js';
import { removeProjectWithFiles } from './project-removal.js';
import { tableText } from './table.js';

/** The tasks not yet done or cancelled. */
const UNFINISHED: readonly TaskStatus[] = ['open', 'claimed', 'submitted'];

function applies(config: Config): string {
  return config.databaseUrl ? 'every daemon on the board applies it within a second' : 'a running board applies it within seconds';
}

async function projectsCommand(config: Config, { command, args, values }: Invocation): Promise<void> {
  const target = await agentsTarget(config);
  const [slug] = args;
  try {
    switch (command) {
      case 'projects list': {
        const file = await readCatalogFile(target);
        // The counts come from each project's SQLite file, or on PostgreSQL from each project's schema.
        const pgCounts = config.databaseUrl
          ? await (await import('../store/postgres/task-counts.js')).readProjectTaskCounts(config.databaseUrl, file.projects.map((p) => p.slug))
          : undefined;
        const rows = file.projects.map((p) => {
          const counts = pgCounts ? pgCounts.get(p.slug) : readTaskCounts(projectFiles(config, p.slug).dbPath);
          const open = counts && UNFINISHED.reduce((n, s) => n + counts[s], 0);
          return { slug: p.slug, title: p.title ?? null, mode: p.mode, agents: p.agents.length, open_tasks: open ?? null };
        });
        if (values['json'] === true) return void process.stdout.write(`${JSON.stringify({ projects: rows })}\n`);
        const cells = rows.map((r) => [r.slug, r.mode, String(r.agents), r.open_tasks === null ? '?' : String(r.open_tasks), r.title ?? '-']);
        process.stdout.write(tableText([['SLUG', 'MODE', 'AGENTS', 'OPEN', 'TITLE'], ...cells], { widths: [16, 5, 6, 6], gap: ' ' }));
        const unread = rows.filter((r) => r.open_tasks === null).map((r) => r.slug);
        if (unread.length) {
          process.stdout.write(`OPEN is "?" where the project's database cannot be read by this user (${unread.join(', ')}); run as the daemon's user.\n`);
        }
        return;
      }
      case 'projects add': {
        const mode = (values['mode'] as BoardMode | undefined) ?? 'role';
        const title = typeof values['title'] === 'string' ? values['title'] : undefined;
        await addProject(target, { slug: slug!, mode, title });
        process.stdout.write(
          `Added project ${slug} (${mode} mode, no agents yet); ${applies(config)}. Its URLs are /p/${slug}/mcp, /p/${slug}/api/v1 and the page /p/${slug}/.\n` +
            `Next: \`roundtable agents add NAME --role ${mode === 'peer' ? 'peer' : 'leader'} --project ${slug}\`, and \`roundtable people grant NAME ${slug} --role owner\`.\n`,
        );
        return;
      }
      case 'projects rename': {
        const { from, to } = await renameProject(target, slug!, String(values['title']));
        process.stdout.write(from === to ? `${slug} already has that title; nothing written.\n` : `Renamed ${slug}: title ${from === undefined ? '(none)' : quoted(from)} -> ${quoted(to)}; ${applies(config)}.\n`);
        return;
      }
      case 'projects remove': {
        const removal = await removeProjectWithFiles(config, target, slug!, values['force'] === true);
        const lines = [
          ...(removal.backup ? [`Backup of ${slug} written and checked: ${removal.backup}${config.databaseUrl ? ' (`roundtable projects import` reads it back)' : ''}`] : []),
          `Removed project ${slug}${removal.tasks ? ` with its ${removal.tasks} task(s)` : ''}; ${applies(config)}, and its URLs answer 403 from then on.`,
          ...(removal.grantsRemoved.length ? [`Grants removed with it: ${removal.grantsRemoved.join(', ')}.`] : []),
          ...(removal.folderRemoved ? [`Deleted its folder ${removal.folderRemoved}.`] : []),
          ...(removal.schemaDropped ? [`Dropped its schema ${removal.schemaDropped} with every table of its board.`] : []),
          ...(removal.folderLeft ? [`Its folder ${removal.folderLeft} is still held by a running daemon; delete it once that daemon has closed the project.`] : []),
        ];
        process.stdout.write(`${lines.join('\n')}\n`);
        return;
      }
    }
  } finally {
    await target.close();
  }
}

const SLUG = [{ name: 'SLUG', missing: 'a project SLUG (`roundtable projects list` shows them)' }];
const slugArg = (args: readonly string[]) => (args[0] === undefined ? undefined : slugMistake(args[0]));

export const PROJECTS_COMMANDS: readonly Command[] = [
  { name: 'projects list', usage: 'projects list [--json]', summary: 'slug, mode, agents, open tasks and title of every project', options: ['json'], args: [], run: projectsCommand },
  {
    name: 'projects add',
    usage: `projects add SLUG [--mode ${BOARD_MODES.join('|')}] [--title TEXT]`,
    summary: 'a new project with no agents yet (role mode unless given), served at /p/SLUG/',
    options: ['mode', 'title'],
    args: SLUG,
    misuse: (values, args) =>
      slugArg(args) ?? (values['mode'] !== undefined && !(BOARD_MODES as readonly string[]).includes(String(values['mode'])) ? `--mode must be one of ${BOARD_MODES.join(', ')} (got ${quoted(String(values['mode']))})` : undefined),
    run: projectsCommand,
  },
  {
    name: 'projects rename',
    usage: 'projects rename SLUG --title TEXT',
    summary: "change a project's title (its slug and URLs stay)",
    options: ['title'],
    args: SLUG,
    misuse: (values) => (typeof values['title'] !== 'string' ? 'roundtable projects rename needs --title TEXT' : undefined),
    run: projectsCommand,
  },
  {
    name: 'projects remove',
    usage: 'projects remove SLUG [--force]',
    summary: 'remove a project with no tasks (--force: with its tasks, after a checked backup), its folder and the grants to it',
    options: ['force'],
    args: SLUG,
    run: projectsCommand,
  },
];
