// The audit log on SQLite: one row per tool call, append-only (triggers refuse UPDATE and DELETE). A write's row is
// committed with the write; any other call's row is committed with the next group, before the call is answered.
import type Database from 'better-sqlite3';
import { AUDIT_FILTERS, type AuditEntry, type AuditQuery, type AuditRow, type LeaseRenewal, type WriteExtras } from '../store.js';
import type { GroupCommit } from './group-commit.js';
import type { SqliteIdempotency } from './idempotency.js';

const now = () => new Date().toISOString();

const AUDIT_SQL = {
  agent: 'agent = @agent',
  tool: 'tool = @tool',
  outcome: 'outcome = @outcome',
  face: 'face = @face',
  since: 'at >= @since',
  until: 'at < @until',
} as const;

export class SqliteAudit {
  private readonly stmt;
  /** One prepared statement per combination of filters, made when first asked. */
  private readonly reads = new Map<string, Database.Statement>();

  constructor(
    private readonly db: Database.Database,
    private readonly group: GroupCommit,
    private readonly idempotency: SqliteIdempotency,
    /** The lease renewal a call carries (sqlite/leases.ts), run in the same savepoint as the call's row. */
    private readonly renew: (renewal: LeaseRenewal) => void,
  ) {
    this.stmt = {
      insertAudit: db.prepare('INSERT INTO audit_log (at, agent, tool, task_id, outcome, face) VALUES (?, ?, ?, ?, ?, ?)'),
      lastSeen: db.prepare('SELECT MAX(at) AS at FROM audit_log WHERE agent = ?').pluck(),
    };
  }

  /**
   * A read's, a replay's or a failed call's row, with the call's lease renewal: one savepoint in the next group
   * commit, which the call waits for. A row the disk cannot take fails the call rather than vanish after its answer.
   */
  appendAudit(row: AuditRow, renewal: LeaseRenewal | undefined): Promise<void> {
    return this.group.write(() => {
      this.stmt.insertAudit.run(now(), row.agent, row.tool, row.taskId, row.outcome, row.face ?? null);
      if (renewal) this.renew(renewal);
    });
  }

  /** An owner's read (issue 36): newest first, each filter an exact match; times compare as the ISO text they are kept as. */
  readAudit(query: AuditQuery): AuditEntry[] {
    const keys = AUDIT_FILTERS.filter((key) => query[key] !== undefined);
    const key = `${query.beforeId !== undefined}:${keys.join(',')}`;
    let stmt = this.reads.get(key);
    if (!stmt) {
      const where = [...(query.beforeId !== undefined ? ['id < @beforeId'] : []), ...keys.map((k) => AUDIT_SQL[k])];
      stmt = this.db.prepare(
        `SELECT id, at, agent, tool, task_id, outcome, face FROM audit_log ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT @limit`,
      );
      this.reads.set(key, stmt);
    }
    const params: Record<string, unknown> = { limit: query.limit };
    if (query.beforeId !== undefined) params['beforeId'] = query.beforeId;
    for (const k of keys) params[k] = query[k];
    return stmt.all(params) as AuditEntry[];
  }

  lastSeen(names: readonly string[]): Map<string, string> {
    const seen = new Map<string, string>();
    for (const name of names) {
      const at = this.stmt.lastSeen.get(name) as string | null;
      if (at) seen.set(name, at);
    }
    return seen;
  }

  /**
   * Inside the caller's transaction: the response under its idempotency key (throwing, so rolling back, if another
   * request took the key first), and the call's audit row.
   */
  recordExtras<T>(extras: WriteExtras<T> | undefined, result: T, taskId: number | null): T {
    this.idempotency.recordResponse(extras?.response, result);
    const audit = extras?.audit;
    if (audit) {
      this.stmt.insertAudit.run(now(), audit.row.agent, audit.row.tool, audit.row.taskId ?? taskId, 'ok', audit.row.face ?? null);
      if (audit.renewal) this.renew(audit.renewal);
      audit.written = true;
    }
    return result;
  }
}
