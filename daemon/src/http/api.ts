// The JSON HTTP API the bridge calls: POST /api/v1/tools/{name} with the arguments as the body.
import { Hono } from 'hono';
import { InvalidInput } from '../errors.js';
import type { ToolDispatcher } from '../board/dispatch.js';
import type { AuthVariables } from './auth.js';

export function apiRoutes(dispatcher: ToolDispatcher): Hono<{ Variables: AuthVariables }> {
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
    }
    const idempotencyKey = c.req.header('idempotency-key');
    return c.json(await dispatcher.call(c.get('agent'), c.req.param('name'), args, idempotencyKey === undefined ? {} : { idempotencyKey }));
  });

  return api;
}
