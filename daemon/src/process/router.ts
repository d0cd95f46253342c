// Which project a request is for. `/p/SLUG/...` names it; the unprefixed `/mcp`, `/api/...` and the page's reads serve
// the caller's own project (an agent's, or a person's `default` or only one), so entries made before projects keep
// working. A token that is valid here but not for the project in the URL is refused with 403, the same answer whether
// or not that project exists. Everything past this point is one project's own app (process/project.ts).
import { Hono, type Context } from 'hono';
import { projectPrefix } from 'roundtable-shared';
import { homeProject, roleIn, type Catalog, type Principal } from '../agents/catalog.js';
import type { Agent } from '../agents/directory.js';
import { bearerTokenOf, unauthorized } from '../http/auth.js';
import { bodyLimit } from '../http/body-limit.js';
import { hostGuard } from '../http/host-guard.js';
import { onError } from '../http/on-error.js';
import { requestLog, type ForwardedEnv, type RequestVariables } from '../http/request-log.js';
import type { Config } from '../runtime/config.js';
import { RateLimiter } from '../runtime/rate-limit.js';
import { sessionDigest } from '../store/shared-sessions.js';
import { liveSessionOf } from '../web/session-auth.js';
import { sessionRoutes } from '../web/session-routes.js';
import type { SessionStore } from '../web/sessions.js';
import { securityHeaders } from '../web/security-headers.js';
import { PAGE_FILES, staticRoutes } from '../web/static-files.js';
import { SIGN_IN_ATTEMPTS_PER_MINUTE } from '../web/index.js';
import type { Projects } from './projects.js';
import type { ProjectRuntime } from './project.js';
import type { AccessTokens } from '../oauth/resource.js';
import { isAccessToken } from '../oauth/resource.js';
import { bearerChallenge, mcpBaseOf, originOf, resourceOf } from '../oauth/urls.js';
import { overviewRoutes } from './overview.js';

export interface RouterOptions {
  readonly config: Config;
  readonly projects: Projects;
  readonly catalog: () => Catalog;
  /** The daemon's sign-in sessions: signing in once opens every project the token holds a role in. */
  readonly sessions: SessionStore;
  /** Several daemons on PostgreSQL: sessions are shared, so a sign-out is told to the other daemons. */
  readonly sharedSessions: boolean;
  /** The authorization server's routes (oauth/routes.ts): discovery, consent, tokens, registration. */
  readonly oauth: Hono;
  readonly accessTokens: AccessTokens;
}

const SLUG_PATH = /^\/p\/([^/]+)(\/.*)?$/;
const MAX_SIGN_IN_BODY_BYTES = 8 * 1024;

/** A project's routes that take a bearer token, and those the page reads or acts through with its session. */
const isBearerPath = (rest: string) => rest === '/mcp' || rest.startsWith('/mcp/') || rest.startsWith('/api/');
const isSessionPath = (rest: string) => rest.startsWith('/view/') || rest === '/events' || rest.startsWith('/actions/');

function forbidden(c: Context, principal: Principal): Response {
  const own = principal.kind === 'agent' ? `this token belongs to project "${principal.project}": use ${projectPrefix(principal.project)}/mcp (or the unprefixed /mcp)` : 'use the URL of a project you hold a role in: the board page at / lists yours';
  return c.json({ error: { code: 'forbidden', message: `forbidden: this token does not open the project named in the URL; ${own}` } }, 403);
}

/** Passes the request, as it came, to a project's own app, which reads its path without the /p/SLUG prefix (app.ts). */
function forward(c: Context<{ Variables: RequestVariables }>, runtime: ProjectRuntime, oauthAgent?: Agent): Response | Promise<Response> {
  const env: ForwardedEnv = { ...(c.env as object), requestId: c.get('requestId'), tell: (agent) => agent && c.set('agent', agent), oauthAgent };
  return runtime.app.fetch(c.req.raw, env);
}

/**
 * A request under a slug no project holds, answered by another project's app as if it were its own (the same 401, the
 * same page files), so the answer does not tell whether the project exists. Rare: the request is rebuilt for it.
 */
function forwardAsOther(c: Context<{ Variables: RequestVariables }>, runtime: ProjectRuntime, rest: string): Response | Promise<Response> {
  const raw = c.req.raw;
  const url = new URL(raw.url);
  url.pathname = `${projectPrefix(runtime.slug)}${rest}`;
  const hasBody = raw.method !== 'GET' && raw.method !== 'HEAD';
  const request = new Request(url, { method: raw.method, headers: raw.headers, body: hasBody ? raw.body : null, signal: raw.signal, ...(hasBody && { duplex: 'half' }) } as RequestInit);
  const env: ForwardedEnv = { ...(c.env as object), requestId: c.get('requestId'), tell: (agent) => agent && c.set('agent', agent) };
  return runtime.app.fetch(request, env);
}

export function createRouter(options: RouterOptions): Hono<{ Variables: RequestVariables }> {
  const { config, projects, catalog, sessions } = options;
  const app = new Hono<{ Variables: RequestVariables }>();
  app.onError(onError);
  app.use('*', requestLog());

  /**
   * The caller of a bearer route: an agent's or person's token, or an OAuth access token, which is good only on the MCP
   * URL it was issued for (the project named, or `default` for the unprefixed /mcp).
   */
  const principalOfToken = async (c: Context): Promise<Principal | undefined> => {
    const token = bearerTokenOf(c.req.header('authorization'));
    if (token === undefined) return undefined;
    if (!isAccessToken(token)) return catalog().findByToken(token);
    const base = mcpBaseOf(c.req.path);
    const runtime = base && projects.get(base.slug);
    if (!base || !runtime) return undefined;
    return options.accessTokens.principalOf(token, base.slug, resourceOf(originOf(c, config), base), runtime.opened.oauth, catalog());
  };
  /** The agent an OAuth token resolved to, handed to the project's app with the request. */
  const oauthAgentOf = (c: Context, principal: Principal): Agent | undefined =>
    principal.kind === 'agent' && isAccessToken(bearerTokenOf(c.req.header('authorization')) ?? '') ? catalog().project(principal.project)?.directory.find(principal.name) : undefined;
  /** A 401 on an MCP URL names where its authorization server is. */
  const refuse = (c: Context): Response => {
    const base = mcpBaseOf(c.req.path);
    return base ? unauthorized(c, bearerChallenge(c, config, base)) : unauthorized(c);
  };
  const principalOfSession = async (c: Context): Promise<Principal | undefined> => {
    const live = await liveSessionOf(c, sessions);
    const hash = live && sessions.tokenHashOf(live.id);
    return hash ? catalog().findByTokenHash(hash) : undefined;
  };
  const fallback = () => projects.get('default') ?? projects.all[0];

  // OAuth (issue 34): discovery at the root, and each project's authorization server under /oauth and /p/SLUG/oauth.
  const signInGuard = hostGuard({ allowedHosts: config.allowedHosts, refusalStatus: 403, trustProxy: config.trustProxy });
  for (const path of ['/oauth/authorize', '/oauth/sign-in', '/p/:slug/oauth/authorize', '/p/:slug/oauth/sign-in']) {
    app.post(path, signInGuard, bodyLimit({ maxSize: MAX_SIGN_IN_BODY_BYTES * 2 }));
  }
  for (const path of ['/oauth/token', '/oauth/register', '/p/:slug/oauth/token', '/p/:slug/oauth/register']) app.post(path, bodyLimit({ maxSize: MAX_SIGN_IN_BODY_BYTES * 2 }));
  app.route('/', options.oauth);

  // /p/SLUG/...: the project named; its page files are the same for every project (they hold no board data).
  app.all('/p/*', async (c) => {
    const match = SLUG_PATH.exec(c.req.path);
    if (!match) return c.notFound();
    const slug = match[1]!;
    const rest = match[2] ?? '';
    if (rest === '') return c.redirect(`${projectPrefix(slug)}/`, 308);
    const runtime = projects.get(slug);
    if (isBearerPath(rest)) {
      const principal = await principalOfToken(c);
      if (!principal) return refuse(c);
      if (!runtime || roleIn(catalog(), principal, slug) === undefined) return forbidden(c, principal);
      return forward(c, runtime, oauthAgentOf(c, principal));
    }
    if (isSessionPath(rest)) {
      const principal = await principalOfSession(c);
      if (principal && (!runtime || roleIn(catalog(), principal, slug) === undefined)) return forbidden(c, principal);
      // No session: the project's own app answers 401 as it always has (for an unknown slug, another project's app does).
      if (runtime) return forward(c, runtime);
      const serving = fallback();
      return serving ? forwardAsOther(c, serving, rest) : c.json({ error: { code: 'unauthorized', message: 'sign in on the board page first' } }, 401);
    }
    if (rest === '/status') return c.notFound();
    // Sign-in and the page's files: any project's app serves them alike; an unknown slug admits nothing by its answer.
    if (runtime) return forward(c, runtime);
    const serving = fallback();
    return serving ? forwardAsOther(c, serving, rest) : c.notFound();
  });

  // The unprefixed bearer routes: the caller's own project.
  const ownProject = async (c: Context, principal: Principal | undefined, oauthAgent?: Agent): Promise<Response> => {
    if (!principal) {
      const serving = fallback();
      return serving ? forward(c, serving) : unauthorized(c);
    }
    const slug = homeProject(catalog(), principal);
    const runtime = slug === undefined ? undefined : projects.get(slug);
    if (!runtime) {
      const message = 'this sign-in holds a role in several projects (or none being served): name the project in the URL, /p/SLUG/...; the board page at / lists yours';
      return c.json({ error: { code: 'forbidden', message } }, 403);
    }
    return forward(c, runtime, oauthAgent);
  };
  for (const path of ['/mcp', '/mcp/*', '/api/*']) {
    app.all(path, async (c) => {
      const principal = await principalOfToken(c);
      return ownProject(c, principal, principal && oauthAgentOf(c, principal));
    });
  }
  for (const path of ['/view/*', '/events', '/actions/*']) app.all(path, async (c) => ownProject(c, await principalOfSession(c)));
  app.all('/status', (c) => {
    const serving = projects.get('default');
    return serving ? forward(c, serving) : c.notFound();
  });

  // Signing in once, at the daemon: any agent's or person's token; the cookie then opens each of their projects.
  const guarded = hostGuard({ allowedHosts: config.allowedHosts, refusalStatus: 403, trustProxy: config.trustProxy });
  const pageGuard = hostGuard({ allowedHosts: config.allowedHosts, refusalStatus: 404, trustProxy: config.trustProxy });
  const headers = securityHeaders();
  for (const path of ['/session', '/session/*']) app.use(path, guarded, headers, bodyLimit({ maxSize: MAX_SIGN_IN_BODY_BYTES }));
  app.route(
    '/session',
    sessionRoutes({
      sessions,
      limiter: new RateLimiter({ perMinute: SIGN_IN_ATTEMPTS_PER_MINUTE }),
      trustProxy: config.trustProxy,
      onSignOut: (id, stood) => {
        for (const runtime of projects.all) {
          runtime.web.endSession(id);
          // Several daemons: each project's pages on the others end this session's streams too (web/index.ts).
          if (stood && options.sharedSessions) runtime.events.publish({ type: 'session_ended', session_sha256: sessionDigest(id) });
        }
      },
    }),
  );
  for (const path of [...Object.keys(PAGE_FILES), '/overview']) app.use(path, pageGuard, headers);
  app.route('/overview', overviewRoutes({ projects, catalog, principalOf: principalOfSession, boardName: config.boardName }));
  app.route('/', staticRoutes());

  app.notFound((c) => c.json({ error: { code: 'not_found', message: `no route ${c.req.method} ${c.req.path}; the board serves /mcp, /p/SLUG/mcp, /api/v1/tools/{name}, /status and its web page at /` } }, 404));
  return app;
}

/** How the daemon's sign-in names a principal to the page: an agent as itself, a person by name (role: their highest). */
export function principalAsAgent(catalog: Catalog, principal: Principal): Agent | undefined {
  if (principal.kind === 'agent') return catalog.project(principal.project)?.directory.find(principal.name);
  const roles = [...principal.grants.values()];
  return { name: principal.name, role: roles.includes('owner') ? 'owner' : 'observer', skills: [] };
}
