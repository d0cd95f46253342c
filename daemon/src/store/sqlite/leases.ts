// Claim leases on SQLite: renewal, the sweep that reopens lapsed claims, and what a stale claim id is told.
// The sweep's update is conditional on the claim still being there and lapsed: a second sweeper changes nothing.
import type Database from 'better-sqlite3';
import { toClaimRecord, type ClaimEndRow, type ClaimRow } from '../claim-rows.js';
import { leaseExpiredRow, type LapsedClaim } from '../history-rows.js';
import type { ClaimRecord, ExpiredLease, Holding, LeaseView } from '../store.js';
import type { SqliteActivity } from './activity.js';
import type { SqliteReservations } from './reservations.js';
import type { SqliteTasks } from './tasks.js';

export class SqliteLeases {
  private readonly stmt;

  constructor(
    db: Database.Database,
    private readonly deps: { readonly activity: SqliteActivity; readonly reservations: SqliteReservations; readonly tasks: SqliteTasks },
  ) {
    this.stmt = {
      markClaimLapsed: db.prepare('UPDATE claims SET lapsed_at = ? WHERE id = ?'),
      // The partial index on lease_expires_at finds what is due without looking at unclaimed tasks.
      dueLeases: db.prepare(
        'SELECT id, assignee, claim_id, lease_expires_at FROM tasks WHERE lease_expires_at <= ? ORDER BY lease_expires_at LIMIT 500',
      ),
      // Conditional: only the claim that lapsed, only if it is still there; a second sweeper changes nothing.
      expireLease: db.prepare(
        `UPDATE tasks SET status = 'open', assignee = NULL, claim_id = NULL, lease_expires_at = NULL, updated_at = @at
         WHERE id = @id AND status = 'claimed' AND claim_id = @claim_id AND lease_expires_at <= @now`,
      ),
      renewLeases: db.prepare(
        "UPDATE tasks SET lease_expires_at = @until WHERE assignee = @agent AND status = 'claimed' AND lease_expires_at > @now AND lease_expires_at < @until",
      ),
      leasesHeldBy: db.prepare(
        "SELECT id AS task_id, claim_id, lease_expires_at FROM tasks WHERE assignee = ? AND status = 'claimed' AND lease_expires_at IS NOT NULL ORDER BY id",
      ),
      nextLeaseExpiry: db.prepare('SELECT MIN(lease_expires_at) FROM tasks WHERE lease_expires_at IS NOT NULL').pluck(),
      claimById: db.prepare('SELECT id, agent, claimed_at, lapsed_at FROM claims WHERE task_id = ? AND id = ?'),
      latestClaimBy: db.prepare('SELECT id, agent, claimed_at, lapsed_at FROM claims WHERE task_id = ? AND agent = ? ORDER BY id DESC LIMIT 1'),
      claimEnd: db.prepare("SELECT action, agent, created_at FROM activity WHERE task_id = ? AND claim_id = ? AND action != 'claimed' ORDER BY id DESC LIMIT 1"),
      countExpiredSince: db.prepare("SELECT COUNT(*) FROM activity WHERE action = 'lease_expired' AND created_at >= ?").pluck(),
      // Per agent, on the (assignee, status, id) index: what one member holds, however large the board.
      holdingsOf: db.prepare("SELECT id, title, status, claim_id, lease_expires_at FROM tasks WHERE assignee = ? AND status = 'claimed' ORDER BY id"),
    };
  }

  expireLeases(at: string): ExpiredLease[] {
    const expired: ExpiredLease[] = [];
    for (const due of this.stmt.dueLeases.all(at) as LapsedClaim[]) {
      if (this.stmt.expireLease.run({ id: due.id, claim_id: due.claim_id, now: at, at }).changes === 0) continue;
      this.stmt.markClaimLapsed.run(due.lease_expires_at, due.claim_id);
      this.deps.activity.insertActivity(leaseExpiredRow(due, at));
      this.deps.reservations.endReservations({ taskId: due.id, claimId: due.claim_id, status: 'open', assignee: null, how: 'lease_expired', at });
      const task = this.deps.tasks.loadTask(due.id);
      expired.push({ task, holder: due.assignee, claimId: due.claim_id, expiredAt: due.lease_expires_at });
    }
    return expired;
  }

  renewLeases(agent: string, until: string, at: string): number {
    return this.stmt.renewLeases.run({ agent, until, now: at }).changes;
  }

  leasesHeldBy(agent: string): LeaseView[] {
    return this.stmt.leasesHeldBy.all(agent) as LeaseView[];
  }

  nextLeaseExpiry(): string | null {
    return (this.stmt.nextLeaseExpiry.get() as string | null) ?? null;
  }

  findClaim(taskId: number, by: { readonly claimId: number } | { readonly agent: string }): ClaimRecord | undefined {
    const row = ('claimId' in by ? this.stmt.claimById.get(taskId, by.claimId) : this.stmt.latestClaimBy.get(taskId, by.agent)) as ClaimRow | undefined;
    if (!row) return undefined;
    const end = this.stmt.claimEnd.get(taskId, row.id) as ClaimEndRow | undefined;
    return toClaimRecord(row, end);
  }

  countExpiredLeasesSince(since: string): number {
    return this.stmt.countExpiredSince.get(since) as number;
  }

  /** Tasks each of `agents` holds (claimed) now. */
  holdings(agents: readonly string[]): Map<string, Holding[]> {
    const held = new Map<string, Holding[]>();
    for (const agent of agents) {
      const rows = this.stmt.holdingsOf.all(agent) as Holding[];
      if (rows.length > 0) held.set(agent, rows);
    }
    return held;
  }
}
