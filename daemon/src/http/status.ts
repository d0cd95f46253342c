// GET /status: public aggregates only, nothing derived from board text; no token, no audit row.
import { Hono } from 'hono';
import { RateLimited, Unavailable } from '../errors.js';
import type { AgentDirectory } from '../agents/directory.js';
import type { TrustProxy } from '../runtime/config.js';
import { clientIp } from './client.js';
import type { RateLimiter } from '../runtime/rate-limit.js';
import { withCallDeadline } from '../store/call-deadline.js';
import type { BoardStore } from '../store/store.js';
import { VERSION } from '../runtime/version.js';

/** An agent counts as active when it called a tool within this window. */
export const ACTIVE_WINDOW_MS = 15 * 60_000;

export interface StatusOptions {
  readonly store: BoardStore;
  readonly agents: () => AgentDirectory;
  readonly boardName: () => string;
  readonly limiter: RateLimiter;
  /** Behind a reverse proxy: the client is X-Real-IP (or the last X-Forwarded-For) when the peer is loopback. */
  readonly trustProxy: TrustProxy;
  /** ROUNDTABLE_DB_DEADLINE: the longest /status waits for the database before it says it is unavailable. */
  readonly deadlineMs: number;
}

export function statusRoutes(options: StatusOptions): Hono {
  const status = new Hono();
  status.get('/', async (c) => {
    const ip = clientIp(c, options.trustProxy);
    const wait = options.limiter.take(ip);
    if (wait > 0) throw new RateLimited(wait, 'status requests');
    const names = options.agents().list().map((a) => a.name);
    const hourAgo = new Date(Date.now() - 60 * 60_000).toISOString();
    let counts, seen, lapsed, ready;
    try {
      // One deadline for the four reads: /status answers within ROUNDTABLE_DB_DEADLINE whatever the database does.
      [counts, seen, lapsed, ready] = await withCallDeadline(Date.now() + options.deadlineMs, () =>
        Promise.all([options.store.countTasksByStatus(), options.store.lastSeen(names), options.store.countExpiredLeasesSince(hourAgo), options.store.countReady()]),
      );
    } catch (error) {
      if (!(error instanceof Unavailable)) throw error;
      // Monitors read this: the daemon is up, its database is not.
      c.header('Cache-Control', 'no-store');
      return c.json(
        { ok: false, board: options.boardName(), version: VERSION, uptime_seconds: Math.floor(process.uptime()), database: error.reason, ...error.unchanged().toBody(), server_time: new Date().toISOString() },
        503,
      );
    }
    const since = Date.now() - ACTIVE_WINDOW_MS;
    const active = [...seen.values()].filter((at) => Date.parse(at) >= since).length;
    c.header('Cache-Control', 'no-store');
    return c.json({
      ok: true,
      board: options.boardName(),
      version: VERSION,
      // How long this daemon process has run (`roundtable status` shows it).
      uptime_seconds: Math.floor(process.uptime()),
      tasks_by_status: counts,
      active_agents: active,
      leases_expired_last_hour: lapsed,
      // Open tasks split into those nothing blocks and those waiting on unfinished dependencies.
      tasks_ready: ready,
      tasks_blocked: Math.max(0, counts.open - ready),
      server_time: new Date().toISOString(),
    });
  });
  return status;
}
