// The audit log on PostgreSQL: one row per tool call, append-only (a trigger refuses UPDATE, DELETE and TRUNCATE).
import type { AuditRow, LeaseRenewal } from '../store.js';
import type { Db } from './connection.js';
import { renewalStatement } from './lease-renewal.js';

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
