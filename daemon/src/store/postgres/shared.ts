// What several daemons on one PostgreSQL board share besides the board itself: events, rate limits, web sessions and
// who is parked waiting on which daemon.
import { randomUUID } from 'node:crypto';
import type { Sql } from './connection.js';
import type { SharedWaiting } from '../shared-waiting.js';
import type { EventBus } from '../../events.js';
import type { RateLimit } from '../../runtime/rate-limit.js';
import type { SharedSessions } from '../shared-sessions.js';
import { withCallDeadline } from '../call-deadline.js';
import { PostgresEventBus } from './events.js';
import { PostgresRateLimiter } from './rate-limit.js';
import { PostgresSessions } from './sessions.js';
import { PostgresWaiting } from './waiting.js';

/** At shutdown, how long removing this daemon's waiting rows may take. */
const CLOSE_WRITE_MS = 2_000;

export interface SharedState {
  readonly events: EventBus;
  /** The tool-call budget per agent, one for the whole board. */
  toolCallLimit(perMinute: number): RateLimit;
  readonly sessions: SharedSessions;
  readonly waiting: SharedWaiting;
  close(): Promise<void>;
}

export async function startSharedState(sql: Sql): Promise<SharedState> {
  // This daemon among the others: its own notifications are skipped, its waiting rows are its own.
  const daemonId = randomUUID();
  const events = await PostgresEventBus.start(sql, daemonId);
  const waiting = new PostgresWaiting(sql, daemonId, events);
  return {
    events,
    toolCallLimit: (perMinute) => new PostgresRateLimiter(sql, { perMinute, namespace: 'tools' }),
    // The web sign-in sessions are the daemon's, not a project's: they live beside the catalog (the public schema).
    sessions: new PostgresSessions(sql.scoped(undefined)),
    waiting,
    async close() {
      // Its rows would expire within EXPIRE_MS anyway: a stalled database does not hold the shutdown for long.
      await withCallDeadline(Date.now() + CLOSE_WRITE_MS, () => waiting.close()).catch(() => {});
      await events.close();
    },
  };
}
