// The audit log on PostgreSQL: one row per tool call, append-only (a trigger refuses UPDATE, DELETE and TRUNCATE).
import { AUDIT_FILTERS, type AuditEntry, type AuditQuery, type AuditRow, type Face, type LeaseRenewal } from '../store.js';
import { num } from './connection.js';
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

/** An owner's read (issue 36): newest first, each filter an exact match; times compare as the ISO text they are kept as. */
export async function readAudit(db: Db, query: AuditQuery): Promise<AuditEntry[]> {
  const keys = AUDIT_FILTERS.filter((key) => query[key] !== undefined);
  const params: unknown[] = [query.limit];
  const where: string[] = [];
  if (query.beforeId !== undefined) where.push(`id < $${params.push(query.beforeId)}`);
  for (const key of keys) where.push(`${AUDIT_COLUMN[key]} $${params.push(query[key])}`);
  const rows = await db.unsafe<Array<{ id: unknown; at: string; agent: string | null; tool: string; task_id: unknown; outcome: string; face: Face | null }>>(
    `SELECT id, at, agent, tool, task_id, outcome, face FROM audit_log ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT $1`,
    params as never[],
    { prepare: true },
  );
  return rows.map((row) => ({ ...row, id: num(row.id), task_id: row.task_id === null ? null : num(row.task_id) }));
}

const AUDIT_COLUMN = { agent: 'agent =', tool: 'tool =', outcome: 'outcome =', face: 'face =', since: 'at >=', until: 'at <' } as const;
