// Chooses the board's store from the config: PostgreSQL when ROUNDTABLE_DATABASE_URL is set, else the SQLite file.
import type Database from 'better-sqlite3';
import type { Config } from '../config.js';
import { lockDatabase } from '../db-lock.js';
import type { BoardStore } from './store.js';

export interface OpenedStore {
  readonly store: BoardStore;
  /** The SQLite handle, for the backup schedule; undefined on PostgreSQL, whose backups are PostgreSQL's own tools. */
  readonly sqlite: Database.Database | undefined;
  /** On PostgreSQL: the connection URL, for the shared event bus and the other shared state. */
  readonly databaseUrl: string | undefined;
  /** Closes the store and lets go of the SQLite file's lock. */
  close(): Promise<void>;
}

export async function openStore(config: Config): Promise<OpenedStore> {
  if (config.databaseUrl) {
    // Loaded only when asked for, so a SQLite board never reads the PostgreSQL driver.
    const { PostgresStore } = await import('./postgres/index.js');
    const store = await PostgresStore.open({ url: config.databaseUrl });
    return { store, sqlite: undefined, databaseUrl: config.databaseUrl, close: () => store.close() };
  }
  // One daemon per SQLite file: a second one would corrupt nothing, but its in-memory state would disagree.
  const unlock = lockDatabase(config.dbPath);
  try {
    const { SqliteStore } = await import('./sqlite.js');
    const store = new SqliteStore({ path: config.dbPath });
    return {
      store,
      sqlite: store.db,
      databaseUrl: undefined,
      async close() {
        await store.close();
        unlock();
      },
    };
  } catch (error) {
    unlock();
    throw error;
  }
}

/** Where the board lives, fit for a log line: the SQLite path, or the PostgreSQL host and database without credentials. */
export function describeDatabase(config: Config): string {
  if (!config.databaseUrl) return config.dbPath;
  try {
    const url = new URL(config.databaseUrl);
    return `postgres://${url.host}${url.pathname}`;
  } catch {
    return 'postgres (the URL does not parse)';
  }
}
