// Claim leases as the bridge and the worker see them: the heartbeat that keeps an agent's claims alive.

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
