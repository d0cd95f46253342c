// Idempotency keys on SQLite: a mutation's response is recorded under the caller's key in the mutation's own
// transaction, so a retry replays it.
import type Database from 'better-sqlite3';
import { IdempotencyKeyTaken, type ResponseRecord, type StoredResponse } from '../store.js';

export class SqliteIdempotency {
  private readonly stmt;

  constructor(db: Database.Database) {
    this.stmt = {
      findResponse: db.prepare(
        'SELECT tool, request_hash AS requestHash, response, created_at AS createdAt FROM idempotency_keys WHERE agent = ? AND key = ? AND created_at >= ?',
      ),
      dropExpiredKey: db.prepare('DELETE FROM idempotency_keys WHERE agent = ? AND key = ? AND created_at < ?'),
      insertResponse: db.prepare(
        'INSERT INTO idempotency_keys (agent, key, tool, request_hash, response, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
      ),
      purgeResponses: db.prepare('DELETE FROM idempotency_keys WHERE created_at < ?'),
    };
  }

  /** Inside the caller's transaction; throws (so rolls back) if another request took the key first. */
  recordResponse<T>(record: ResponseRecord<T> | undefined, result: T): void {
    if (!record) return;
    this.stmt.dropExpiredKey.run(record.agent, record.key, record.expiredBefore);
    const { changes } = this.stmt.insertResponse.run(record.agent, record.key, record.tool, record.requestHash, record.render(result), new Date().toISOString());
    if (changes === 0) throw new IdempotencyKeyTaken();
  }

  findResponse(agent: string, key: string, expiredBefore: string): StoredResponse | undefined {
    return this.stmt.findResponse.get(agent, key, expiredBefore) as StoredResponse | undefined;
  }

  purgeResponses(olderThan: string): number {
    return this.stmt.purgeResponses.run(olderThan).changes;
  }
}
