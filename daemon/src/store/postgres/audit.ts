// The audit log on PostgreSQL: one row per tool call, append-only (a trigger refuses UPDATE, DELETE and TRUNCATE).
import type { AuditRow, WriteExtras } from '../store.js';
import type { Db, Tx } from './connection.js';
import { recordResponse } from './idempotency.js';

export async function appendAudit(db: Db, row: AuditRow): Promise<void> {
  await db`INSERT INTO audit_log (at, agent, tool, task_id, outcome, face) VALUES (${new Date().toISOString()}, ${row.agent}, ${row.tool}, ${row.taskId}, ${row.outcome}, ${row.face ?? null})`;
}

export async function lastSeen(db: Db, names: readonly string[]): Promise<Map<string, string>> {
  const seen = new Map<string, string>();
  if (names.length === 0) return seen;
  const rows = await db<Array<{ agent: string; at: string }>>`
    SELECT a.name AS agent, (SELECT MAX(at) FROM audit_log WHERE agent = a.name) AS at FROM unnest(${[...names]}::text[]) AS a(name)`;
  for (const row of rows) if (row.at) seen.set(row.agent, row.at);
  return seen;
}

/**
 * Inside the caller's transaction: the response under its idempotency key (throwing, so rolling back, if another
 * request took the key first), and the call's audit row.
 */
export async function recordExtras<T>(tx: Tx, extras: WriteExtras<T> | undefined, result: T, taskId: number | null): Promise<T> {
  const audit = extras?.audit;
  // Sent together (postgres.js pipelines the statements of one transaction): one round trip for both.
  await Promise.all([
    recordResponse(tx, extras?.response, result),
    audit &&
      tx`INSERT INTO audit_log (at, agent, tool, task_id, outcome, face) VALUES (${new Date().toISOString()}, ${audit.row.agent}, ${audit.row.tool}, ${audit.row.taskId ?? taskId}, 'ok', ${audit.row.face ?? null})`,
  ]);
  if (audit) audit.written = true;
  return result;
}
