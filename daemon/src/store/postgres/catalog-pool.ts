// The catalog's own connections on PostgreSQL: the agents tables and the web sign-in sessions live beside the
// `default` project's board (the public schema), read before any project opens and shared by all of them.
import type { SharedSessions } from '../shared-sessions.js';
import { openPool, type Deadlines, type Sql } from './connection.js';
import { migratePostgres } from './migrate.js';
import { PostgresSessions } from './sessions.js';

export interface CatalogPool {
  readonly sql: Sql;
  readonly sessions: SharedSessions;
  close(): Promise<void>;
}

/** Two connections (one more for LISTEN), its schema brought up to date first; closed again if that fails. */
export async function openCatalogPool(url: string, deadlines: Deadlines): Promise<CatalogPool> {
  const sql = openPool({ url, max: 2, deadlines });
  try {
    await migratePostgres(sql);
  } catch (error) {
    await sql.end({ timeout: 1 });
    throw error;
  }
  return { sql, sessions: new PostgresSessions(sql), close: () => sql.end() };
}
