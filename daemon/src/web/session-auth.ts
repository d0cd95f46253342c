// The session cookie: setting and clearing it, and the middleware that admits only a signed-in browser.
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, setCookie } from 'hono/cookie';
import type { Agent } from '../agents/directory.js';
import type { SessionStore } from './sessions.js';

export const SESSION_COOKIE = 'rt_session';
/**
 * The name over HTTPS: a browser takes a `__Host-` cookie only from a secure page of this very host, with Path=/
 * and no Domain, so no page on another port over plain HTTP can plant or shadow it (issue 31, item 9).
 */
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;
/** Session ids looked up per request at most: each may be a database read on PostgreSQL. */
const MAX_PRESENTED_SESSIONS = 8;

export type SessionVariables = { agent: Agent; sessionId: string; requestId: string };

/**
 * Every session id the request carries, under either name, in the order sent. A browser sends every cookie whose
 * path matches, so a page on another port of this host can add an `rt_session=<junk>; Path=/actions` that comes
 * first: reading only the first would sign the owner out of acting (issue 31, item 9). So all are read, and a live
 * one wins.
 */
export function sessionIdsOf(c: Context): string[] {
  const ids: string[] = [];
  for (const pair of (c.req.header('cookie') ?? '').split(';')) {
    const equals = pair.indexOf('=');
    if (equals === -1) continue;
    const name = pair.slice(0, equals).trim();
    if (name !== SESSION_COOKIE && name !== SECURE_SESSION_COOKIE) continue;
    const value = pair.slice(equals + 1).trim();
    if (value !== '' && !ids.includes(value)) ids.push(value);
    if (ids.length === MAX_PRESENTED_SESSIONS) break;
  }
  return ids;
}

/** The first of the request's session ids that stands for a live session, and its agent. */
export async function liveSessionOf(c: Context, sessions: SessionStore): Promise<{ id: string; agent: Agent } | undefined> {
  for (const id of sessionIdsOf(c)) {
    const agent = await sessions.lookUp(id);
    if (agent) return { id, agent };
  }
  return undefined;
}

/** HttpOnly so page scripts never see it, SameSite=Strict so no other site can send it; over HTTPS Secure and `__Host-`. */
export function setSessionCookie(c: Context, id: string, maxAgeSeconds: number, secure: boolean): void {
  if (secure) setCookie(c, SESSION_COOKIE, id, { httpOnly: true, sameSite: 'Strict', path: '/', maxAge: maxAgeSeconds, secure: true, prefix: 'host' });
  else setCookie(c, SESSION_COOKIE, id, { httpOnly: true, sameSite: 'Strict', path: '/', maxAge: maxAgeSeconds, secure: false });
}

export function clearSessionCookie(c: Context, secure: boolean): void {
  if (secure) deleteCookie(c, SESSION_COOKIE, { httpOnly: true, sameSite: 'Strict', path: '/', secure: true, prefix: 'host' });
  else deleteCookie(c, SESSION_COOKIE, { httpOnly: true, sameSite: 'Strict', path: '/', secure: false });
}

export interface SessionAuthOptions {
  /**
   * When this daemon started, where sessions live in its memory only (SQLite): a restart ends them all. The 401
   * carries it, so a page that saw another start time can say that the board restarted (issue 31, item 8).
   */
  readonly startedAt?: string | undefined;
}

/** 401 without a live session: nothing of the board is read before this passes. */
export function sessionAuth(sessions: SessionStore, options: SessionAuthOptions = {}): MiddlewareHandler<{ Variables: SessionVariables }> {
  return async function sessionAuth(c, next) {
    const live = await liveSessionOf(c, sessions);
    if (!live) {
      c.header('Cache-Control', 'no-store');
      const message = 'sign in on the board page first: your session is missing, expired or ended';
      return c.json({ error: { code: 'unauthorized', message, ...(options.startedAt !== undefined && { board_started_at: options.startedAt }) } }, 401);
    }
    c.set('agent', live.agent);
    c.set('sessionId', live.id);
    return next();
  };
}
