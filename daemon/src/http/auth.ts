// Bearer-token authentication: the token names the agent; nothing is processed without one.
import type { MiddlewareHandler } from 'hono';
import type { Agent, AgentDirectory } from '../agents/directory.js';

export type AuthVariables = { agent: Agent; requestId: string };

export interface BearerAuthOptions {
  readonly agents: () => AgentDirectory;
}

const BEARER = /^Bearer[ ]+([^\s]+)\s*$/i;

// Said to whoever calls: an HTTP client sends the header itself; the bridge is only one such client.
const INVALID =
  'this token is not valid for this board (not in its agents.json, or removed or rotated since): send "Authorization: Bearer <token>" with an agent token that the board\'s owner issued (`roundtable agents add` or `rotate`). Through roundtable-bridge, `roundtable-bridge login` stores the new one';
const MISSING = 'missing bearer token: send the header "Authorization: Bearer <token>" with an agent token that the board\'s owner issued (`roundtable agents add`)';
/** A header that is there but is not one bearer token: another scheme, two tokens, something after the token. */
const MALFORMED =
  'malformed Authorization header: send exactly "Authorization: Bearer <token>", the word Bearer, one space and one agent token with nothing after it (one header, one token)';

export function bearerAuth(options: BearerAuthOptions): MiddlewareHandler<{ Variables: AuthVariables }> {
  return async function bearerAuth(c, next) {
    const header = c.req.header('authorization') ?? '';
    const match = BEARER.exec(header);
    const agent = match ? options.agents().findByToken(match[1]!) : undefined;
    if (!agent) {
      c.header('WWW-Authenticate', 'Bearer realm="roundtable"');
      return c.json({ error: { code: 'unauthorized', message: match ? INVALID : header.trim() === '' ? MISSING : MALFORMED } }, 401);
    }
    c.set('agent', agent);
    return next();
  };
}
