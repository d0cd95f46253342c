// The PostgreSQL connection pool and the one way writes run: BEGIN ... COMMIT, retried when PostgreSQL says so.
import postgres from 'postgres';

/** What the store's concerns query through: the pool, or a transaction. */
export type Db = postgres.ISql;
export type Tx = postgres.TransactionSql;

export interface PoolOptions {
  readonly url: string;
  /** Connections in the pool; LISTEN takes one more of its own. */
  readonly max?: number;
}

/** How long a transaction may wait for its daemon before PostgreSQL ends it (and frees its locks). */
export const IDLE_IN_TRANSACTION_MS = 30_000;

export function openPool(options: PoolOptions): postgres.Sql {
  return postgres(options.url, {
    max: options.max ?? 10,
    // Notices (e.g. "relation already exists, skipping") are PostgreSQL talking to a DBA, not to the daemon's log.
    onnotice: () => {},
    // COUNT(*) and other bigints arrive as numbers: every count and id on a board fits in 2^53.
    types: { bigint: { to: 20, from: [20], serialize: (value: number) => String(value), parse: (value: string) => Number(value) } },
    transform: { undefined: null },
    // A daemon never leaves a transaction waiting on itself; one whose machine vanished mid-transaction (no reset sent)
    // would otherwise hold its row locks until TCP keepalive notices, hours later. PostgreSQL ends it after this.
    connection: { application_name: 'roundtable', idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS },
    // Reconnecting after a drop: at most 2 s between attempts, not the driver's default of up to 20 s, so that after a
    // database restart the LISTEN connection (cross-daemon wake-ups) is back within about 2 s of the database.
    backoff: (attempt: number) => Math.min(0.05 * 2 ** attempt, 2),
  });
}

/** A deadlock or a serialization failure: PostgreSQL rolled the transaction back, and running it again is correct. */
function isRetryable(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === '40001' || code === '40P01';
}

/**
 * Runs `body` in one transaction. The body may run more than once (after a deadlock between daemons), so it must be
 * a pure function of what it reads inside the transaction, as the board's rules are.
 */
export async function transaction<T>(sql: postgres.Sql, body: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return (await sql.begin((tx) => body(tx))) as T;
    } catch (error) {
      if (attempt >= 5 || !isRetryable(error)) throw error;
    }
  }
}

/** A number from a row (ids and counts arrive as numbers or, for bigint, as strings). */
export const num = (value: unknown): number => Number(value);
