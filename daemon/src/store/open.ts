// Chooses the board's store from the config: PostgreSQL when ROUNDTABLE_DATABASE_URL is set, else the SQLite file.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { DEFAULT_PROJECT } from 'roundtable-shared';
import type { Sql } from './postgres/connection.js';
import type { Config } from '../runtime/config.js';
import { lockDatabase } from '../runtime/db-lock.js';
import type { SharedState } from './postgres/shared.js';
import type { BoardStore } from './store.js';
import type { SecretLookup, WebhookOutbox } from './webhooks-port.js';
import type { OAuthStore } from './oauth-port.js';

export interface OpenedStore {
  readonly store: BoardStore;
  /** The SQLite handle, for the backup schedule; undefined on PostgreSQL, whose backups are PostgreSQL's own tools. */
  readonly sqlite: Database.Database | undefined;
  /** On PostgreSQL: what several daemons on the board share (events, rate limits, web sessions); else undefined. */
  readonly shared: SharedState | undefined;
  /** On PostgreSQL: the pool, scoped to the project's schema; else undefined. */
  readonly pg: Sql | undefined;
  /** The webhook outbox, for the delivery worker. */
  readonly outbox: WebhookOutbox;
  /** The project's OAuth grants, codes and tokens (issue 34). */
  readonly oauth: OAuthStore;
  /** Closes the store and lets go of the SQLite file's lock. */
  close(): Promise<void>;
}

export interface OpenOptions {
  /** The project's SQLite file (process/project-files.ts); config.dbPath when absent. */
  readonly dbPath?: string | undefined;
  /** The project whose board this is: on PostgreSQL it names the schema (default: the public one). */
  readonly project?: string | undefined;
  /** The SQLite board's webhook secrets (its file is the process's to find); PostgreSQL keeps them in a table. */
  readonly webhookSecrets?: SecretLookup | undefined;
}

export async function openStore(config: Config, options: OpenOptions = {}): Promise<OpenedStore> {
  if (config.databaseUrl) {
    // Loaded only when asked for, so a SQLite board never reads the PostgreSQL driver.
    const [{ PostgresStore }, { startSharedState }, { schemaOf }] = await Promise.all([import('./postgres/index.js'), import('./postgres/shared.js'), import('./postgres/project-schema.js')]);
    const { callMs: requestMs, statementMs, poolWaitMs } = config.deadlines;
    // Each project in its own schema; the daemon's projects share one pool (docs/DECISIONS.md, issue 33).
    const store = await PostgresStore.open({
      url: config.databaseUrl,
      deadlines: { requestMs, statementMs, poolWaitMs },
      eventRetention: config.eventRetention,
      schema: schemaOf(options.project ?? DEFAULT_PROJECT),
      sharePool: true,
    });
    let shared: SharedState;
    try {
      shared = await startSharedState(store.sql);
    } catch (error) {
      await store.close();
      throw error;
    }
    return {
      store,
      sqlite: undefined,
      pg: store.sql,
      shared,
      outbox: store.webhookOutbox(),
      oauth: store.oauthStore(),
      async close() {
        await shared.close();
        await store.close();
      },
    };
  }
  // One daemon per SQLite file: a second one would corrupt nothing, but its in-memory state would disagree.
  const dbPath = options.dbPath ?? config.dbPath;
  mkdirSync(dirname(dbPath), { recursive: true, mode: 0o700 });
  const unlock = lockDatabase(dbPath);
  try {
    const { SqliteStore } = await import('./sqlite/index.js');
    const store = new SqliteStore({
      path: dbPath,
      busyTimeoutMs: config.deadlines.busyMs,
      webhookSecrets: options.webhookSecrets,
      eventRetention: config.eventRetention,
    });
    return {
      store,
      sqlite: store.db,
      pg: undefined,
      shared: undefined,
      outbox: store.webhookOutbox(),
      oauth: store.oauthStore(),
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
