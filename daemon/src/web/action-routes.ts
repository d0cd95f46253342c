// An owner's actions on the live page: POST /actions/{tool} with the tool's arguments, run by the same dispatcher as
// /mcp and the JSON API (same rules, rate limit, idempotency and audit row, its face recorded as 'web'); and
// POST /actions/revoke_app, which is no tool: it ends a connected app's grant (connected-apps.ts).
import type { Context } from 'hono';
import { Hono } from 'hono';
import type { ToolDispatcher } from '../board/dispatch.js';
import { InvalidInput, NotFound } from '../errors.js';
import { JSON_TOO_DEEP, nestedDeeperThan } from '../http/json-depth.js';
import type { ConnectedApps } from './connected-apps.js';
import type { SessionVariables } from './session-auth.js';

/** The tools the page offers an owner: planning, reviewing, recovering claims, talking and marking the room read (Needs me). Nothing else is routed. */
export const PAGE_ACTIONS: readonly string[] = ['create_task', 'update_task', 'cancel_task', 'review_task', 'release_task', 'post_message', 'post', 'read_unread'];

/** The page's actions that are not tools: they act on the project's sign-in grants, not on the board. */
const GRANT_ACTIONS: readonly string[] = ['revoke_app'];

async function argumentsOf(c: Context): Promise<unknown> {
  if (!/^application\/json\s*(;|$)/i.test(c.req.header('content-type') ?? '')) {
    throw new InvalidInput('send the action\'s arguments as JSON (Content-Type: application/json)');
  }
  let args: unknown;
  try {
    args = JSON.parse(await c.req.text());
  } catch {
    throw new InvalidInput('the request body is not valid JSON; send the action\'s arguments as a JSON object');
  }
  if (nestedDeeperThan(args)) throw new InvalidInput(JSON_TOO_DEEP);
  return args;
}

export function actionRoutes(dispatcher: ToolDispatcher, apps: ConnectedApps): Hono<{ Variables: SessionVariables }> {
  const routes = new Hono<{ Variables: SessionVariables }>();

  routes.post('/revoke_app', async (c) => {
    c.header('Cache-Control', 'no-store');
    const args = await argumentsOf(c);
    return c.json(await apps.revoke(c.get('agent'), args));
  });

  routes.post('/:tool', async (c) => {
    c.header('Cache-Control', 'no-store');
    const tool = c.req.param('tool');
    if (!PAGE_ACTIONS.includes(tool)) throw new NotFound(`the board page has no action "${tool}"; it offers ${[...PAGE_ACTIONS, ...GRANT_ACTIONS].join(', ')}`);
    const args = await argumentsOf(c);
    const idempotencyKey = c.req.header('idempotency-key');
    const output = await dispatcher.call(c.get('agent'), tool, args, {
      face: 'web',
      requestId: c.get('requestId'),
      signal: c.req.raw.signal,
      ...(idempotencyKey !== undefined && { idempotencyKey }),
    });
    return c.json(output);
  });

  return routes;
}
