// Signing in and out of the web page: POST /session exchanges a token for a session cookie, POST /session/logout ends it.
import { Hono, type Context } from 'hono';
import type { TrustProxy } from '../runtime/config.js';
import { InvalidInput, RateLimited } from '../errors.js';
import { cameOverHttps, clientIp } from '../http/client.js';
import type { RateLimiter } from '../runtime/rate-limit.js';
import { clearSessionCookie, liveSessionOf, setSessionCookie, type SessionVariables } from './session-auth.js';
import type { SessionStore } from './sessions.js';

export interface SessionRoutesOptions {
  readonly sessions: SessionStore;
  /** Sign-in attempts per client IP. */
  readonly limiter: RateLimiter;
  readonly trustProxy: TrustProxy;
  /** Called when a session ends, so its open event streams close too; `stood`: it was a live session until now. */
  readonly onSignOut: (sessionId: string, stood: boolean) => void;
}

const MAX_TOKEN_CHARS = 1024;
const HOW_TO_SIGN_IN = 'send {"token": "<your agent token>"} as JSON, or a form with a token field';

export function sessionRoutes(options: SessionRoutesOptions): Hono<{ Variables: SessionVariables }> {
  const routes = new Hono<{ Variables: SessionVariables }>();

  routes.post('/', async (c) => {
    const wait = options.limiter.take(clientIp(c, options.trustProxy));
    if (wait > 0) throw new RateLimited(wait, 'sign-in attempts');
    const { token, form } = await readToken(c);
    c.header('Cache-Control', 'no-store');
    const signedIn = await options.sessions.establish(token);
    if (!signedIn) {
      return c.json({ error: { code: 'unauthorized', message: 'this token is not valid for this board; ask the board owner for a token' } }, 401);
    }
    c.set('agent', signedIn.agent);
    setSessionCookie(c, signedIn.id, options.sessions.maxAgeSeconds, cameOverHttps(c, options.trustProxy));
    // A plain HTML form (no script) lands back on the page; the page's script gets JSON.
    if (form) return c.redirect('/', 303);
    return c.json({ ok: true, me: { name: signedIn.agent.name, role: signedIn.agent.role } });
  });

  routes.post('/logout', async (c) => {
    // The live session among the cookies sent (a planted one must not stand in for it) is the one that ends.
    const live = await liveSessionOf(c, options.sessions);
    if (live) {
      c.set('agent', live.agent);
      await options.sessions.end(live.id);
      options.onSignOut(live.id, true);
    }
    clearSessionCookie(c, cameOverHttps(c, options.trustProxy));
    c.header('Cache-Control', 'no-store');
    return c.json({ ok: true });
  });

  return routes;
}

/** The token from a JSON body {"token": "..."} or a form field "token"; never echoed in an error. */
async function readToken(c: Context): Promise<{ token: string; form: boolean }> {
  const type = (c.req.header('content-type') ?? '').toLowerCase();
  const form = type.startsWith('application/x-www-form-urlencoded') || type.startsWith('multipart/form-data');
  let value: unknown;
  // A body that does not parse (a multipart body without its boundary, say) is the sender's mistake, not ours.
  try {
    value = form ? (await c.req.parseBody())['token'] : ((await c.req.json()) as { token?: unknown } | null)?.token;
  } catch {
    throw new InvalidInput(HOW_TO_SIGN_IN);
  }
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_TOKEN_CHARS) throw new InvalidInput(HOW_TO_SIGN_IN);
  return { token: value.trim(), form };
}
