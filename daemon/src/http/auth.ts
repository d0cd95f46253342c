// Bearer-token authentication: the token names the agent; nothing is processed without one.
import type { Context, MiddlewareHandler } from 'hono';
import type { Agent, AgentDirectory } from '../agents/directory.js';
import type { ForwardedEnv } from './request-log.js';

export type AuthVariables = { agent: Agent; requestId: string };

export interface BearerAuthOptions {
  readonly agents: () => AgentDirectory;
  /** The WWW-Authenticate challenge of a 401 here: on an MCP URL it points OAuth clients at the resource metadata. */
  readonly challenge?: (c: Context) => string | undefined;
}

const BEARER = /^Bearer[ ]+([^\s]+)\s*$/i;

// Said to whoever calls: an HTTP client sends the header itself; the bridge is only one such client.
const INVALID =
  'this token is not valid for this board (not in its agents.json, or removed or rotated since): send "Authorization: Bearer <token>" with an agent token that the board\'s owner issued (`roundtable agents add` or `rotate`). Through roundtable-bridge, `roundtable-bridge login` stores the new one';
const MISSING = 'missing bearer token: send the header "Authorization: Bearer <token>" with an agent token that the board\'s owner issued (`roundtable agents add`)';
/** A header that is there but is not one bearer token: another scheme, two tokens, something after the token. */
const MALFORMED =
  'malformed Authorization header: send exactly "Authorization: Bearer <token>", the word Bearer, one space and one agent token with nothing after it (one header, one token)';

/** The one bearer token of an Authorization header, or undefined when it holds none or something else. */
export function bearerTokenOf(header: string | undefined): string | undefined {
  return BEARER.exec(header ?? '')?.[1];
}

/** The 401 for a request whose token is missing, malformed, or valid for no project of this daemon. */
export function unauthorized(c: Context, challenge = 'Bearer realm="roundtable"'): Response {
  const header = c.req.header('authorization') ?? '';
  c.header('WWW-Authenticate', challenge);
  return c.json({ error: { code: 'unauthorized', message: BEARER.test(header) ? INVALID : header.trim() === '' ? MISSING : MALFORMED } }, 401);
}

export function bearerAuth(options: BearerAuthOptions): MiddlewareHandler<{ Variables: AuthVariables }> {
  return async function bearerAuth(c, next) {
    const token = bearerTokenOf(c.req.header('authorization'));
    // An OAuth access token was resolved by the router, in this project's store (oauth/resource.ts): taken first, so
    // its call does not also hash the token and compare it with every agent's (issue 34's bench, docs/BENCHMARKS.md).
    const agent = token !== undefined ? ((c.env as ForwardedEnv | undefined)?.oauthAgent ?? options.agents().findByToken(token)) : undefined;
    if (!agent) return unauthorized(c, options.challenge?.(c));
    c.set('agent', agent);
    return next();
  };
}
