// Gives every request an id and logs its outcome: method, path, status, agent, duration. No headers, no bodies.
// The answer goes out only once its line (and the tool call's) is written; lines are written in batches (log-batch.ts).
import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { Agent } from '../agents/directory.js';
import { requestLine, logWritten } from '../runtime/log.js';

export type RequestVariables = { requestId: string; agent?: Agent };

export function requestLog(): MiddlewareHandler<{ Variables: RequestVariables }> {
  return async function requestLog(c, next) {
    const started = performance.now();
    const requestId = randomUUID();
    c.set('requestId', requestId);
    c.header('X-Request-Id', requestId);
    await next();
    requestLine('request', {
      request_id: requestId,
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      agent: c.get('agent')?.name,
      duration_ms: Math.round((performance.now() - started) * 10) / 10,
    });
    await logWritten();
  };
}

/** What the daemon's router hands a project's app with each request it forwards (process/router.ts). */
export interface ForwardedEnv {
  /** The id the router gave the request and logs it under. */
  readonly requestId?: string;
  /** Told who the project's app found the caller to be, for the router's request line. */
  readonly tell?: (agent: Agent | undefined) => void;
  /** The agent an OAuth access token was granted as, which the router has checked against the project's store. */
  readonly oauthAgent?: Agent | undefined;
}

/** In a project's app: takes the router's request id, and tells the router who called once the app has answered. */
export function forwardedRequest(): MiddlewareHandler<{ Variables: RequestVariables }> {
  return async function forwardedRequest(c, next) {
    const env = c.env as ForwardedEnv | undefined;
    const requestId = env?.requestId ?? randomUUID();
    c.set('requestId', requestId);
    // The project's app makes the response, so it carries the id the router logs the request under.
    c.header('X-Request-Id', requestId);
    await next();
    env?.tell?.(c.get('agent'));
  };
}
