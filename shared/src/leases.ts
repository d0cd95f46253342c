// Claim leases as the bridge and the worker see them: the heartbeat that keeps an agent's claims alive.

/**
 * Sent by a process that watches the board for an agent without being the agent (`roundtable-bridge wake`): its
 * calls are not a sign that the agent lives, so they renew none of its claims.
 */
export const WATCHER_HEADER = 'roundtable-watcher';

/** Renews every lease the caller holds; not a tool call (no audit row, no tool rate limit). */
export const HEARTBEAT_PATH = 'api/v1/heartbeat';

export interface HeldLease {
  readonly task_id: number;
  readonly claim_id: number;
  readonly lease_expires_at: string;
}

export interface HeartbeatAnswer {
  /** The claims the caller holds now, each with its renewed expiry. */
  readonly leases: HeldLease[];
  readonly lease_ttl_s: number;
  /** How often to send heartbeats while holding a claim: a third of the lease. */
  readonly heartbeat_interval_s: number;
}
