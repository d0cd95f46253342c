// One connection pool per database for every project a daemon serves (issue 33): each project's store borrows it
// scoped to its own schema, so a hundred projects hold the connections of one board, not a hundred pools' worth.
import { openPool, type PoolOptions, type Schema, type Sql } from './connection.js';

interface Entry {
  readonly sql: Sql;
  users: number;
}

const pools = new Map<string, Entry>();

/** A daemon's projects (and its catalog) share a pool when they ask with the same URL, size and deadlines. */
const keyOf = ({ url, max, deadlines: d }: PoolOptions): string => JSON.stringify([url, max ?? null, d ? [d.requestMs, d.statementMs, d.poolWaitMs] : null]);

export interface BorrowedPool {
  /** The shared pool, scoped to `schema`. */
  readonly sql: Sql;
  /** Gives it back; the last one to give it back closes it. */
  release(): Promise<void>;
}

export function borrowPool(options: PoolOptions, schema: Schema): BorrowedPool {
  const key = keyOf(options);
  let entry = pools.get(key);
  if (!entry) pools.set(key, (entry = { sql: openPool(options), users: 0 }));
  entry.users++;
  const held = entry;
  let released = false;
  return {
    sql: held.sql.scoped(schema),
    async release() {
      if (released) return;
      released = true;
      held.users--;
      if (held.users > 0) return;
      if (pools.get(key) === held) pools.delete(key);
      await held.sql.end({ timeout: 1 });
    },
  };
}
