// Path reservations on SQLite: the same reads as PostgreSQL's postgres/reservations.ts, as statements prepared once.
// Changes run inside the store's group commit, which has the one write lock: overlapping exclusive claims cannot race.
import type Database from 'better-sqlite3';
import type { Reservation, Task } from 'roundtable-shared';
import { pathsReleasedRow, reservationsChangedRow, type EndedClaim } from '../history-rows.js';
import { changesToRead, toReservation, type ReservationRow } from '../reservation-rows.js';
import type { DecideReservation, NewReservation, ReservationChanges, ReservationLookup, WriteExtras } from '../store.js';
import type { SqliteActivity } from './activity.js';
import type { SqliteAudit } from './audit.js';

const COLUMNS = 'id, task_id, claim_id, agent, scope, pattern, exclusive, reason, created_at';

export class SqliteReservations {
  private readonly stmt;

  constructor(
    db: Database.Database,
    private readonly activity: SqliteActivity,
    private readonly audit: SqliteAudit,
  ) {
    this.stmt = {
      insert: db.prepare(
        `INSERT INTO reservations (task_id, claim_id, agent, scope, pattern, prefix, exclusive, reason, created_at)
         VALUES (@task_id, @claim_id, @agent, @scope, @pattern, @prefix, @exclusive, @reason, @at)
         ON CONFLICT (claim_id, scope, pattern) DO UPDATE SET exclusive = excluded.exclusive, reason = excluded.reason`,
      ),
      deleteOne: db.prepare('DELETE FROM reservations WHERE id = ? AND claim_id = ?'),
      deleteClaim: db.prepare('DELETE FROM reservations WHERE claim_id = ?'),
      ofClaim: db.prepare(`SELECT ${COLUMNS} FROM reservations WHERE claim_id = ? ORDER BY id`),
      ofTask: db.prepare(`SELECT ${COLUMNS} FROM reservations WHERE task_id = ? ORDER BY id`),
      ofAgent: db.prepare('SELECT COUNT(*) FROM reservations WHERE agent = ?').pluck(),
      version: db.prepare('SELECT version FROM reservation_versions WHERE scope = ?').pluck(),
      changedIds: db.prepare('SELECT DISTINCT reservation_id FROM reservation_changes WHERE scope = ? AND version > ? AND version <= ?').pluck(),
      byIds: db.prepare(`SELECT ${COLUMNS} FROM reservations WHERE scope = ? AND id IN (SELECT value FROM json_each(?)) ORDER BY id`),
      inScope: db.prepare(`SELECT ${COLUMNS} FROM reservations WHERE scope = ? ORDER BY id`),
    };
  }

  ofClaim(claimId: number): Reservation[] {
    return (this.stmt.ofClaim.all(claimId) as ReservationRow[]).map(toReservation);
  }

  ofTask(taskId: number): Reservation[] {
    return (this.stmt.ofTask.all(taskId) as ReservationRow[]).map(toReservation);
  }

  /** How the scope changed since `since` (run inside one transaction, or the write's own). */
  changes(scope: string, since: number): ReservationChanges {
    const version = (this.stmt.version.get(scope) as number | undefined) ?? 0;
    const read = changesToRead(since, version);
    if (read === 'nothing') return { scope, since, version, full: false, changed: [], rows: [] };
    if (read === 'none-ever') return { scope, since, version, full: true, changed: [], rows: [] };
    if (read === 'every') return { scope, since, version, full: true, changed: [], rows: (this.stmt.inScope.all(scope) as ReservationRow[]).map(toReservation) };
    const changed = this.stmt.changedIds.all(scope, since, version) as number[];
    const rows = (this.stmt.byIds.all(scope, JSON.stringify(changed)) as ReservationRow[]).map(toReservation);
    return { scope, since, version, full: false, changed, rows };
  }

  private add(row: { taskId: number; claimId: number; agent: string; scope: string; at: string } & NewReservation): void {
    this.stmt.insert.run({
      task_id: row.taskId,
      claim_id: row.claimId,
      agent: row.agent,
      scope: row.scope,
      pattern: row.pattern,
      prefix: row.prefix,
      exclusive: row.exclusive ? 1 : 0,
      reason: row.reason,
      at: row.at,
    });
  }

  /** Adds or removes reservations on the task's current claim as the rule decides, with a history row. */
  changeReservations(task: Task, lookup: ReservationLookup | undefined, decide: DecideReservation, extras: WriteExtras<Reservation[]> | undefined): Reservation[] {
    const own = task.claim_id === null ? [] : this.ofClaim(task.claim_id);
    const sight = lookup && { changes: this.changes(lookup.scope, lookup.since), agentHolds: this.stmt.ofAgent.get(lookup.agent) as number };
    const change = decide(task, own, sight);
    const at = new Date().toISOString();
    for (const id of change.remove) this.stmt.deleteOne.run(id, change.claimId);
    for (const row of change.add) this.add({ ...row, taskId: task.id, claimId: change.claimId, agent: change.actor, scope: change.scope, at });
    if (change.add.length === 0 && change.remove.length === 0) return this.audit.recordExtras(extras, own, task.id);
    this.activity.insertActivity(reservationsChangedRow(task, change, at));
    return this.audit.recordExtras(extras, this.ofClaim(change.claimId), task.id);
  }

  /** Inside a transaction that ended a claim: deletes its reservations and, if it had any, says so in the history. */
  endReservations(ended: EndedClaim): void {
    const count = this.stmt.deleteClaim.run(ended.claimId).changes;
    if (count > 0) this.activity.insertActivity(pathsReleasedRow(ended, count));
  }
}
