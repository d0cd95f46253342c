// Claim leases on PostgreSQL: renewal, the sweep that reopens lapsed claims, and what a stale claim id is told.
// The sweep's update is conditional on the claim still being there and lapsed, and takes the row's lock: when several
// daemons sweep at once, each lapse is reopened by exactly one of them.
import { toClaimRecord, type ClaimEndRow, type ClaimRow } from '../claim-rows.js';
import { leaseExpiredRow, type LapsedClaim } from '../history-rows.js';
import type { ClaimRecord, ExpiredLease, Holding, LeaseView } from '../store.js';
import { insertActivity } from './activity.js';
import type { Db, Tx } from './connection.js';
import { endReservations } from './claim-end.js';
import { loadTask } from './task-read.js';

export async function expireLeases(tx: Tx, at: string): Promise<ExpiredLease[]> {
  const expired: ExpiredLease[] = [];
  const due = await tx<LapsedClaim[]>`
    SELECT id, assignee, claim_id, lease_expires_at FROM tasks WHERE lease_expires_at <= ${at} ORDER BY lease_expires_at LIMIT 500`;
  for (const lapse of due) {
    const updated = await tx`UPDATE tasks SET status = 'open', assignee = NULL, claim_id = NULL, lease_expires_at = NULL, updated_at = ${at}
      WHERE id = ${lapse.id} AND status = 'claimed' AND claim_id = ${lapse.claim_id} AND lease_expires_at <= ${at}`;
    if (updated.count === 0) continue;
    await tx`UPDATE claims SET lapsed_at = ${lapse.lease_expires_at} WHERE id = ${lapse.claim_id}`;
    await insertActivity(tx, leaseExpiredRow(lapse, at));
    await endReservations(tx, { taskId: lapse.id, claimId: lapse.claim_id, status: 'open', assignee: null, how: 'lease_expired', at });
    const task = await loadTask(tx, lapse.id);
    expired.push({ task, holder: lapse.assignee, claimId: lapse.claim_id, expiredAt: lapse.lease_expires_at });
  }
  return expired;
}

export async function leasesHeldBy(db: Db, agent: string): Promise<LeaseView[]> {
  return [...(await db<LeaseView[]>`SELECT id AS task_id, claim_id, lease_expires_at FROM tasks
    WHERE assignee = ${agent} AND status = 'claimed' AND lease_expires_at IS NOT NULL ORDER BY id`)];
}

export async function nextLeaseExpiry(db: Db): Promise<string | null> {
  const [row] = await db<Array<{ at: string | null }>>`SELECT MIN(lease_expires_at) AS at FROM tasks WHERE lease_expires_at IS NOT NULL`;
  return row?.at ?? null;
}

export async function findClaim(tx: Tx, taskId: number, by: { readonly claimId: number } | { readonly agent: string }): Promise<ClaimRecord | undefined> {
  const [row] =
    'claimId' in by
      ? await tx<ClaimRow[]>`
          SELECT id, agent, claimed_at, lapsed_at FROM claims WHERE task_id = ${taskId} AND id = ${by.claimId}`
      : await tx<ClaimRow[]>`
          SELECT id, agent, claimed_at, lapsed_at FROM claims WHERE task_id = ${taskId} AND agent = ${by.agent} ORDER BY id DESC LIMIT 1`;
  if (!row) return undefined;
  const [end] = await tx<ClaimEndRow[]>`
    SELECT action, agent, created_at FROM activity WHERE task_id = ${taskId} AND claim_id = ${row.id} AND action != 'claimed' ORDER BY id DESC LIMIT 1`;
  return toClaimRecord(row, end);
}

export async function countExpiredLeasesSince(db: Db, since: string): Promise<number> {
  const [row] = await db`SELECT COUNT(*) AS n FROM activity WHERE action = 'lease_expired' AND created_at >= ${since}`;
  return Number(row?.['n'] ?? 0);
}

/** Tasks each agent holds (claimed) now. */
export async function holdings(db: Db): Promise<Map<string, Holding[]>> {
  const held = new Map<string, Holding[]>();
  const rows = await db<Array<Holding & { assignee: string }>>`
    SELECT id, title, status, assignee, claim_id, lease_expires_at FROM tasks WHERE status = 'claimed' ORDER BY id`;
  for (const { assignee, ...holding } of rows) {
    const list = held.get(assignee) ?? [];
    list.push(holding);
    held.set(assignee, list);
  }
  return held;
}
