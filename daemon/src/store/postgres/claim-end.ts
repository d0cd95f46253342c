// What ends with a claim on PostgreSQL (a release, a submission, a cancel, a lapse): its reservations, in the same
// transaction. Called by the task transitions (tasks.ts) and the lease sweep (leases.ts), below both.
import { pathsReleasedRow, type EndedClaim } from '../history-rows.js';
import { insertActivity } from './activity.js';
import type { Tx } from './connection.js';

/** Inside a transaction that ended a claim: deletes its reservations and, if it had any, says so in the history. */
export async function endReservations(tx: Tx, ended: EndedClaim): Promise<void> {
  const count = (await tx`DELETE FROM reservations WHERE claim_id = ${ended.claimId}`).count;
  if (count > 0) await insertActivity(tx, pathsReleasedRow(ended, count));
}
