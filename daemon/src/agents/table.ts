// The agents directory on PostgreSQL, for the daemons and `roundtable agents`: the table as an edit target, as a
// source every daemon reloads from on NOTIFY, and the start of a board whose table is still empty.
import { existsSync } from 'node:fs';
import { parseCatalog, type Catalog, type CatalogFile } from './catalog.js';
import { AGENTS_TABLE, hashToken } from './directory.js';
import { importAgents, type AgentsTarget } from './editing.js';
import type { AgentsSource } from './registry.js';
import { AgentsFileError } from './directory.js';
import { log } from '../runtime/log.js';
import { editDirectory, listenForAgentChanges, readDirectory, readUnmigratedDirectory, type StoredCatalog } from '../store/postgres/agents-directory.js';
import { openPool, type Sql } from '../store/postgres/connection.js';
import { openMigratedPool } from '../store/postgres/migrate.js';

const WHERE = AGENTS_TABLE;

/** The catalog as the database keeps it: every token as its hash. */
function storedForm(file: CatalogFile): StoredCatalog {
  return {
    projects: file.projects.map((p) => ({
      slug: p.slug,
      ...(p.title !== undefined && { title: p.title }),
      mode: p.mode,
      agents: p.agents.map(({ token, token_sha256, toolsets, ...entry }) => ({ ...entry, ...(toolsets && { toolsets }), skills: entry.skills ?? [], token_sha256: token_sha256 ?? hashToken(token!) })),
    })),
    people: file.people.map((person) => ({ name: person.name, token_sha256: person.token_sha256 ?? hashToken(person.token!), grants: { ...person.grants } })),
  };
}

export function agentsTableOn(sql: Sql): AgentsTarget {
  return {
    where: WHERE,
    change: (decide) =>
      editDirectory(sql, (current) => {
        const { result, write } = decide(current as CatalogFile | undefined);
        return { result, ...(write && { write: storedForm(write) }) };
      }),
    async close() {},
  };
}

/** The agents table of the board at `url` for one CLI command, its schema brought up to date first (a newer one is refused). */
export async function openAgentsTable(url: string): Promise<AgentsTarget> {
  const sql = await openMigratedPool(url);
  return { ...agentsTableOn(sql), close: () => sql.end({ timeout: 5 }) };
}

/** The table as a daemon's source: read as agents.json's JSON, reloaded on every NOTIFY from an edit. */
export function agentsTableSource(sql: Sql): AgentsSource {
  let stop: (() => Promise<void>) | undefined;
  let closed = false;
  return {
    label: WHERE,
    kind: 'agents table',
    async read() {
      return JSON.stringify((await readDirectory(sql)) ?? { agents: [] });
    },
    watch(changed) {
      listenForAgentChanges(sql, changed).then(
        (unlisten) => (closed ? void unlisten() : (stop = unlisten)),
        (error: unknown) => log.error('listening for changes to the agents table failed; restart the daemon to pick up agent changes', { error: String(error) }),
      );
    },
    async close() {
      closed = true;
      await stop?.();
    },
  };
}

/**
 * A board on PostgreSQL starts from its agents table. While the table is empty, agents.json (ROUNDTABLE_AGENTS_CONFIG)
 * is moved in if it exists; several daemons starting at once import it once. With neither, the start is refused.
 */
export async function prepareAgentsTable(sql: Sql, agentsFile: string): Promise<void> {
  if (await readDirectory(sql)) return;
  if (!existsSync(agentsFile)) {
    throw new AgentsFileError(
      `the agents table is empty and there is no ${agentsFile} to move in; write one with \`roundtable init\`, then \`roundtable agents import ${agentsFile}\` (or start the daemon again)`,
    );
  }
  if (await importAgents(agentsTableOn(sql), agentsFile, { ifEmpty: true })) {
    log.info('the agents table was empty: imported agents.json into it; edit agents with `roundtable agents ...` from now on', { file: agentsFile });
  }
}

/** The directory in the table for `roundtable doctor`, read without migrating; undefined while empty (or not made yet). */
export async function readAgentsTable(url: string): Promise<Catalog | undefined> {
  const sql = openPool({ url, max: 1 });
  try {
    const [table] = await sql`SELECT to_regclass('agents') IS NOT NULL AS present, to_regclass('projects') IS NOT NULL AS catalog`;
    if (!table?.['present']) return undefined;
    // A board from before projects (migration 012 not yet run): its table read as the first spelling.
    const directory = table['catalog'] ? await readDirectory(sql) : await readUnmigratedDirectory(sql);
    return directory && parseCatalog(JSON.stringify(directory), WHERE);
  } finally {
    await sql.end({ timeout: 1 });
  }
}
