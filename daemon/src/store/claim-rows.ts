// How a claim is read back, the same on both stores: its row in claims, and the history row that ended it.
import type { ClaimRecord } from './store.js';

export interface ClaimRow {
  id: number;
  agent: string;
  claimed_at: string;
  lapsed_at: string | null;
}

/** The newest history row of the claim other than `claimed`: what ended it, by whom, when. */
export interface ClaimEndRow {
  action: string;
  agent: string;
  created_at: string;
}

export function toClaimRecord(row: ClaimRow, end: ClaimEndRow | undefined): ClaimRecord {
  return {
    claimId: row.id,
    agent: row.agent,
    claimedAt: row.claimed_at,
    lapsedAt: row.lapsed_at,
    ended: end ? { action: end.action, by: end.agent, at: end.created_at } : null,
  };
}
