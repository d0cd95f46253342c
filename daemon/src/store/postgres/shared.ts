// What several daemons on one PostgreSQL board share besides the board itself: events, rate limits and web sessions.
import type postgres from 'postgres';
import type { EventBus } from '../../events.js';
import type { RateLimit } from '../../rate-limit.js';
import type { SharedSessions } from '../../web/sessions.js';
import { PostgresEventBus } from './events.js';
import { PostgresRateLimiter } from './rate-limit.js';
import { PostgresSessions } from './sessions.js';

export interface SharedState {
  readonly events: EventBus;
  /** The tool-call budget per agent, one for the whole board. */
  toolCallLimit(perMinute: number): RateLimit;
  readonly sessions: SharedSessions;
  close(): Promise<void>;
}

export async function startSharedState(sql: postgres.Sql): Promise<SharedState> {
  const events = await PostgresEventBus.start(sql);
  return {
    events,
    toolCallLimit: (perMinute) => new PostgresRateLimiter(sql, { perMinute, namespace: 'tools' }),
    sessions: new PostgresSessions(sql),
    close: () => events.close(),
  };
}
