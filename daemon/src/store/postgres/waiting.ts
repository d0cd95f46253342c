// Who is parked in wait_for_activity on any daemon of the board (table waiting_agents): each daemon writes the whole set
// of its own waiting agents, one statement, soon after it changes and again every RENEW_MS while it is not empty. The
// rows expire on the database's clock unless renewed, so a daemon that dies stops counting within EXPIRE_MS.
import type { Sql } from './connection.js';
import type { SharedWaiting } from '../shared-waiting.js';
import type { EventBus } from '../../events.js';
import { log } from '../../runtime/log.js';

/** A daemon renews its rows this often while it has waiters (and retries a failed write). */
export const RENEW_MS = 3_000;
/** Rows not renewed for this long no longer count: the bound on how long a dead daemon's waiters are still shown. */
export const EXPIRE_MS = 10_000;
/** Changes are written this long after the first one, so an agent woken and parked again at once costs no write. */
const SETTLE_MS = 25;

const NOW_MS = 'EXTRACT(EPOCH FROM clock_timestamp())::float8 * 1000';

// Deletes this daemon's rows for agents no longer waiting here, and others' long-expired rows (a dead daemon leaves
// them); inserts or renews the rest. The two touch disjoint rows, so one statement does both.
const WRITE = `WITH gone AS (
    DELETE FROM waiting_agents
    WHERE (daemon_id = $1 AND agent <> ALL($2::text[])) OR (daemon_id <> $1 AND expires_ms < ${NOW_MS} - $3::float8)
  )
  INSERT INTO waiting_agents (daemon_id, agent, expires_ms)
  SELECT $1, agent, ${NOW_MS} + $3::float8 FROM unnest($2::text[]) AS agent
  ON CONFLICT (daemon_id, agent) DO UPDATE SET expires_ms = excluded.expires_ms`;

const READ = `SELECT DISTINCT agent FROM waiting_agents WHERE agent = ANY($1::text[]) AND expires_ms > ${NOW_MS}`;

export class PostgresWaiting implements SharedWaiting {
  /** What waits here now, and what the table last said (after a successful write). */
  private here: readonly string[] = [];
  private written: ReadonlySet<string> = new Set();
  private dirty = false;
  private settling: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private readonly renewal: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly sql: Sql,
    private readonly daemonId: string,
    /** Told of each agent whose shown state changed, after the write: pages on other daemons then read it. */
    private readonly events: EventBus,
  ) {
    this.renewal = setInterval(() => {
      if (this.dirty || this.here.length > 0) void this.write();
    }, RENEW_MS);
    this.renewal.unref();
  }

  waitingHere(agents: readonly string[]): void {
    this.here = agents;
    this.dirty = true;
    if (this.settling || this.closed) return;
    this.settling = setTimeout(() => {
      this.settling = undefined;
      void this.write();
    }, SETTLE_MS);
    this.settling.unref();
  }

  async waitingAnywhere(agents: readonly string[]): Promise<Set<string>> {
    if (agents.length === 0) return new Set();
    const rows = await this.sql.unsafe<Array<{ agent: string }>>(READ, [[...agents]], { prepare: true });
    return new Set(rows.map((r) => r.agent));
  }

  /** At shutdown: this daemon's waits are over (answered as timeouts), so its rows go now rather than at expiry. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.renewal);
    clearTimeout(this.settling);
    this.here = [];
    this.dirty = true;
    await this.write();
  }

  /** One write at a time; a change made while one is under way is written right after it. */
  private write(): Promise<void> {
    if (this.writing) return this.writing.then(() => (this.dirty ? this.write() : undefined));
    this.writing = this.writeOnce().finally(() => (this.writing = undefined));
    return this.writing;
  }

  private async writeOnce(): Promise<void> {
    const agents = this.here;
    this.dirty = false;
    try {
      await this.sql.unsafe(WRITE, [this.daemonId, [...agents], EXPIRE_MS], { prepare: true });
    } catch (error) {
      // Retried at the next renewal; meanwhile the other daemons see the last rows written, until they expire.
      this.dirty = true;
      if (!this.closed) log.warn('sharing who waits on this daemon failed; retrying', { error: String(error) });
      return;
    }
    const now = new Set(agents);
    const changed = [...agents.filter((a) => !this.written.has(a)), ...[...this.written].filter((a) => !now.has(a))];
    this.written = now;
    if (!this.closed) for (const agent of changed) this.events.publish({ type: 'presence', agent });
  }
}
