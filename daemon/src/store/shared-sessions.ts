// The port for web sessions shared between daemons: the store implements it (PostgreSQL), web/sessions.ts uses it.
import { createHash } from 'node:crypto';

/**
 * Sessions one agent (one token) may hold: a person on a few browsers and devices. A new sign-in past it ends that
 * agent's oldest session, never another agent's, so one token cannot sign everyone else out by signing in often.
 */
export const SESSIONS_PER_AGENT = 16;

/** How a session is named where its id must not go (between daemons: events.ts `session_ended`). */
export function sessionDigest(id: string): string {
  return createHash('sha256').update(id, 'utf8').digest('hex');
}

/** Where sessions are shared between daemons (the database, on PostgreSQL); absent with one daemon. */
export interface SharedSessions {
  /** Saves a new session; the token's sessions past SESSIONS_PER_AGENT, oldest first, end with it. */
  save(id: string, tokenHash: Buffer, expiresAt: number): Promise<void>;
  load(id: string): Promise<{ tokenHash: Buffer; expiresAt: number } | undefined>;
  remove(id: string): Promise<void>;
}
