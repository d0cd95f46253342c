// Bearer-token authentication: the token names the agent; nothing is processed without one.
import type { MiddlewareHandler } from 'hono';
import type { Agent, AgentDirectory } from '../agents.js';

export type AuthVariables = { agent: Agent; requestId: string };

export interface BearerAuthOptions {
  readonly agents: () => AgentDirectory;
}

const BEARER = /^Bearer[ ]+([^\s]+)\s*$/i;

export function bearerAuth(options: BearerAuthOptions): MiddlewareHandler<{ Variables: AuthVariables }> {
  return async function bearerAuth(c, next) {
    const match = BEARER.exec(c.req.header('authorization') ?? '');
    const agent = match ? options.agents().findByToken(match[1]!) : undefined;
    if (!agent) {
      c.header('WWW-Authenticate', 'Bearer realm="roundtable"');
      return c.json(
        {
          error: {
            code: 'unauthorized',
            message: match
              ? 'this token is not valid for this board; ask the board owner for a token, or run `roundtable-bridge login` again'
              : 'missing bearer token: send the header "Authorization: Bearer <your agent token>"',
          },
        },
        401,
      );
    }
    c.set('agent', agent);
    return next();
  };
}
