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
