// The page's per-session CSRF token, and the checks every page action passes before it reaches the board: an Origin
// that names this board (the Host guard in front has judged it), a same-origin fetch, and the session's token.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { Forbidden } from '../errors.js';
import type { SessionVariables } from './session-auth.js';

export const CSRF_HEADER = 'x-csrf-token';

/**
 * The session's CSRF token: an HMAC keyed by the session id, so it needs no state of its own, is the same on every
 * daemon of a board, ends with its session, and does not reveal the id (the cookie, which page scripts never see).
 */
export function csrfTokenFor(sessionId: string): string {
  return createHmac('sha256', sessionId).update('roundtable page actions').digest('base64url');
}

function refuse(c: Context, message: string): Response {
  c.header('Cache-Control', 'no-store');
  return c.json(new Forbidden(message).toBody(), 403);
}

/**
 * After sessionAuth. SameSite=Strict keeps other sites' requests from carrying the cookie, but a page on another port
 * of this host is the same site: so an action also needs an Origin (browsers send one with every POST, and the Host
 * guard has refused any origin but the board's, port included), no cross-site fetch metadata, and the token the page
 * read from /view/state, in a header no form can set.
 */
export function pageActionGuard(): MiddlewareHandler<{ Variables: SessionVariables }> {
  return async function pageActionGuard(c, next) {
    if (c.req.header('origin') === undefined) return refuse(c, 'a page action must come from the board page (no Origin header was sent)');
    const site = c.req.header('sec-fetch-site');
    if (site !== undefined && site !== 'same-origin') return refuse(c, 'a page action must come from the board page itself, not from another site or port');
    const presented = Buffer.from(c.req.header(CSRF_HEADER) ?? '', 'utf8');
    const expected = Buffer.from(csrfTokenFor(c.get('sessionId')), 'utf8');
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
      return refuse(c, `the page's CSRF token is missing or wrong (header ${CSRF_HEADER}); reload the board page and try again`);
    }
    return next();
  };
}
