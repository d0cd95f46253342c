// The agents directory on PostgreSQL (migrations-pg/003_agents.sql): read as the same JSON agents.json holds, replaced
// whole in one transaction, and announced with NOTIFY so every daemon reloads at once. The rules (one leader, unique
// names, ...) are not checked here: the caller checks the whole result before it hands it over (agents-admin.ts).
import type { Sql } from './connection.js';
import { transaction, type Db, type Tx } from './connection.js';

export const AGENTS_CHANNEL = 'roundtable_agents';
/** Any fixed number: serializes directory edits, so two `roundtable agents` runs cannot both base a write on one read. */
const AGENTS_LOCK = 7_316_002;

/** One entry as agents.json spells it; on PostgreSQL always with token_sha256, never a token. */
export interface StoredAgent {
  name: string;
  role: string;
  skills: string[];
  toolsets?: string[];
  token_sha256: string;
}
export interface StoredDirectory {
  mode: string;
  agents: StoredAgent[];
}

/** The directory, or undefined while the table is empty. */
export async function readDirectory(db: Db): Promise<StoredDirectory | undefined> {
  const rows = await db<Array<{ name: string; role: string; skills: string[]; toolsets: string[] | null; token_sha256: string }>>`
    SELECT name, role, skills, toolsets, token_sha256 FROM agents ORDER BY position, name`;
  if (!rows.length) return undefined;
  const [mode] = await db<Array<{ mode: string }>>`SELECT mode FROM agents_mode`;
  return {
    mode: mode?.mode ?? 'role',
    agents: rows.map((r) => ({ name: r.name, role: r.role, skills: r.skills, ...(r.toolsets && { toolsets: r.toolsets }), token_sha256: r.token_sha256 })),
  };
}

async function replaceDirectory(tx: Tx, directory: StoredDirectory): Promise<void> {
  await tx`DELETE FROM agents`;
  for (const [position, a] of directory.agents.entries()) {
    await tx`INSERT INTO agents (name, position, role, skills, toolsets, token_sha256)
      VALUES (${a.name}, ${position}, ${a.role}, ${JSON.stringify(a.skills)}, ${a.toolsets ? JSON.stringify(a.toolsets) : null}, ${a.token_sha256})`;
  }
  // Migration 011 leaves the index out on a board that held two names equal but for case; the first write without them makes it.
  const [folded] = await tx`SELECT to_regclass('agents_name_folded') IS NOT NULL AS present`;
  if (!folded?.['present']) await tx`CREATE UNIQUE INDEX agents_name_folded ON agents (lower(name))`;
  await tx`INSERT INTO agents_mode (only_row, mode) VALUES (TRUE, ${directory.mode}) ON CONFLICT (only_row) DO UPDATE SET mode = excluded.mode`;
  // Delivered on COMMIT, to every daemon's LISTEN.
  await tx`SELECT pg_notify(${AGENTS_CHANNEL}, '')`;
}

/**
 * Reads the directory under a lock, lets `edit` decide, and writes what it returns (nothing when it returns undefined),
 * all in one transaction. `edit` may run more than once (a retried transaction), so it must only decide.
 */
export async function editDirectory<T>(
  sql: Sql,
  edit: (current: StoredDirectory | undefined) => { readonly result: T; readonly write?: StoredDirectory },
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
