// What a write records beside its change on PostgreSQL, in the same transaction: the response under the caller's
// idempotency key, the call's audit row and the lease renewal it carries. Every write operation calls down into it.
import type { WriteExtras } from '../store.js';
import type { Tx } from './connection.js';
import { recordResponse } from './idempotency.js';
import { renewLeases } from './lease-renewal.js';

/**
 * Inside the caller's transaction: the response under its idempotency key (throwing, so rolling back, if another
 * request took the key first), and the call's audit row.
 */
export async function recordExtras<T>(tx: Tx, extras: WriteExtras<T> | undefined, result: T, taskId: number | null): Promise<T> {
  const audit = extras?.audit;
  // Sent together (the pool pipelines the statements of one transaction): one round trip for all.
  await Promise.all([
    recordResponse(tx, extras?.response, result),
    audit && tx`INSERT INTO audit_log (at, agent, tool, task_id, outcome, face) VALUES (${new Date().toISOString()}, ${audit.row.agent}, ${audit.row.tool}, ${audit.row.taskId ?? taskId}, 'ok', ${audit.row.face ?? null})`,
    audit?.renewal && renewLeases(tx, audit.renewal.agent, audit.renewal.until, audit.renewal.now),
  ]);
  if (audit) audit.written = true;
  return result;
}
