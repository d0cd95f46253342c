// The session cookie: setting and clearing it, and the middleware that admits only a signed-in browser.
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { Agent } from '../agents.js';
import type { SessionStore } from './sessions.js';

export const SESSION_COOKIE = 'rt_session';

export type SessionVariables = { agent: Agent; sessionId: string; requestId: string };

export function sessionIdOf(c: Context): string | undefined {
  return getCookie(c, SESSION_COOKIE);
}

/** HttpOnly so page scripts never see it, SameSite=Strict so no other site can send it, Secure over HTTPS. */
export function setSessionCookie(c: Context, id: string, maxAgeSeconds: number, secure: boolean): void {
  setCookie(c, SESSION_COOKIE, id, { httpOnly: true, sameSite: 'Strict', path: '/', maxAge: maxAgeSeconds, secure });
}

export function clearSessionCookie(c: Context, secure: boolean): void {
  deleteCookie(c, SESSION_COOKIE, { httpOnly: true, sameSite: 'Strict', path: '/', secure });
}

/** 401 without a live session: nothing of the board is read before this passes. */
export function sessionAuth(sessions: SessionStore): MiddlewareHandler<{ Variables: SessionVariables }> {
  return async function sessionAuth(c, next) {
    const id = sessionIdOf(c);
    const agent = await sessions.lookUp(id);
    if (id === undefined || !agent) {
      c.header('Cache-Control', 'no-store');
      return c.json({ error: { code: 'unauthorized', message: 'sign in on the board page first: your session is missing, expired or ended' } }, 401);
    }
    c.set('agent', agent);
    c.set('sessionId', id);
    return next();
  };
}
