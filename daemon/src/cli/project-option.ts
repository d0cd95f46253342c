// `--project SLUG` on the commands that act on one project's board (agents, webhooks, backup): read, checked, and
// resolved to the project's own files; `default` when it is not given.
import { DEFAULT_PROJECT, PROJECT_SLUG_PATTERN, PROJECT_SLUG_RULE } from 'roundtable-shared';
import { loadCatalog } from '../agents/catalog.js';
import { AgentsFileError } from '../agents/directory.js';
import type { Config } from '../runtime/config.js';
import { quoted } from '../runtime/terminal-text.js';
import type { Invocation } from './command.js';

export function projectOption(values: Invocation['values']): string {
  return typeof values['project'] === 'string' ? values['project'] : DEFAULT_PROJECT;
}

/** A usage mistake when --project breaks the slug rule. */
export function projectMisuse(values: Invocation['values']): string | undefined {
  const slug = values['project'];
  return typeof slug === 'string' && !PROJECT_SLUG_PATTERN.test(slug) ? `--project ${quoted(slug)}: a project slug is ${PROJECT_SLUG_RULE}` : undefined;
}

/**
 * Refuses a project the catalog does not hold, before any of its files is made (a slip in --project would otherwise
 * leave a stray database behind). `default` is always there.
 */
export async function requireProject(config: Config, slug: string): Promise<void> {
  if (slug === DEFAULT_PROJECT) return;
  if (config.databaseUrl) {
    // On PostgreSQL the catalog is the agents table (its project's board a schema of its own, made when first opened).
    const { readAgentsTable } = await import('../agents/table.js');
    if (!(await readAgentsTable(config.databaseUrl))?.project(slug)) {
      throw new AgentsFileError(`--project ${quoted(slug)}: no project is called that in the board's agents table; \`roundtable projects list\` shows the slugs`);
    }
    return;
  }
  if (!loadCatalog(config.agentsConfigPath).project(slug)) {
    throw new AgentsFileError(`--project ${quoted(slug)}: no project is called that in ${config.agentsConfigPath}; \`roundtable projects list\` shows the slugs`);
  }
}
