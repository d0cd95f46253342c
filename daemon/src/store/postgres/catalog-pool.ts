// The catalog's connections on PostgreSQL: the agents tables and the web sign-in sessions live beside the
// `default` project's board (the public schema), read before any project opens and shared by all of them.
import type { SharedSessions } from '../shared-sessions.js';
import type { Deadlines, Sql } from './connection.js';
import { borrowPool } from './shared-pool.js';
import { migratePostgres } from './migrate.js';
import { PostgresSessions } from './sessions.js';

export interface CatalogPool {
  readonly sql: Sql;
  readonly sessions: SharedSessions;
  close(): Promise<void>;
}

/**
 * The daemon's shared pool (shared-pool.ts), the one its projects' stores borrow, so the catalog adds no connection and
 * no second LISTEN connection of its own; its schema brought up to date first, given back again if that fails.
 */
export async function openCatalogPool(url: string, deadlines: Deadlines): Promise<CatalogPool> {
  const borrowed = borrowPool({ url, deadlines }, undefined);
  try {
    await migratePostgres(borrowed.sql);
  } catch (error) {
    await borrowed.release();
    throw error;
  }
  return { sql: borrowed.sql, sessions: new PostgresSessions(borrowed.sql), close: () => borrowed.release() };
}
