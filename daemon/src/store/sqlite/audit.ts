// The audit log on SQLite: one row per tool call, append-only (triggers refuse UPDATE and DELETE). A write's row is
// committed with the write; a read's row rides with the next group commit (see appendAudit).
import type Database from 'better-sqlite3';
import type { AuditRow, WriteExtras } from '../store.js';
import type { GroupCommit } from './group-commit.js';
import type { SqliteIdempotency } from './idempotency.js';

const now = () => new Date().toISOString();

export class SqliteAudit {
  /** Per agent, the time of its newest audit row appended with a later group (see appendAudit). */
  private readonly lastDeferredCall = new Map<string, string>();
  private readonly stmt;

  constructor(
    db: Database.Database,
    private readonly group: GroupCommit,
    private readonly idempotency: SqliteIdempotency,
  ) {
    this.stmt = {
      insertAudit: db.prepare('INSERT INTO audit_log (at, agent, tool, task_id, outcome, face) VALUES (?, ?, ?, ?, ?, ?)'),
      lastSeen: db.prepare('SELECT MAX(at) AS at FROM audit_log WHERE agent = ?').pluck(),
    };
  }

  /** A read's (or a failed call's) row: committed with the next group, or within AUDIT_FLUSH_MS; never waited for. */
  appendAudit(row: AuditRow): void {
    const at = now();
    // last_seen is read from the audit log; a row still waiting for its group is remembered here meanwhile.
    if (row.agent !== null) this.lastDeferredCall.set(row.agent, at);
    this.group.later(() => this.stmt.insertAudit.run(at, row.agent, row.tool, row.taskId, row.outcome, row.face ?? null));
  }

  lastSeen(names: readonly string[]): Map<string, string> {
    const seen = new Map<string, string>();
    for (const name of names) {
      const stored = this.stmt.lastSeen.get(name) as string | null;
      const deferred = this.lastDeferredCall.get(name);
      const at = stored !== null && (deferred === undefined || stored > deferred) ? stored : deferred;
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
      audit.written = true;
    }
    return result;
  }
}
