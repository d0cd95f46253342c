// Idempotency keys on PostgreSQL: a mutation's response is recorded under the caller's key in the mutation's own
// transaction, so a retry through any daemon on the same database replays it.
import { IdempotencyKeyTaken, type ResponseRecord, type StoredResponse } from '../store.js';
import type { Db, Tx } from './connection.js';

export async function recordResponse<T>(tx: Tx, record: ResponseRecord<T> | undefined, result: T): Promise<void> {
  if (!record) return;
  // Both statements go out together (pipelined, run in order): an expired answer under the key is dropped, then the
  // new one is kept. A concurrent request with the same key waits at the INSERT for the first to commit, then inserts
  // nothing and rolls back.
  const [, inserted] = await Promise.all([
    tx`DELETE FROM idempotency_keys WHERE agent = ${record.agent} AND key = ${record.key} AND created_at < ${record.expiredBefore}`,
    tx`INSERT INTO idempotency_keys (agent, key, tool, request_hash, response, created_at)
      VALUES (${record.agent}, ${record.key}, ${record.tool}, ${record.requestHash}, ${record.render(result)}, ${new Date().toISOString()})
      ON CONFLICT DO NOTHING`,
  ]);
  if (inserted.count === 0) throw new IdempotencyKeyTaken();
}

export async function findResponse(db: Db, agent: string, key: string, expiredBefore: string): Promise<StoredResponse | undefined> {
  const [row] = await db<StoredResponse[]>`SELECT tool, request_hash AS "requestHash", response, created_at AS "createdAt"
    FROM idempotency_keys WHERE agent = ${agent} AND key = ${key} AND created_at >= ${expiredBefore}`;
  return row;
}

export async function purgeResponses(db: Db, olderThan: string): Promise<number> {
  return (await db`DELETE FROM idempotency_keys WHERE created_at < ${olderThan}`).count;
}
