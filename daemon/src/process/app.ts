// The HTTP application: routes and their guards, composed once.
import { Hono } from 'hono';
import { getPath } from 'hono/utils/url';
import { bodyLimit } from '../http/body-limit.js';
import type { AgentDirectory } from '../agents/directory.js';
import type { ToolDispatcher } from '../board/dispatch.js';
import type { Leases } from '../board/leases.js';
import type { Config } from '../runtime/config.js';
import type { EventBus } from '../events.js';
import { apiRoutes } from '../http/api.js';
import { bearerAuth, type AuthVariables } from '../http/auth.js';
import { hostGuard } from '../http/host-guard.js';
import { onError } from '../http/on-error.js';
import { forwardedRequest } from '../http/request-log.js';
import { mcpRoutes } from '../mcp/face.js';
import { bearerChallenge, mcpBaseOf } from '../oauth/urls.js';
import { RateLimiter } from '../runtime/rate-limit.js';
import { statusRoutes } from '../http/status.js';
import type { BoardStore } from '../store/store.js';
import type { OAuthStore } from '../store/oauth-port.js';
import type { SharedSessions } from '../store/shared-sessions.js';
import type { SessionStore } from '../web/sessions.js';
import { createWebView, historyRoutes, WEB_ACTION_PATHS, WEB_READ_PATHS, WEB_WRITE_PATHS, type ViewSources, type WebView } from '../web/index.js';

export interface AppOptions {
  readonly config: Config;
  /** What the board is called now. */
  readonly boardName: () => string;
  /** `/p/SLUG`: the prefix the project's URLs carry, taken off before routing. */
  readonly prefix?: string | undefined;
  readonly store: BoardStore;
  readonly agents: () => AgentDirectory;
  readonly dispatcher: ToolDispatcher;
  /** The project's OAuth grants (the page's connected apps). */
  readonly oauth: OAuthStore;
  readonly leases: Leases;
  readonly events: EventBus;
  /** The board's parts the web page reads through (the same instances the dispatcher uses). */
  readonly view: ViewSources;
  /** The daemon's sign-in sessions, seen by this project through its own directory. */
  readonly sessions: SessionStore;
  /** Several daemons on one PostgreSQL board: web sessions kept in the database. */
  readonly sharedSessions?: SharedSessions | undefined;
}

export interface BoardApp {
  readonly app: Hono;
  /** The live web view; close() ends its open event streams before the server closes. */
  readonly web: WebView;
}

/** A request body: room for submit_result's 1 MiB patch (LIMITS.workPatchBytes) as JSON escapes it, with its summary. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export function createApp(options: AppOptions): BoardApp {
  const { config } = options;
  // Under /p/SLUG the router passes the request on as it came: the app reads its path with the prefix taken off, so no
  // request is rebuilt on the way (a new Request cost a /p/SLUG claim a third more CPU: BENCHMARKS, issue 33).
  const prefix = options.prefix;
  const app = new Hono(prefix ? { getPath: (request) => withoutPrefix(getPath(request), prefix) } : {});
  app.onError(onError);
  app.use('*', forwardedRequest());

  const guarded = hostGuard({ allowedHosts: config.allowedHosts, refusalStatus: 403, trustProxy: config.trustProxy });
  const auth = bearerAuth({ agents: options.agents });
  // On /mcp a 401 tells an OAuth client where this project's authorization server is (RFC 9728 section 5.1).
  const mcpAuth = bearerAuth({
    agents: options.agents,
    challenge: (c) => {
      const base = mcpBaseOf(new URL(c.req.url).pathname);
      return base && bearerChallenge(c, config, base);
    },
  });
  const limit = bodyLimit({ maxSize: MAX_BODY_BYTES });
  const mcpLimit = bodyLimit({ maxSize: MAX_BODY_BYTES, answer: 'json-rpc' });

  const protectedApp = new Hono<{ Variables: AuthVariables }>();
  for (const path of ['/mcp', '/mcp/*']) protectedApp.use(path, guarded, mcpLimit, mcpAuth);
  protectedApp.use('/api/*', guarded, limit, auth);
  protectedApp.route('/mcp', mcpRoutes(options.dispatcher, { allowedHostNames: config.allowedHosts.map((h) => h.name) }));
  protectedApp.route('/api/v1', apiRoutes(options.dispatcher, options.store, options.leases));
  // The Activity timeline and, for owners, the audit log (issue 36), as the page reads them.
  protectedApp.route('/api/v1', historyRoutes(options.store));

  app.use('/status', hostGuard({ allowedHosts: config.allowedHosts, refusalStatus: 404, trustProxy: config.trustProxy }));
  app.route('/status', statusRoutes({
    store: options.store,
    agents: options.agents,
    boardName: options.boardName,
    limiter: new RateLimiter({ perMinute: config.statusRateLimitPerMinute }),
    trustProxy: config.trustProxy,
    deadlineMs: config.deadlines.callMs,
  }));
  app.route('/', protectedApp);

  // The live web page: reads refused like /status (404 admits nothing), sign-in and page actions refused like the API
  // (403); the guard's Origin check is the sign-in form's CSRF protection, SameSite=Strict the session's, and page
  // actions also carry the session's CSRF token (web/csrf.ts).
  const web = createWebView({
    store: options.store,
    agents: options.agents,
    events: options.events,
    boardName: options.boardName,
    trustProxy: config.trustProxy,
    sources: options.view,
    dispatcher: options.dispatcher,
    oauth: options.oauth,
    maxEventStreams: config.maxEventStreams,
    sessions: options.sessions,
    sharedSessions: options.sharedSessions,
  });
  const pageGuard = hostGuard({ allowedHosts: config.allowedHosts, refusalStatus: 404, trustProxy: config.trustProxy });
  for (const path of WEB_READ_PATHS) app.use(path, pageGuard);
  for (const path of [...WEB_WRITE_PATHS, ...WEB_ACTION_PATHS]) app.use(path, guarded);
  app.route('/', web.routes);

  app.notFound((c) => c.json({ error: { code: 'not_found', message: `no route ${c.req.method} ${c.req.path}; the board serves /mcp, /api/v1/tools/{name}, /status and its web page at /` } }, 404));
  return { app, web };
}

/** `/p/web/mcp` is `/mcp` to the project's app; an unprefixed path is its own. */
export function withoutPrefix(path: string, prefix: string): string {
  if (path === prefix) return '/';
  return path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : path;
}
