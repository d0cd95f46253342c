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
import { overviewRoutes } from './overview.js';

export interface RouterOptions {
  readonly config: Config;
  readonly projects: Projects;
  readonly catalog: () => Catalog;
  /** The daemon's sign-in sessions: signing in once opens every project the token holds a role in. */
  readonly sessions: SessionStore;
  /** Several daemons on PostgreSQL: sessions are shared, so a sign-out is told to the other daemons. */
  readonly sharedSessions: boolean;
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
function forward(c: Context<{ Variables: RequestVariables }>, runtime: ProjectRuntime): Response | Promise<Response> {
  const env: ForwardedEnv = { ...(c.env as object), requestId: c.get('requestId'), tell: (agent) => agent && c.set('agent', agent) };
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

  const principalOfToken = (c: Context): Principal | undefined => {
    const token = bearerTokenOf(c.req.header('authorization'));
    return token === undefined ? undefined : catalog().findByToken(token);
  };
  const principalOfSession = async (c: Context): Promise<Principal | undefined> => {
    const live = await liveSessionOf(c, sessions);
    const hash = live && sessions.tokenHashOf(live.id);
    return hash ? catalog().findByTokenHash(hash) : undefined;
  };
  const fallback = () => projects.get('default') ?? projects.all[0];

  // /p/SLUG/...: the project named; its page files are the same for every project (they hold no board data).
  app.all('/p/*', async (c) => {
    const match = SLUG_PATH.exec(c.req.path);
    if (!match) return c.notFound();
    const slug = match[1]!;
    const rest = match[2] ?? '';
    if (rest === '') return c.redirect(`${projectPrefix(slug)}/`, 308);
    const runtime = projects.get(slug);
    if (isBearerPath(rest)) {
      const principal = principalOfToken(c);
      if (!principal) return unauthorized(c);
      if (!runtime || roleIn(catalog(), principal, slug) === undefined) return forbidden(c, principal);
      return forward(c, runtime);
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
  const ownProject = async (c: Context, principal: Principal | undefined): Promise<Response> => {
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
    return forward(c, runtime);
  };
  for (const path of ['/mcp', '/mcp/*', '/api/*']) app.all(path, (c) => ownProject(c, principalOfToken(c)));
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
