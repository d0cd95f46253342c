// The SQLite statements for path reservations, prepared once; SqliteStore runs them inside its own transactions.
import type Database from 'better-sqlite3';
import type { Reservation } from 'roundtable-shared';
import type { NewReservation, ReservationLookup } from '../store.js';

interface ReservationRow {
  id: number;
  task_id: number;
  claim_id: number;
  agent: string;
  scope: string;
  pattern: string;
  exclusive: number;
  reason: string | null;
  created_at: string;
}

const COLUMNS = 'id, task_id, claim_id, agent, scope, pattern, exclusive, reason, created_at';

function toReservation(row: ReservationRow): Reservation {
  return { ...row, scope: row.scope === '' ? null : row.scope, exclusive: row.exclusive === 1 };
}

/** The smallest string above every key that starts with `prefix` (which ends in "/"): "src/" -> "src0". */
function pastPrefix(prefix: string): string {
  return `${prefix.slice(0, -1)}0`;
}

export class SqliteReservations {
  private readonly stmt;

  constructor(db: Database.Database) {
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
      // Candidates for a pattern with key K: reservations whose key is K or one of its ancestors (exact lookups), and
      // those whose key starts with K (one index range). Both walk the (scope, prefix) index.
      atPrefix: db.prepare(`SELECT ${COLUMNS} FROM reservations WHERE scope = ? AND prefix = ?`),
      underPrefix: db.prepare(`SELECT ${COLUMNS} FROM reservations WHERE scope = ? AND prefix > ? AND prefix < ?`),
      inScope: db.prepare(`SELECT ${COLUMNS} FROM reservations WHERE scope = ?`),
      page: db.prepare(`SELECT ${COLUMNS} FROM reservations WHERE scope = ? AND id > ? ORDER BY id LIMIT ?`),
    };
  }

  ofClaim(claimId: number): Reservation[] {
    return (this.stmt.ofClaim.all(claimId) as ReservationRow[]).map(toReservation);
  }

  ofTask(taskId: number): Reservation[] {
    return (this.stmt.ofTask.all(taskId) as ReservationRow[]).map(toReservation);
  }

  /** A superset of the live reservations that may overlap a pattern with one of the lookup's keys; each once. */
  near(lookup: ReservationLookup): Reservation[] {
    const found = new Map<number, ReservationRow>();
    const add = (rows: unknown[]) => {
      for (const row of rows as ReservationRow[]) found.set(row.id, row);
    };
    const keys = new Set(lookup.prefixes);
    if (keys.has('')) {
      add(this.stmt.inScope.all(lookup.scope));
    } else {
      const ancestors = new Set<string>(['']);
      for (const key of keys) {
        for (let at = key.indexOf('/'); at !== -1; at = key.indexOf('/', at + 1)) ancestors.add(key.slice(0, at + 1));
        add(this.stmt.underPrefix.all(lookup.scope, key, pastPrefix(key)));
      }
      for (const key of ancestors) add(this.stmt.atPrefix.all(lookup.scope, key));
    }
    return [...found.values()].sort((a, b) => a.id - b.id).map(toReservation);
  }

  page(scope: string, afterId: number, limit: number): Reservation[] {
    return (this.stmt.page.all(scope, afterId, limit) as ReservationRow[]).map(toReservation);
  }

  add(row: { taskId: number; claimId: number; agent: string; scope: string; at: string } & NewReservation): void {
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

  remove(id: number, claimId: number): number {
    return this.stmt.deleteOne.run(id, claimId).changes;
  }

  /** Deletes every reservation of a claim that ended; returns how many there were. */
  endClaim(claimId: number): number {
    return this.stmt.deleteClaim.run(claimId).changes;
  }
}
