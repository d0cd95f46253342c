// The catalog on PostgreSQL (migrations-pg/003_agents.sql, 012_projects.sql: projects, their agents, people and their
// grants), read as agents.json's second spelling holds it, replaced whole in one transaction, and announced with NOTIFY
// so every daemon reloads at once. The rules (one leader, unique names, ...) are not checked here: the caller checks the
// whole result before it hands it over (agents/editing.ts).
import type { Sql } from './connection.js';
import { transaction, type Db, type Tx } from './connection.js';

export const AGENTS_CHANNEL = 'roundtable_agents';
/** Any fixed number: serializes directory edits, so two `roundtable agents` runs cannot both base a write on one read. */
const AGENTS_LOCK = 7_316_002;

/** One agent as agents.json spells it; on PostgreSQL always with token_sha256, never a token. */
export interface StoredAgent {
  name: string;
  role: string;
  skills: string[];
  toolsets?: string[];
  token_sha256: string;
}
export interface StoredProject {
  slug: string;
  title?: string;
  mode: string;
  agents: StoredAgent[];
}
export interface StoredPerson {
  name: string;
  token_sha256: string;
  /** Project slug → owner or observer. */
  grants: Record<string, string>;
}
/** The catalog as agents.json's second spelling holds it (agents/catalog.ts CatalogFile). */
export interface StoredCatalog {
  projects: StoredProject[];
  people: StoredPerson[];
}

/** The catalog, or undefined while it holds no project (a board whose agents were never imported). */
export async function readDirectory(db: Db): Promise<StoredCatalog | undefined> {
  const projects = await db<Array<{ slug: string; title: string | null; mode: string }>>`SELECT slug, title, mode FROM projects ORDER BY position, slug`;
  if (!projects.length) return undefined;
  const agents = await db<Array<{ project: string; name: string; role: string; skills: string[]; toolsets: string[] | null; token_sha256: string }>>`
    SELECT project, name, role, skills, toolsets, token_sha256 FROM agents ORDER BY position, name`;
  const people = await db<Array<{ name: string; token_sha256: string }>>`SELECT name, token_sha256 FROM people ORDER BY position, name`;
  const grants = await db<Array<{ person: string; project: string; role: string }>>`
    SELECT g.person, g.project, g.role FROM grants g JOIN projects p ON p.slug = g.project ORDER BY p.position, p.slug`;
  return {
    projects: projects.map((p) => ({
      slug: p.slug,
      ...(p.title !== null && { title: p.title }),
      mode: p.mode,
      agents: agents
        .filter((a) => a.project === p.slug)
        .map((a) => ({ name: a.name, role: a.role, skills: a.skills, ...(a.toolsets && { toolsets: a.toolsets }), token_sha256: a.token_sha256 })),
    })),
    people: people.map((person) => ({
      name: person.name,
      token_sha256: person.token_sha256,
      grants: Object.fromEntries(grants.filter((g) => g.person === person.name).map((g) => [g.project, g.role])),
    })),
  };
}

/**
 * The directory of a database not yet migrated to 012 (`roundtable doctor` reads without migrating): the first spelling,
 * `{ mode, agents }`, owners and observers among the agents; undefined while empty.
 */
export async function readUnmigratedDirectory(db: Db): Promise<{ mode: string; agents: StoredAgent[] } | undefined> {
  const rows = await db<Array<{ name: string; role: string; skills: string[]; toolsets: string[] | null; token_sha256: string }>>`
    SELECT name, role, skills, toolsets, token_sha256 FROM agents ORDER BY position, name`;
  if (!rows.length) return undefined;
  const [mode] = await db<Array<{ mode: string }>>`SELECT mode FROM agents_mode`;
  return {
    mode: mode?.mode ?? 'role',
    agents: rows.map((r) => ({ name: r.name, role: r.role, skills: r.skills, ...(r.toolsets && { toolsets: r.toolsets }), token_sha256: r.token_sha256 })),
  };
}

async function replaceDirectory(tx: Tx, catalog: StoredCatalog): Promise<void> {
  // Children first; the inserts below go parents first, so every foreign key finds its row.
  await tx`DELETE FROM grants`;
  await tx`DELETE FROM agents`;
  await tx`DELETE FROM people`;
  await tx`DELETE FROM projects`;
  for (const [position, p] of catalog.projects.entries()) {
    await tx`INSERT INTO projects (slug, title, mode, position) VALUES (${p.slug}, ${p.title ?? null}, ${p.mode}, ${position})`;
  }
  let position = 0;
  for (const p of catalog.projects) {
    for (const a of p.agents) {
      await tx`INSERT INTO agents (project, name, position, role, skills, toolsets, token_sha256)
        VALUES (${p.slug}, ${a.name}, ${position++}, ${a.role}, ${JSON.stringify(a.skills)}, ${a.toolsets ? JSON.stringify(a.toolsets) : null}, ${a.token_sha256})`;
    }
  }
  for (const [position, person] of catalog.people.entries()) {
    await tx`INSERT INTO people (name, position, token_sha256) VALUES (${person.name}, ${position}, ${person.token_sha256})`;
    for (const [project, role] of Object.entries(person.grants)) {
      await tx`INSERT INTO grants (person, project, role) VALUES (${person.name}, ${project}, ${role})`;
    }
  }
  // Migration 012 leaves the index out on a board that held two names equal but for case; the first write without them makes it.
  const [folded] = await tx`SELECT to_regclass('agents_project_name_folded') IS NOT NULL AS present`;
  if (!folded?.['present']) await tx`CREATE UNIQUE INDEX agents_project_name_folded ON agents (project, lower(name))`;
  // Delivered on COMMIT, to every daemon's LISTEN.
  await tx`SELECT pg_notify(${AGENTS_CHANNEL}, '')`;
}

/**
 * Reads the directory under a lock, lets `edit` decide, and writes what it returns (nothing when it returns undefined),
 * all in one transaction. `edit` may run more than once (a retried transaction), so it must only decide.
 */
export async function editDirectory<T>(
  sql: Sql,
  edit: (current: StoredCatalog | undefined) => { readonly result: T; readonly write?: StoredCatalog },
): Promise<T> {
  return transaction(sql, async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${AGENTS_LOCK})`;
    const { result, write } = edit(await readDirectory(tx));
    if (write) await replaceDirectory(tx, write);
    return result;
  });
}

/** Calls `changed` on every NOTIFY from an edit, and each time the listening connection (re)connects. */
export async function listenForAgentChanges(sql: Sql, changed: (reason: string) => void): Promise<() => Promise<void>> {
  const meta = await sql.listen(
    AGENTS_CHANNEL,
    () => changed('agents table changed'),
    // Before this LISTEN (at start, or after a lost connection) a NOTIFY may have been missed: look again.
    () => changed('listening'),
  );
  return () => meta.unlisten().catch(() => {});
}
