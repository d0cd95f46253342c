// Claim leases: renewal by the holder's calls and heartbeats, and the sweep that reopens lapsed claims.
// One timer, armed for the earliest expiry on the board: no per-task polling loop.
import type { HeartbeatAnswer } from 'roundtable-shared';
import type { EventBus } from '../events.js';
import { log } from '../runtime/log.js';
import type { BoardStore, ExpiredLease, LeaseRenewal } from '../store/store.js';

/** The longest the sweep sleeps by default: a safety net only, since one daemon learns of every lease it grants. */
const MAX_SLEEP_MS = 60_000;

export interface LeaseOptions {
  readonly store: BoardStore;
  readonly events: EventBus;
  readonly ttlMs: number;
  /**
   * The longest the sweep sleeps before it reads the earliest expiry again (default 60 s). Several daemons on one
   * database pass a few seconds: a lease granted through a daemon that died before its event went out reaches no other
   * daemon's timer, and this bounds how late it lapses.
   */
  readonly recheckMs?: number;
}

export class Leases {
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires (ms), or Infinity when none is armed. */
  private armedFor = Number.POSITIVE_INFINITY;
  /** The earliest lease expiry this daemon knows of (ms). */
  private dueAt = Number.POSITIVE_INFINITY;
  private sweeping: Promise<void> | undefined;
  private readonly lastRenewal = new Map<string, number>();
  private closed = false;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly options: LeaseOptions) {}

  get ttlMs(): number {
    return this.options.ttlMs;
  }

  /**
   * A holder's calls renew its leases at most this often: a lease is then never shorter than 90 % of the TTL after
   * a call, and a busy agent's calls do not each pay a write.
   */
  get renewEveryMs(): number {
    return Math.min(this.options.ttlMs / 10, 60_000);
  }

  /** Sweeps now and arms the timer: a claim that lapsed while the daemon was down reopens at start. */
  async start(): Promise<void> {
    // A lease granted through another daemon on the same database arrives as an event: arm the timer for it too.
    this.unsubscribe = this.options.events.subscribe((event) => {
      if (event.type === 'task' && event.task.status === 'claimed' && event.task.lease_expires_at) this.granted(Date.parse(event.task.lease_expires_at));
      // Grants sent while this daemon was not listening are lost: a sweep reads the next expiry from the database.
      if (event.type === 'resync') void this.sweep();
    });
    await this.sweep();
  }

  /** A new lease until `expiresAtMs` was granted here: make sure the timer fires by then. */
  granted(expiresAtMs: number): void {
    this.dueAt = Math.min(this.dueAt, expiresAtMs);
    if (expiresAtMs < this.armedFor) this.arm(expiresAtMs);
  }

  /**
   * Renews every lease the agent holds, unless it was renewed within renewEveryMs. Returns undefined when there was
   * nothing to do, so the common case costs a map lookup and no promise.
   */
  renew(agent: string, now = Date.now()): Promise<number> | undefined {
    const renewal = this.renewalDue(agent, now);
    if (!renewal) return undefined;
    return this.options.store.renewLeases(agent, renewal.until, renewal.now).catch((error: unknown) => {
      this.renewalFailed(renewal);
      throw error;
    });
  }

  /**
   * The renewal a call by `agent` carries, unless its leases were renewed within renewEveryMs. Counted as done at
   * once, so concurrent calls do not each carry one; a call whose renewal could not be written says so with
   * renewalFailed, and the agent's next call carries it again.
   */
  renewalDue(agent: string, now = Date.now()): LeaseRenewal | undefined {
    const last = this.lastRenewal.get(agent);
    if (last !== undefined && now - last < this.renewEveryMs) return undefined;
    this.lastRenewal.set(agent, now);
    return { agent, until: new Date(now + this.options.ttlMs).toISOString(), now: new Date(now).toISOString() };
  }

  renewalFailed(renewal: LeaseRenewal): void {
    if (this.lastRenewal.get(renewal.agent) === Date.parse(renewal.now)) this.lastRenewal.delete(renewal.agent);
  }

  /** POST /api/v1/heartbeat: renews, then says what the agent holds and how often to beat. */
  async heartbeat(agent: string): Promise<HeartbeatAnswer> {
    await this.sweepIfDue();
    await this.renew(agent);
    const leases = await this.options.store.leasesHeldBy(agent);
    return {
      leases: leases.map((l) => ({ task_id: l.task_id, claim_id: l.claim_id, lease_expires_at: l.lease_expires_at })),
      lease_ttl_s: this.options.ttlMs / 1000,
      heartbeat_interval_s: this.options.ttlMs / 3000,
    };
  }

  /** Before a task changes hands: reopen what has lapsed, so the change sees the board as it is now. */
  async sweepIfDue(now = Date.now()): Promise<void> {
    // A sweep already under way may have read the clock before `now`: what lapsed in between is still due, and one
    // more sweep reopens it. (On SQLite a sweep is over in microseconds; on PostgreSQL it takes a round trip or more.)
    for (let round = 0; round < 3 && now >= this.dueAt; round++) await this.sweep();
  }

  /** Reopens lapsed claims (one transaction), tells waiters and live views, and arms the timer for the next one. */
  sweep(): Promise<void> {
    this.sweeping ??= this.sweepOnce().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async sweepOnce(): Promise<void> {
    if (this.closed) return;
    try {
      const expired = await this.options.store.expireLeases(new Date().toISOString());
      for (const lapse of expired) this.announce(lapse);
      const next = await this.options.store.nextLeaseExpiry();
      this.dueAt = next === null ? Number.POSITIVE_INFINITY : Date.parse(next);
    } catch (error) {
      if (this.closed) return;
      log.error('lease sweep failed; retrying soon', { error: String(error) });
      this.dueAt = Date.now() + 1000;
    }
    this.arm(Math.min(this.dueAt, Date.now() + (this.options.recheckMs ?? MAX_SLEEP_MS)));
  }

  private announce(lapse: ExpiredLease): void {
    log.info('claim lapsed; task reopened', { task_id: lapse.task.id, agent: lapse.holder, claim_id: lapse.claimId, lease_expired_at: lapse.expiredAt });
    const { task } = lapse;
    this.options.events.publish({
      type: 'task',
      action: 'lease_expired',
      actor: 'roundtable',
      task: { id: task.id, status: task.status, assignee: task.assignee, required_skills: task.required_skills, blocked: task.blocked_by.length > 0 },
    });
  }

  private arm(atMs: number): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.armedFor = atMs;
    this.timer = setTimeout(() => {
      this.armedFor = Number.POSITIVE_INFINITY;
      void this.sweep();
    }, Math.max(0, atMs - Date.now()));
    this.timer.unref();
  }

  close(): void {
    this.closed = true;
    this.unsubscribe?.();
    clearTimeout(this.timer);
  }
}
