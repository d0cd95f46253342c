// The audit log on PostgreSQL: one row per tool call, append-only (a trigger refuses UPDATE, DELETE and TRUNCATE).
import type { AuditRow, LeaseRenewal, WriteExtras } from '../store.js';
import type { Db, Tx } from './connection.js';
import { recordResponse } from './idempotency.js';
import { renewalStatement, renewLeases } from './leases.js';

/** The row and the renewal in one statement: one commit, so neither stands without the other. */
let auditAndRenewal: string | undefined;

export async function appendAudit(db: Db, row: AuditRow, renewal: LeaseRenewal | undefined): Promise<void> {
  const at = new Date().toISOString();
  if (!renewal) {
    await db`INSERT INTO audit_log (at, agent, tool, task_id, outcome, face) VALUES (${at}, ${row.agent}, ${row.tool}, ${row.taskId}, ${row.outcome}, ${row.face ?? null})`;
    return;
  }
  auditAndRenewal ??= `WITH renewed AS (${renewalStatement(7)}) INSERT INTO audit_log (at, agent, tool, task_id, outcome, face) VALUES ($1, $2, $3, $4, $5, $6)`;
  await db.unsafe(auditAndRenewal, [at, row.agent, row.tool, row.taskId, row.outcome, row.face ?? null, renewal.agent, renewal.until, renewal.now], { prepare: true });
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
  // Sent together (the pool pipelines the statements of one transaction): one round trip for all.
  await Promise.all([
    recordResponse(tx, extras?.response, result),
    audit && tx`INSERT INTO audit_log (at, agent, tool, task_id, outcome, face) VALUES (${new Date().toISOString()}, ${audit.row.agent}, ${audit.row.tool}, ${audit.row.taskId ?? taskId}, 'ok', ${audit.row.face ?? null})`,
    audit?.renewal && renewLeases(tx, audit.renewal.agent, audit.renewal.until, audit.renewal.now),
  ]);
  if (audit) audit.written = true;
  return result;
}
