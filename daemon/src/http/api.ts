// The JSON HTTP API the bridge calls: POST /api/v1/tools/{name} with the arguments as the body.
import { Hono } from 'hono';
import { WATCHER_HEADER } from 'roundtable-shared';
import { InvalidInput } from '../errors.js';
import type { ToolDispatcher } from '../board/dispatch.js';
import { acquireInstance } from '../board/instances.js';
import type { Leases } from '../board/leases.js';
import type { BoardStore } from '../store/store.js';
import type { AuthVariables } from './auth.js';
import { JSON_TOO_DEEP, nestedDeeperThan } from './json-depth.js';

export function apiRoutes(dispatcher: ToolDispatcher, store: BoardStore, leases: Leases): Hono<{ Variables: AuthVariables }> {
  const api = new Hono<{ Variables: AuthVariables }>();

  api.post('/tools/:name', async (c) => {
    const text = await c.req.text();
    let args: unknown = {};
    if (text.trim() !== '') {
      try {
        args = JSON.parse(text);
      } catch {
        throw new InvalidInput('the request body is not valid JSON; send the tool arguments as a JSON object');
      }
      if (nestedDeeperThan(args)) throw new InvalidInput(JSON_TOO_DEEP);
    }
    const idempotencyKey = c.req.header('idempotency-key');
    const options = {
      requestId: c.get('requestId'),
      // Made when read (a wait reads it): making a request's AbortSignal builds its whole Request object.
      get signal() {
        return c.req.raw.signal;
      },
      renewsLeases: c.req.header(WATCHER_HEADER) === undefined,
      face: 'api' as const,
      ...(idempotencyKey !== undefined && { idempotencyKey }),
    };
    return c.json(await dispatcher.call(c.get('agent'), c.req.param('name'), args, options));
  });

  // A long-running process (the model worker) takes and renews its agent's lease; see SPEC "One process per token".
  api.put('/instances/:id', async (c) => c.json(await acquireInstance(store, c.get('agent'), c.req.param('id'))));
  api.delete('/instances/:id', async (c) => {
    await store.releaseInstance(c.get('agent').name, c.req.param('id'));
    return c.body(null, 204);
  });

  // The bridge's heartbeat while its agent app lives: renews the agent's claims; not a tool call (no audit row, no rate limit).
  api.post('/heartbeat', async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json(await leases.heartbeat(c.get('agent').name));
  });

  return api;
}
