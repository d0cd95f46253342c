// Tool-call rate limits shared by every daemon on the database: the same token bucket as rate-limit.ts, kept in a
// row and updated in one statement on the database's clock, so an agent has one budget whichever daemon it calls.
import type { Sql } from './connection.js';
import type { RateLimit } from '../../runtime/rate-limit.js';

/** The bucket refilled up to now (old row `b`, the clock in `excluded.updated_ms`), before this take. */
const REFILLED = 'LEAST($2::float8, b.tokens + GREATEST(0, excluded.updated_ms - b.updated_ms) * $3::float8)';

// The upsert locks the row, so concurrent takes through several daemons queue: no token is spent twice.
const TAKE = `INSERT INTO rate_buckets AS b (key, tokens, updated_ms, spent)
  VALUES ($1, $2::float8 - 1, EXTRACT(EPOCH FROM clock_timestamp())::float8 * 1000, TRUE)
  ON CONFLICT (key) DO UPDATE SET
    tokens = ${REFILLED} - CASE WHEN ${REFILLED} >= 1 THEN 1 ELSE 0 END,
    spent = ${REFILLED} >= 1,
    updated_ms = GREATEST(b.updated_ms, excluded.updated_ms)
  RETURNING tokens, spent`;

export class PostgresRateLimiter implements RateLimit {
  private readonly capacity: number;
  private readonly refillPerMs: number;
  private readonly prefix: string;

  constructor(
    private readonly sql: Sql,
    options: { readonly perMinute: number; readonly namespace: string },
  ) {
    this.capacity = options.perMinute;
    this.refillPerMs = options.perMinute / 60_000;
    this.prefix = `${options.namespace}:`;
  }

  /** Takes one token; returns 0 when allowed, else the whole seconds to wait. */
  async take(key: string): Promise<number> {
    const [row] = await this.sql.unsafe<Array<{ tokens: number; spent: boolean }>>(TAKE, [this.prefix + key, this.capacity, this.refillPerMs], { prepare: true });
    if (row!.spent) return 0;
    return Math.max(1, Math.ceil((1 - Number(row!.tokens)) / this.refillPerMs / 1000));
  }
}
