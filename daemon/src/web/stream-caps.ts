// How many event streams may be open at once: per session, per agent and on the whole board.
import { RateLimited } from '../errors.js';

/** A browser needs one stream per tab; a few tabs are plenty, thousands are an attack on every call's latency. */
export const STREAMS_PER_SESSION = 4;
/** Across an agent's sessions (a person on two or three devices). */
export const STREAMS_PER_AGENT = 8;
/** The page tries again on its own; by then a tab may have been closed. */
const RETRY_AFTER_S = 10;

export interface StreamLimits {
  readonly perSession: number;
  readonly perAgent: number;
  /** ROUNDTABLE_MAX_EVENT_STREAMS. */
  readonly total: number;
}

export class StreamCaps {
  private readonly bySession = new Map<string, number>();
  private readonly byAgent = new Map<string, number>();
  private total = 0;

  constructor(private readonly limits: StreamLimits) {}

  /** Takes a slot for one more stream, or throws RateLimited naming the limit; the returned function gives it back. */
  take(agent: string, sessionId: string): () => void {
    const { perSession, perAgent, total } = this.limits;
    if ((this.bySession.get(sessionId) ?? 0) >= perSession) {
      throw new RateLimited(RETRY_AFTER_S, `event streams open for this session (the limit is ${perSession}): close another tab of the board page`);
    }
    if ((this.byAgent.get(agent) ?? 0) >= perAgent) {
      throw new RateLimited(RETRY_AFTER_S, `event streams open for agent ${agent} (the limit is ${perAgent} across its sessions): close another tab of the board page`);
    }
    if (this.total >= total) {
      throw new RateLimited(
        RETRY_AFTER_S,
        `event streams open on this board (the limit is ${total}, ROUNDTABLE_MAX_EVENT_STREAMS): close another tab of the board page, or ask the board owner to raise the limit`,
      );
    }
    bump(this.bySession, sessionId, 1);
    bump(this.byAgent, agent, 1);
    this.total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      bump(this.bySession, sessionId, -1);
      bump(this.byAgent, agent, -1);
      this.total--;
    };
  }

  get open(): number {
    return this.total;
  }
}

/** Counts in a map; a count back at zero is deleted, so ended sessions leave nothing behind. */
function bump(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next <= 0) counts.delete(key);
  else counts.set(key, next);
}
