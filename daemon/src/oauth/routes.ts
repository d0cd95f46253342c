// The board as an OAuth 2.1 authorization server for its MCP URLs (issue 34): discovery documents, the consent page,
// the token endpoint and (when the owner turns it on) dynamic client registration. Each project is its own
// authorization server (urls.ts); its grants, codes and tokens are in its own store, so every daemon of a PostgreSQL
// board redeems what another issued, and revoking ends access on all of them at once.
import { Hono, type Context } from 'hono';
import { OAuthClientMetadataSchema } from '@modelcontextprotocol/core';
import { PROJECT_SLUG_PATTERN, type PersonRole, type Role } from 'roundtable-shared';
import { roleIn, type Catalog, type Principal } from '../agents/catalog.js';
import { NAME_PATTERN, RESERVED_NAMES } from '../agents/directory.js';
import type { EventBus } from '../events.js';
import { cameOverHttps, clientIp } from '../http/client.js';
import type { Config } from '../runtime/config.js';
import { log } from '../runtime/log.js';
import type { RateLimiter } from '../runtime/rate-limit.js';
import type { GrantRow, OAuthStore } from '../store/oauth-port.js';
import type { BoardStore } from '../store/store.js';
import { csrfTokenFor } from '../web/csrf.js';
import { liveSessionOf, setSessionCookie } from '../web/session-auth.js';
import type { SessionStore } from '../web/sessions.js';
import { judgeAuthorize, redirectWith, type AuthorizeParams } from './authorize-request.js';
import { isDocumentClientId } from './client-document.js';
import { redirectUriMistake, type ClientDirectory } from './clients.js';
import { CARRIED, consentPage, errorPage, signInPage } from './consent-page.js';
import { grantableAgents, newAgentRoles } from './grant-roles.js';
import { authorizationServerMetadata, protectedResourceMetadata } from './metadata.js';
import { ACCESS_PREFIX, CLIENT_PREFIX, CODE_PREFIX, newSecret, REFRESH_PREFIX, sha256Hex, verifierMatches } from './secrets.js';
import { baseOf, issuerOf, originOf, resourceOf, UNPREFIXED, type OAuthBase } from './urls.js';

/** A code is good for a minute (RFC 6749 section 4.1.2 recommends at most ten). */
const CODE_TTL_MS = 60_000;
const MAX_FORM_FIELD_CHARS = 4096;

/** One project as the authorization server sees it. */
export interface OAuthProject {
  readonly oauth: OAuthStore;
  readonly store: BoardStore;
  /** Told of a new grant, so the project's open pages read their connected apps again. */
  readonly events: EventBus;
}

export interface OAuthRoutesOptions {
  readonly config: Config;
  readonly project: (slug: string) => OAuthProject | undefined;
  readonly catalog: () => Catalog;
  readonly sessions: SessionStore;
  readonly clients: ClientDirectory;
  /** Adds an agent to a project's catalog and puts the new catalog in force; resolves to its token's hash (hex). */
  readonly addAgent: (slug: string, name: string, role: Role) => Promise<string>;
  /** Sign-in attempts on the consent page, per client IP. */
  readonly limiter: RateLimiter;
  /** Dynamic registrations, per client IP. */
  readonly registrations: RateLimiter;
}

type Form = Record<string, string | undefined>;

async function formOf(c: Context): Promise<Form | undefined> {
  const type = (c.req.header('content-type') ?? '').toLowerCase();
  if (!type.startsWith('application/x-www-form-urlencoded')) return undefined;
  const body = await c.req.parseBody();
  const form: Form = {};
  for (const [name, value] of Object.entries(body)) {
    if (typeof value !== 'string' || value.length > MAX_FORM_FIELD_CHARS) return undefined;
    form[name] = value;
  }
  return form;
}

/** RFC 6749 section 5.2: an error the token endpoint answers, never with the client's own words. */
function tokenError(c: Context, error: string, description: string, status: 400 | 401 = 400): Response {
  c.header('Cache-Control', 'no-store');
  return c.json({ error, error_description: description }, status);
}

/** The discovery documents and the token endpoint are read by apps from any origin; no cookie is involved. */
function allowAnyOrigin(c: Context): void {
  c.header('Access-Control-Allow-Origin', '*');
  c.header('Access-Control-Allow-Headers', 'authorization, content-type, mcp-protocol-version');
}

export function oauthRoutes(options: OAuthRoutesOptions): Hono {
  const { config, catalog, sessions, clients } = options;
  const app = new Hono();

  const baseFromParam = (slug: string | undefined): OAuthBase | undefined => (slug === undefined ? UNPREFIXED : PROJECT_SLUG_PATTERN.test(slug) ? baseOf(slug) : undefined);

  // Discovery (RFC 9728, RFC 8414): documents for any well-formed slug, so they tell nothing of which projects exist.
  const resourceDoc = (c: Context, base: OAuthBase | undefined) => {
    if (!base) return c.notFound();
    allowAnyOrigin(c);
    return c.json(protectedResourceMetadata(originOf(c, config), base, catalog().project(base.slug)?.title ?? config.boardName));
  };
  const serverDoc = (c: Context, base: OAuthBase | undefined) => {
    if (!base) return c.notFound();
    allowAnyOrigin(c);
    return c.json(authorizationServerMetadata(originOf(c, config), base, config.oauth.registration));
  };
  app.get('/.well-known/oauth-protected-resource', (c) => resourceDoc(c, UNPREFIXED));
  app.get('/.well-known/oauth-protected-resource/mcp', (c) => resourceDoc(c, UNPREFIXED));
  app.get('/.well-known/oauth-protected-resource/p/:slug/mcp', (c) => resourceDoc(c, baseFromParam(c.req.param('slug'))));
  for (const doc of ['oauth-authorization-server', 'openid-configuration']) {
    app.get(`/.well-known/${doc}`, (c) => serverDoc(c, UNPREFIXED));
    app.get(`/.well-known/${doc}/p/:slug`, (c) => serverDoc(c, baseFromParam(c.req.param('slug'))));
    app.get(`/p/:slug/.well-known/${doc}`, (c) => serverDoc(c, baseFromParam(c.req.param('slug'))));
  }
  app.options('/.well-known/*', (c) => (allowAnyOrigin(c), c.body(null, 204)));

  /** The person signed in on this browser, and their role in the project, if any. */
  const personOf = async (c: Context, slug: string): Promise<{ principal: Principal; sessionId: string; role: PersonRole | undefined } | undefined> => {
    const live = await liveSessionOf(c, sessions);
    const hash = live && sessions.tokenHashOf(live.id);
    const principal = hash && catalog().findByTokenHash(hash);
    if (!live || !principal) return undefined;
    const role = principal.kind === 'person' ? principal.grants.get(slug) : undefined;
    return { principal, sessionId: live.id, role };
  };

  const judge = async (c: Context, base: OAuthBase, params: AuthorizeParams) => {
    const project = options.project(base.slug);
    const clientId = params['client_id'];
    const lookup = clientId && project ? await clients.find(clientId, project.oauth) : clientId ? ({ ok: false, why: 'client_id is not registered with this project' } as const) : undefined;
    return judgeAuthorize(params, lookup, resourceOf(originOf(c, config), base));
  };

  const backToClient = (c: Context, base: OAuthBase, redirectUri: string, params: Record<string, string | undefined>) => {
    c.header('Cache-Control', 'no-store');
    return c.redirect(redirectWith(redirectUri, { ...params, iss: issuerOf(originOf(c, config), base) }), 303);
  };

  /** The consent page allows its form to send the browser on to the client's redirect URI (CSP form-action). */
  const pageHeaders = (c: Context, redirectUri: string | undefined) => {
    let target = '';
    if (redirectUri) {
      const url = new URL(redirectUri);
      target = url.protocol === 'http:' || url.protocol === 'https:' ? ` ${url.origin}` : ` ${url.protocol}`;
    }
    c.header('Content-Security-Policy', `default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'${target}; frame-ancestors 'none'`);
    c.header('Cache-Control', 'no-store');
    // same-origin, not no-referrer: with no-referrer a browser sends `Origin: null` on the form's POST, which the host
    // guard must refuse; the client's site still gets no referrer.
    c.header('Referrer-Policy', 'same-origin');
    c.header('X-Frame-Options', 'DENY');
  };

  const showAuthorize = async (c: Context, base: OAuthBase, params: AuthorizeParams, problem?: string) => {
    const judged = await judge(c, base, params);
    if (judged.kind === 'page') return (pageHeaders(c, undefined), c.html(errorPage(judged.message), 400));
    if (judged.kind === 'redirect') return backToClient(c, base, judged.redirectUri, { error: judged.error, error_description: judged.description, state: judged.state });
    const { request } = judged;
    pageHeaders(c, request.redirectUri);
    const info = catalog().project(base.slug);
    const title = info?.title ?? base.slug;
    const person = await personOf(c, base.slug);
    if (!person) {
      const query = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined)).toString();
      return c.html(signInPage(title, `${base.prefix}/oauth/sign-in`, `${base.prefix}/oauth/authorize?${query}`, false));
    }
    if (!info || !person.role) {
      const why = person.principal.kind === 'agent' ? 'you are signed in with an agent token; sign in as a person (roundtable people add) to connect apps' : 'you hold no role in this project; an owner can grant you one (roundtable people grant)';
      return c.html(errorPage(why), 403);
    }
    const agents = info.directory.list();
    return c.html(
      consentPage({
        project: title,
        person: person.principal.name,
        personRole: person.role,
        clientName: request.client.clientName,
        clientId: request.client.clientId,
        redirectHost: hostOf(request.redirectUri),
        agents: grantableAgents(person.role, agents),
        roles: newAgentRoles(person.role, info.mode, agents),
        params,
        csrf: csrfTokenFor(person.sessionId),
        action: `${base.prefix}/oauth/authorize`,
        problem,
      }),
    );
  };

  const decide = async (c: Context, base: OAuthBase) => {
    const form = await formOf(c);
    if (!form) return (pageHeaders(c, undefined), c.html(errorPage('the consent form was not sent as a form; go back to the app and start again'), 400));
    const params: AuthorizeParams = Object.fromEntries(CARRIED.map((name) => [name, form[name]]));
    const judged = await judge(c, base, params);
    if (judged.kind === 'page') return (pageHeaders(c, undefined), c.html(errorPage(judged.message), 400));
    if (judged.kind === 'redirect') return backToClient(c, base, judged.redirectUri, { error: judged.error, error_description: judged.description, state: judged.state });
    const person = await personOf(c, base.slug);
    // Consent needs the session and the page's CSRF token: a signed-out browser, or a post from elsewhere, grants nothing.
    if (!person || form['csrf'] !== csrfTokenFor(person.sessionId)) {
      return (pageHeaders(c, undefined), c.html(errorPage('this consent was not sent from the board\'s own page while signed in; go back to the app and start again'), 403));
    }
    const { request } = judged;
    if (form['decision'] !== 'allow') return backToClient(c, base, request.redirectUri, { error: 'access_denied', error_description: 'the person denied the request', state: request.state });
    const info = catalog().project(base.slug);
    const project = options.project(base.slug);
    if (!info || !project || !person.role) return (pageHeaders(c, undefined), c.html(errorPage('you hold no role in this project'), 403));
    const chosen = await chooseAgent(form, person.role, base.slug);
    if ('problem' in chosen) return showAuthorize(c, base, params, chosen.problem);
    const code = newSecret(CODE_PREFIX);
    const now = new Date();
    const grant: GrantRow = {
      id: newSecret('grant_').slice(0, 30),
      clientId: request.client.clientId,
      clientName: request.client.clientName,
      redirectUri: request.redirectUri,
      resource: request.resource,
      agent: chosen.agent,
      agentTokenSha256: chosen.tokenSha256,
      grantedBy: person.principal.name,
      createdAt: now.toISOString(),
      lastUsedAt: null,
      revokedAt: null,
    };
    await project.oauth.createGrant(grant, { codeSha256: sha256Hex(code), redirectUri: request.redirectUri, codeChallenge: request.codeChallenge, expiresAt: new Date(now.getTime() + CODE_TTL_MS).toISOString() });
    await project.store.appendAudit({ agent: person.principal.name, tool: 'oauth_grant', taskId: null, outcome: 'ok', face: 'web' });
    project.events.publish({ type: 'presence', agent: chosen.agent });
    log.info('an app was granted access', { project: base.slug, agent: chosen.agent, granted_by: person.principal.name });
    return backToClient(c, base, request.redirectUri, { code, state: request.state });
  };

  /** The agent the person chose: one they may grant, or a new one with a role no higher than theirs. */
  const chooseAgent = async (form: Form, personRole: PersonRole, slug: string): Promise<{ agent: string; tokenSha256: string } | { problem: string }> => {
    const info = catalog().project(slug)!;
    const agents = info.directory.list();
    const choice = form['agent'] ?? 'new';
    if (choice.startsWith('agent:')) {
      const name = choice.slice('agent:'.length);
      const agent = grantableAgents(personRole, agents).find((a) => a.name === name);
      const hash = agent && info.directory.tokenHashOf(agent.name);
      if (!agent || !hash) return { problem: 'you may not grant that agent: choose one listed, or a new agent' };
      return { agent: agent.name, tokenSha256: hash };
    }
    const name = (form['new_name'] ?? '').trim();
    const role = form['new_role'] as Role | undefined;
    if (!NAME_PATTERN.test(name) || RESERVED_NAMES.has(name)) return { problem: "the new agent's name must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit" };
    if (agents.some((a) => a.name.toLowerCase() === name.toLowerCase()) || catalog().people.some((p) => p.name.toLowerCase() === name.toLowerCase())) {
      return { problem: 'that name is taken in this project: choose another, or pick the existing agent' };
    }
    if (!role || !newAgentRoles(personRole, info.mode, agents).includes(role)) return { problem: 'that role is above what you may grant here: choose one listed' };
    try {
      return { agent: name, tokenSha256: await options.addAgent(slug, name, role) };
    } catch (error) {
      log.warn('an agent could not be added for an app', { project: slug, error: error instanceof Error ? error.message : String(error) });
      return { problem: 'the agent could not be added (the catalog refused the change); try another name or role' };
    }
  };

  const signIn = async (c: Context, base: OAuthBase) => {
    pageHeaders(c, undefined);
    const wait = options.limiter.take(clientIp(c, config.trustProxy));
    if (wait > 0) return c.html(errorPage('too many sign-in attempts; wait a minute and try again'), 429);
    const form = await formOf(c);
    const returnTo = form?.['return_to'] ?? '';
    // Only back to this project's own authorize page: never an open redirect.
    if (!returnTo.startsWith(`${base.prefix}/oauth/authorize?`)) return c.html(errorPage('the sign-in form was not sent from the board\'s own page'), 400);
    const signedIn = form?.['token'] ? await sessions.establish(form['token'].trim()) : undefined;
    if (!signedIn) return c.html(signInPage(catalog().project(base.slug)?.title ?? base.slug, `${base.prefix}/oauth/sign-in`, returnTo, true), 401);
    setSessionCookie(c, signedIn.id, sessions.maxAgeSeconds, cameOverHttps(c, config.trustProxy));
    return c.redirect(returnTo, 303);
  };

  const token = async (c: Context, base: OAuthBase) => {
    allowAnyOrigin(c);
    const form = await formOf(c);
    if (!form) return tokenError(c, 'invalid_request', 'send the token request as application/x-www-form-urlencoded (RFC 6749 section 4.1.3)');
    const project = options.project(base.slug);
    const clientId = form['client_id'];
    if (!clientId) return tokenError(c, 'invalid_client', 'client_id is required (public clients authenticate with none)', 401);
    if (!project) return tokenError(c, 'invalid_grant', 'the code or refresh token is not valid for this authorization server');
    // A registered client that is gone (or never was): 401 invalid_client tells a client such as Claude to register again.
    if (!isDocumentClientId(clientId, config.oauth.allowLoopback) && !(await project.oauth.findClient(clientId))) {
      return tokenError(c, 'invalid_client', 'client_id is not registered with this project; register again', 401);
    }
    const resource = form['resource'];
    const expected = resourceOf(originOf(c, config), base);
    if (resource !== undefined && resource !== expected) return tokenError(c, 'invalid_target', `resource must be this project's MCP URL, ${expected}`);
    const now = new Date();
    const access = newSecret(ACCESS_PREFIX);
    const refresh = newSecret(REFRESH_PREFIX);
    const issued = {
      accessSha256: sha256Hex(access),
      accessExpiresAt: new Date(now.getTime() + config.oauth.accessTtlMs).toISOString(),
      refreshSha256: sha256Hex(refresh),
      refreshExpiresAt: new Date(now.getTime() + config.oauth.refreshTtlMs).toISOString(),
    };
    const answer = () => {
      c.header('Cache-Control', 'no-store');
      c.header('Pragma', 'no-cache');
      return c.json({ access_token: access, token_type: 'Bearer', expires_in: Math.floor(config.oauth.accessTtlMs / 1000), refresh_token: refresh, scope: 'board' });
    };
    const grantType = form['grant_type'];
    if (grantType === 'authorization_code') {
      const code = form['code'];
      const verifier = form['code_verifier'];
      const redirectUri = form['redirect_uri'];
      if (!code || !verifier) return tokenError(c, 'invalid_request', 'code and code_verifier are required');
      const redeemed = await project.oauth.redeemCode(sha256Hex(code), now.toISOString(), (found) => found.grant.clientId === clientId && found.redirectUri === redirectUri && verifierMatches(verifier, found.codeChallenge), issued);
      if (redeemed.outcome === 'redeemed') {
        if (!agentStillHolds(base.slug, redeemed.grant)) {
          await project.oauth.revokeGrant(redeemed.grant.id, now.toISOString(), 'agent_changed');
          return tokenError(c, 'invalid_grant', 'the agent this grant is for was removed or rotated since; sign in again');
        }
        return answer();
      }
      if (redeemed.outcome === 'reused') log.warn('an authorization code was presented twice; its grant is revoked', { project: base.slug });
      return tokenError(c, 'invalid_grant', 'the code is not valid: unknown, expired, used before, or not issued to this client, redirect_uri and code_verifier');
    }
    if (grantType === 'refresh_token') {
      const presented = form['refresh_token'];
      if (!presented) return tokenError(c, 'invalid_request', 'refresh_token is required');
      const rotated = await project.oauth.refresh(sha256Hex(presented), clientId, now.toISOString(), issued);
      if (rotated.outcome === 'rotated') {
        if (!agentStillHolds(base.slug, rotated.grant)) {
          await project.oauth.revokeGrant(rotated.grant.id, now.toISOString(), 'agent_changed');
          return tokenError(c, 'invalid_grant', 'the agent this grant is for was removed or rotated since; sign in again');
        }
        return answer();
      }
      if (rotated.outcome === 'reused') log.warn('a rotated refresh token was presented again; its grant is revoked', { project: base.slug });
      return tokenError(c, 'invalid_grant', 'the refresh token is not valid: unknown, expired, revoked, used before, or not issued to this client');
    }
    return tokenError(c, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
  };

  const agentStillHolds = (slug: string, grant: GrantRow): boolean => catalog().project(slug)?.directory.tokenHashOf(grant.agent) === grant.agentTokenSha256;

  const register = async (c: Context, base: OAuthBase) => {
    allowAnyOrigin(c);
    c.header('Cache-Control', 'no-store');
    if (!config.oauth.registration) {
      return c.json({ error: 'invalid_request', error_description: 'dynamic client registration is off on this board: use a client metadata document (an https client_id), or ask the owner to set ROUNDTABLE_OAUTH_REGISTRATION=true' }, 403);
    }
    const wait = options.registrations.take(clientIp(c, config.trustProxy));
    if (wait > 0) return c.json({ error: 'invalid_request', error_description: 'too many registrations from this address; wait a minute' }, 429);
    const project = options.project(base.slug);
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return c.json({ error: 'invalid_client_metadata', error_description: 'send the client metadata as JSON (RFC 7591 section 3.1)' }, 400);
    }
    const parsed = OAuthClientMetadataSchema.safeParse(body);
    if (!parsed.success || parsed.data.redirect_uris.length === 0) return c.json({ error: 'invalid_client_metadata', error_description: 'redirect_uris (a non-empty list of URLs) is required; other fields as RFC 7591 section 2 says' }, 400);
    const bad = parsed.data.redirect_uris.map(redirectUriMistake).find((m) => m !== undefined);
    if (bad) return c.json({ error: 'invalid_redirect_uri', error_description: `a redirect URI ${bad}` }, 400);
    if (!project) return c.json({ error: 'invalid_request', error_description: 'no such authorization server' }, 404);
    const client = { clientId: newSecret(CLIENT_PREFIX).slice(0, 38), clientName: parsed.data.client_name?.slice(0, 200) ?? null, redirectUris: parsed.data.redirect_uris, createdAt: new Date().toISOString() };
    await project.oauth.registerClient(client);
    return c.json(
      {
        client_id: client.clientId,
        client_id_issued_at: Math.floor(Date.parse(client.createdAt) / 1000),
        client_name: client.clientName ?? undefined,
        redirect_uris: client.redirectUris,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
      201,
    );
  };

  for (const [path, slugOf] of [
    ['/oauth', () => undefined],
    ['/p/:slug/oauth', (c: Context) => c.req.param('slug')],
  ] as const) {
    const base = (c: Context) => baseFromParam(slugOf(c));
    app.get(`${path}/authorize`, (c) => {
      const b = base(c);
      return b ? showAuthorize(c, b, c.req.query()) : c.notFound();
    });
    app.post(`${path}/authorize`, (c) => {
      const b = base(c);
      return b ? decide(c, b) : c.notFound();
    });
    app.post(`${path}/sign-in`, (c) => {
      const b = base(c);
      return b ? signIn(c, b) : c.notFound();
    });
    app.post(`${path}/token`, (c) => {
      const b = base(c);
      return b ? token(c, b) : c.notFound();
    });
    app.post(`${path}/register`, (c) => {
      const b = base(c);
      return b ? register(c, b) : c.notFound();
    });
    app.options(`${path}/*`, (c) => (allowAnyOrigin(c), c.body(null, 204)));
  }

  return app;
}

function hostOf(uri: string): string {
  const url = new URL(uri);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.host : `${url.protocol}//${url.host}`;
}

