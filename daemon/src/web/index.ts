// The live web view, composed: the page's files, sign-in sessions, the page's reads and its event stream.
import { Hono } from 'hono';
import type { AgentDirectory } from '../agents/directory.js';
import type { TrustProxy } from '../runtime/config.js';
import type { ToolDispatcher } from '../board/dispatch.js';
import type { EventBus } from '../events.js';
import { bodyLimit } from '../http/body-limit.js';
import { RateLimiter } from '../runtime/rate-limit.js';
import type { OAuthStore } from '../store/oauth-port.js';
import type { BoardStore } from '../store/store.js';
import { actionRoutes } from './action-routes.js';
import { ConnectedApps } from './connected-apps.js';
import { pageActionGuard } from './csrf.js';
import { eventRoutes, LiveStreams } from './event-stream.js';
import { historyRoutes } from './history-routes.js';
import { securityHeaders } from './security-headers.js';
import { sessionAuth, type SessionVariables } from './session-auth.js';
import { sessionRoutes } from './session-routes.js';
import { sessionDigest, type SharedSessions } from '../store/shared-sessions.js';
import { SessionStore } from './sessions.js';
import { PAGE_FILES, staticRoutes } from './static-files.js';
import { UsageView } from './usage-view.js';
import { BoardView, type ViewSources } from './view-data.js';
import { viewRoutes } from './view-routes.js';

export type { ViewSources } from './view-data.js';
export { historyRoutes } from './history-routes.js';

/** Paths read with GET: the page, its files, its data and its event stream. */
export const WEB_READ_PATHS: readonly string[] = [...Object.keys(PAGE_FILES), '/view/*', '/events'];
/** Paths that change something: signing in and out. */
export const WEB_WRITE_PATHS: readonly string[] = ['/session', '/session/*'];
/** An owner's actions on the board (action-routes.ts): they change the board, so they are guarded like sign-in. */
export const WEB_ACTION_PATHS: readonly string[] = ['/actions/*'];
/** As for a tool call on the JSON API. */
const MAX_ACTION_BODY_BYTES = 1024 * 1024;

export const SIGN_IN_ATTEMPTS_PER_MINUTE = 10;
const MAX_SIGN_IN_BODY_BYTES = 8 * 1024;

export interface WebViewOptions {
  readonly store: BoardStore;
  readonly agents: () => AgentDirectory;
  readonly events: EventBus;
  readonly boardName: () => string;
  readonly trustProxy: TrustProxy;
  readonly sources: ViewSources;
  /** Runs an owner's page actions, as it runs every tool call. */
  readonly dispatcher: ToolDispatcher;
  /** The project's OAuth grants: the page lists the connected apps and an owner revokes one. */
  readonly oauth: OAuthStore;
  /** ROUNDTABLE_MAX_EVENT_STREAMS. */
  readonly maxEventStreams: number;
  /** The daemon's sign-in sessions (one cookie for every project); this project sees them through its directory. */
  readonly sessions: SessionStore;
  /** Several daemons on one PostgreSQL board: sessions kept in the database too. */
  readonly sharedSessions?: SharedSessions | undefined;
}

export interface WebView {
  /** Routes for WEB_READ_PATHS, WEB_WRITE_PATHS and WEB_ACTION_PATHS; the caller puts the Host/Origin guard in front of them. */
  readonly routes: Hono;
  /** Ends every open event stream (before the server closes); answers how many were open. */
  close(): number;
  /** Ends the event streams of a session signed out elsewhere (the daemon's own sign-out route, for every project). */
  endSession(id: string): void;
}

export function createWebView(options: WebViewOptions): WebView {
  const sessions = new SessionStore({ agents: options.agents, shared: options.sharedSessions, viewOf: options.sessions });
  const live = new LiveStreams({ events: options.events, sessions, maxStreams: options.maxEventStreams, log: options.store });
  const view = new BoardView({ ...options.sources, store: options.store, agents: options.agents, boardName: options.boardName });
  const apps = new ConnectedApps({ oauth: options.oauth, store: options.store, agents: options.agents, events: options.events });
  const usage = new UsageView({ store: options.store, agents: options.agents });
  const shared = options.sharedSessions !== undefined;
  // Sessions in this daemon's memory only (SQLite) end with it: the page is told when it started, so that after a
  // restart it can say so instead of "your session ended" (DECISIONS, issue 31).
  const startedAt = shared ? undefined : new Date().toISOString();
  const signedIn = sessionAuth(sessions, { startedAt });
  const headers = securityHeaders();
  // Several daemons: each holds the sessions it has seen in memory, and its streams ask only that; so a sign-out through
  // one is told to the others, which forget the session and end its streams. Only a live session's sign-out is sent,
  // so made-up cookies cannot make the daemons send NOTIFYs.
  const stopForgetting = shared
    ? options.events.subscribe((event) => {
        if (event.type !== 'session_ended') return;
        const id = sessions.forget(event.session_sha256);
        if (id !== undefined) live.endSession(id);
      })
    : undefined;

  const web = new Hono<{ Variables: SessionVariables }>();
  // Only the web paths: the API, /mcp and /status keep their own headers.
  for (const path of [...WEB_READ_PATHS, ...WEB_WRITE_PATHS, ...WEB_ACTION_PATHS]) web.use(path, headers);
  for (const path of WEB_WRITE_PATHS) web.use(path, bodyLimit({ maxSize: MAX_SIGN_IN_BODY_BYTES }));
  web.route(
    '/session',
    sessionRoutes({
      sessions,
      limiter: new RateLimiter({ perMinute: SIGN_IN_ATTEMPTS_PER_MINUTE }),
      trustProxy: options.trustProxy,
      onSignOut: (id, stood) => {
        live.endSession(id);
        if (shared && stood) options.events.publish({ type: 'session_ended', session_sha256: sessionDigest(id) });
      },
    }),
  );
  web.use('/view/*', signedIn, async (_c, next) => {
    await next();
    // What a view read may include a group commit whose fsync is still running (store/sqlite/group-commit.ts).
    await options.store.durable();
  });
  web.route('/view', viewRoutes(view, { apps, usage, startedAt }));
  web.route('/view', historyRoutes(options.store));
  web.use('/events', signedIn);
  web.route('/events', eventRoutes(live));
  for (const path of WEB_ACTION_PATHS) web.use(path, bodyLimit({ maxSize: MAX_ACTION_BODY_BYTES }), signedIn, pageActionGuard());
  web.route('/actions', actionRoutes(options.dispatcher, apps));
  web.route('/', staticRoutes());
  return {
    routes: web as unknown as Hono,
    endSession: (id) => live.endSession(id),
    close: () => {
      stopForgetting?.();
      return live.close();
    },
  };
}
