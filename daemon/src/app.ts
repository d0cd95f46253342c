// The HTTP application: routes and their guards, composed once.
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AgentDirectory } from './agents.js';
import type { ToolDispatcher } from './board/dispatch.js';
import type { Config } from './config.js';
import type { EventBus } from './events.js';
import { apiRoutes } from './http/api.js';
import { bearerAuth, type AuthVariables } from './http/auth.js';
import { hostGuard } from './http/host-guard.js';
import { onError } from './http/on-error.js';
import { requestLog } from './http/request-log.js';
import { mcpRoutes } from './mcp.js';
import { RateLimiter } from './rate-limit.js';
import { statusRoutes } from './status.js';
import type { BoardStore } from './store/store.js';

export interface AppOptions {
  readonly config: Config;
  readonly store: BoardStore;
  readonly agents: () => AgentDirectory;
  readonly dispatcher: ToolDispatcher;
  readonly events: EventBus;
}

const MAX_BODY_BYTES = 1024 * 1024;

export function createApp(options: AppOptions): Hono {
  const { config } = options;
  const app = new Hono();
  app.onError(onError);
  app.use('*', requestLog());

  const guarded = hostGuard({ allowedHosts: config.allowedHosts, refusalStatus: 403 });
  const auth = bearerAuth({ agents: options.agents });
  const limit = bodyLimit({ maxSize: MAX_BODY_BYTES });

  const protectedApp = new Hono<{ Variables: AuthVariables }>();
  for (const path of ['/mcp', '/mcp/*', '/api/*']) protectedApp.use(path, guarded, limit, auth);
  protectedApp.route('/mcp', mcpRoutes(options.dispatcher));
  protectedApp.route('/api/v1', apiRoutes(options.dispatcher, options.store));

  app.use('/status', hostGuard({ allowedHosts: config.allowedHosts, refusalStatus: 404 }));
  app.route('/status', statusRoutes({
    store: options.store,
    agents: options.agents,
    boardName: config.boardName,
    limiter: new RateLimiter({ perMinute: config.statusRateLimitPerMinute }),
    trustProxy: config.trustProxy,
  }));
  app.route('/', protectedApp);
  app.notFound((c) => c.json({ error: { code: 'not_found', message: `no route ${c.req.method} ${c.req.path}; the board serves /mcp, /api/v1/tools/{name} and /status` } }, 404));
  return app;
}
