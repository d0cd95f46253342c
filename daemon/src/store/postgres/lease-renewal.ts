// Lease renewal on PostgreSQL: the one statement that moves an agent's unlapsed leases forward, which a call's audit
// row carries (audit.ts, write-extras.ts) and the lease concern runs alone (leases.ts); below all three.
import type { Db } from './connection.js';

/**
 * The renewal with its parameters from `$first`: the agent, the new expiry, now. Leases that have not lapsed move
 * forward, never back.
 */
export function renewalStatement(first = 1): string {
  const [agent, until, now] = [`$${first}`, `$${first + 1}`, `$${first + 2}`];
  return `UPDATE tasks SET lease_expires_at = ${until}
    WHERE assignee = ${agent} AND status = 'claimed' AND lease_expires_at > ${now} AND lease_expires_at < ${until}`;
}

export async function renewLeases(db: Db, agent: string, until: string, at: string): Promise<number> {
  return (await db.unsafe(renewalStatement(), [agent, until, at], { prepare: true })).count;
}
