// The attacks an OAuth server must refuse (issue 34; RFC 9700), each against the real daemon over HTTP, on both stores:
// each asserts the refusal and that nothing was granted by it. Consent is posted as the board's page posts it
// (signed in, with the page's CSRF token and Origin), so each attack changes one thing from a request that works.
import { createHash, randomBytes } from 'node:crypto';
import { createServer as createHttpsServer } from 'node:https';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBoard, token, type TestBoard } from '../helpers/board.js';
import { describeEachStore } from '../helpers/stores.js';
import { makeTestPki } from '../helpers/tls.js';

const sha = (value: string) => createHash('sha256').update(value).digest('hex');
const REDIRECT = 'https://app.example/cb';
const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

describeEachStore((store) => {
  let board: TestBoard;
  let tokens: Record<string, string>;
  let documents: { url: string; close: () => void };
  let slowCalls = 0;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rt-oauth-attacks-'));
    tokens = { 'web-lead': token(), 'web-w1': token(), 'web-o1': token(), lead: token(), olive: token(), oscar: token() };
    const agent = (name: string, role: string) => ({ name, role, skills: [], token_sha256: sha(tokens[name]!) });
    writeFileSync(
      join(dir, 'agents.json'),
      JSON.stringify({
        projects: [
          { slug: 'default', mode: 'role', agents: [agent('lead', 'leader')] },
          { slug: 'web', mode: 'role', agents: [agent('web-lead', 'leader'), agent('web-w1', 'worker'), agent('web-o1', 'observer')] },
        ],
        people: [
          { name: 'olive', token_sha256: sha(tokens['olive']!), grants: { default: 'owner', web: 'owner' } },
          { name: 'oscar', token_sha256: sha(tokens['oscar']!), grants: { web: 'observer' } },
        ],
      }),
      { mode: 0o600 },
    );
    // Client metadata documents that the board must refuse: one that redirects, one too large, one too slow.
    const pki = makeTestPki('Roundtable OAuth attacks CA');
    const server = createHttpsServer({ cert: readFileSync(pki.serverCert), key: readFileSync(pki.serverKey) }, (req, res) => {
      const own = `https://127.0.0.1:${(server.address() as AddressInfo).port}${req.url}`;
      if (req.url === '/redirects.json') return res.writeHead(302, { location: '/large.json' }).end();
      if (req.url === '/large.json') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ client_id: own, redirect_uris: [REDIRECT], pad: 'x'.repeat(20_000) }));
      if (req.url === '/secret.json') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ client_id: own, redirect_uris: [REDIRECT], client_secret: 'not-a-secret-if-published' }));
      if (req.url === '/secret-method.json') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ client_id: own, redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic' }));
      if (req.url === '/slow.json') {
        slowCalls++;
        return void setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ client_id: own, redirect_uris: [REDIRECT] })), 6_000);
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    documents = { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => (server.closeAllConnections(), server.close()) };
    board = await startBoard({ store, dir, tokens, env: { ROUNDTABLE_OAUTH_REGISTRATION: '1', ROUNDTABLE_OAUTH_ALLOW_LOOPBACK: '1', NODE_EXTRA_CA_CERTS: pki.caCert } });
  });
  afterAll(async () => {
    await board?.stop();
    documents?.close();
  });

  const base = (slug = 'web') => `${board.url}/p/${slug}/oauth`;
  // Registrations and sign-ins are rate-limited per address (20 and 10 a minute): each is made once and reused.
  const clients = new Map<string, string>();
  const cookies = new Map<string, string>();
  const register = async (slug = 'web'): Promise<string> => clients.get(slug) ?? clients.set(slug, await registerNew(slug)).get(slug)!;
  const signIn = async (person: string, slug = 'web'): Promise<string> => cookies.get(`${person}/${slug}`) ?? cookies.set(`${person}/${slug}`, await signInNew(person, slug)).get(`${person}/${slug}`)!;
  async function registerNew(slug = 'web', redirect = REDIRECT): Promise<string> {
    const answer = await fetch(`${base(slug)}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: [redirect], client_name: 'attack test' }) });
    expect(answer.status).toBe(201);
    return ((await answer.json()) as { client_id: string }).client_id;
  }
  async function signInNew(person: string, slug = 'web'): Promise<string> {
    const answer = await fetch(`${base(slug)}/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: board.url },
      body: new URLSearchParams({ token: tokens[person]!, return_to: `/p/${slug}/oauth/authorize?x=1` }),
    });
    expect(answer.status).toBe(303);
    return /rt_session=([^;]+)/.exec(answer.headers.get('set-cookie') ?? '')![1]!;
  }
  const paramsFor = (clientId: string, challenge: string, slug = 'web', extra: Record<string, string> = {}) => ({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st-1',
    resource: `${board.url}/p/${slug}/mcp`,
    ...extra,
  });
  const authorizePage = (params: Record<string, string>, cookie?: string, slug = 'web') =>
    fetch(`${base(slug)}/authorize?${new URLSearchParams(params)}`, { redirect: 'manual', headers: cookie ? { cookie: `rt_session=${cookie}` } : {} });
  async function postConsent(params: Record<string, string>, form: Record<string, string>, cookie: string | undefined, csrf: string | undefined, slug = 'web'): Promise<Response> {
    return fetch(`${base(slug)}/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: board.url, ...(cookie && { cookie: `rt_session=${cookie}` }) },
      body: new URLSearchParams({ ...params, ...(csrf !== undefined && { csrf }), decision: 'allow', ...form }),
    });
  }
  async function csrfOf(params: Record<string, string>, cookie: string, slug = 'web'): Promise<string> {
    const page = await authorizePage(params, cookie, slug);
    expect(page.status).toBe(200);
    return /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!;
  }
  /** A code for web-w1, as the owner grants it; with the verifier and client it is bound to. */
  async function issueCode(slug = 'web', agent = slug === 'web' ? 'web-w1' : 'lead') {
    const clientId = await register(slug);
    const { verifier, challenge } = pkce();
    const cookie = await signIn('olive', slug);
    const params = paramsFor(clientId, challenge, slug);
    const answer = await postConsent(params, { agent: `agent:${agent}` }, cookie, await csrfOf(params, cookie, slug), slug);
    expect(answer.status).toBe(303);
    const back = new URL(answer.headers.get('location')!);
    expect(back.searchParams.get('state')).toBe('st-1');
    return { code: back.searchParams.get('code')!, verifier, clientId, slug };
  }
  const tokenRequest = (slug: string, form: Record<string, string>) =>
    fetch(`${base(slug)}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
  const redeem = (c: { code: string; verifier: string; clientId: string; slug: string }, change: Record<string, string> = {}) =>
    tokenRequest(c.slug, { grant_type: 'authorization_code', code: c.code, code_verifier: c.verifier, client_id: c.clientId, redirect_uri: REDIRECT, ...change });
  const whoami = (slug: string | undefined, access: string) =>
    fetch(`${board.url}${slug ? `/p/${slug}` : ''}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${access}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
    });

  it('a code redeemed twice: the second is refused and the tokens of the first stop working', async () => {
    const c = await issueCode();
    const first = await redeem(c);
    expect(first.status).toBe(200);
    const issued = (await first.json()) as { access_token: string; refresh_token: string };
    expect((await whoami('web', issued.access_token)).status).toBe(200);
    const second = await redeem(c);
    expect(second.status).toBe(400);
    expect(await second.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await whoami('web', issued.access_token)).status).toBe(401);
    expect((await tokenRequest('web', { grant_type: 'refresh_token', refresh_token: issued.refresh_token, client_id: c.clientId })).status).toBe(400);
  });

  it('a code with the wrong verifier, client or redirect URI is refused, and the right request still redeems it', async () => {
    const c = await issueCode();
    const other = await registerNew();
    for (const change of [{ code_verifier: pkce().verifier }, { client_id: other }, { redirect_uri: `${REDIRECT}/` }, { redirect_uri: 'https://app.example/other' }]) {
      const refused = await redeem(c, change);
      expect(refused.status, JSON.stringify(change)).toBe(400);
      expect(await refused.json()).toMatchObject({ error: 'invalid_grant' });
    }
    // A client id that was never registered is told to register again (401 invalid_client), and takes nothing either.
    const unknown = await redeem(c, { client_id: 'rtapp_never-registered' });
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toMatchObject({ error: 'invalid_client' });
    expect((await redeem(c)).status).toBe(200);
  });

  it('a redirect URI that differs by a path, a port or a trailing character is refused on the board page, with no redirect', async () => {
    const clientId = await register();
    const { challenge } = pkce();
    for (const near of ['https://app.example/cb/x', 'https://app.example:8443/cb', 'https://app.example/cb/', 'https://app.example/cbx', 'https://app.example.evil/cb']) {
      const page = await authorizePage({ ...paramsFor(clientId, challenge), redirect_uri: near });
      expect(page.status, near).toBe(400);
      expect(page.headers.get('location'), near).toBeNull();
      expect(await page.text()).toContain('redirect_uri is not one of the redirect URIs this client registered');
    }
  });

  it('a missing or plain PKCE method, or no challenge, is sent back as invalid_request and grants nothing', async () => {
    const clientId = await register();
    const { challenge } = pkce();
    for (const change of [{ code_challenge_method: '' }, { code_challenge_method: 'plain' }, { code_challenge: '' }]) {
      const params = Object.fromEntries(Object.entries({ ...paramsFor(clientId, challenge), ...change }).filter(([, v]) => v !== ''));
      const page = await authorizePage(params);
      expect(page.status, JSON.stringify(change)).toBe(303);
      const back = new URL(page.headers.get('location')!);
      expect(back.origin + back.pathname).toBe(REDIRECT);
      expect(back.searchParams.get('error')).toBe('invalid_request');
      expect(back.searchParams.get('code')).toBeNull();
      expect(back.searchParams.get('iss')).toBe(`${board.url}/p/web`);
    }
  });

  it('resource missing or naming another project is sent back as invalid_target', async () => {
    const clientId = await register();
    const { challenge } = pkce();
    for (const resource of [undefined, `${board.url}/p/default/mcp`, `${board.url}/mcp`]) {
      const params = paramsFor(clientId, challenge);
      const page = await authorizePage(resource === undefined ? Object.fromEntries(Object.entries(params).filter(([k]) => k !== 'resource')) : { ...params, resource });
      expect(page.status).toBe(303);
      expect(new URL(page.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
    }
  });

  it("a token for project web is refused on /p/default/mcp and on /mcp, which still serve their own", async () => {
    const c = await issueCode();
    const { access_token: access } = (await (await redeem(c)).json()) as { access_token: string };
    expect((await whoami('web', access)).status).toBe(200);
    expect((await whoami('default', access)).status).toBe(401);
    expect((await whoami(undefined, access)).status).toBe(401);
    const own = await fetch(`${board.url}/p/default/api/v1/tools/whoami`, { method: 'POST', headers: { authorization: `Bearer ${tokens['lead']}`, 'content-type': 'application/json' }, body: '{}' });
    expect(own.status).toBe(200);
    // And a default-project token does not open web.
    const d = await issueCode('default');
    const { access_token: defaultAccess } = (await (await redeem(d)).json()) as { access_token: string };
    expect((await whoami('default', defaultAccess)).status).toBe(200);
    expect((await whoami('web', defaultAccess)).status).toBe(401);
    // The unprefixed /mcp is up: an agent of the default project is served there.
    expect((await whoami(undefined, tokens['lead']!)).status).toBe(200);
  });

  it('a refresh token reused after rotation is refused, and the tokens rotated in stop working too', async () => {
    const c = await issueCode();
    const first = (await (await redeem(c)).json()) as { access_token: string; refresh_token: string };
    const rotated = await tokenRequest('web', { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: c.clientId });
    expect(rotated.status).toBe(200);
    const second = (await rotated.json()) as { access_token: string; refresh_token: string };
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await whoami('web', second.access_token)).status).toBe(200);
    const reused = await tokenRequest('web', { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: c.clientId });
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await whoami('web', second.access_token)).status).toBe(401);
    expect((await tokenRequest('web', { grant_type: 'refresh_token', refresh_token: second.refresh_token, client_id: c.clientId })).status).toBe(400);
  });

  it('metadata documents at a private address, that redirect, too large, carrying a client secret or too slow are refused on the board page', async () => {
    const { challenge } = pkce();
    const cases: Array<[string, string]> = [
      ['https://10.0.0.1/client.json', 'private address'],
      ['https://169.254.169.254/client.json', 'link-local address'],
      [`${documents.url}/redirects.json`, 'redirect'],
      [`${documents.url}/large.json`, 'larger than 16 KB'],
      [`${documents.url}/secret.json`, 'carries a client secret'],
      [`${documents.url}/secret-method.json`, 'carries a client secret'],
      [`${documents.url}/slow.json`, 'did not arrive within 5 s'],
    ];
    for (const [clientId, why] of cases) {
      const page = await authorizePage(paramsFor(clientId, challenge));
      expect(page.status, clientId).toBe(400);
      expect(page.headers.get('location')).toBeNull();
      expect(await page.text(), clientId).toContain(why);
    }
    expect(slowCalls).toBe(1);
  }, 30_000);

  it('consent from a signed-out browser, or without the page CSRF token, grants nothing', async () => {
    const clientId = await register();
    const { challenge } = pkce();
    const params = paramsFor(clientId, challenge);
    const signedOut = await authorizePage(params);
    expect(signedOut.status).toBe(200);
    expect(await signedOut.text()).toContain('Sign-in token');
    const noCookie = await postConsent(params, { agent: 'agent:web-w1' }, undefined, 'x'.repeat(43));
    expect(noCookie.status).toBe(403);
    expect(noCookie.headers.get('location')).toBeNull();
    const cookie = await signIn('olive');
    for (const csrf of [undefined, 'x'.repeat(43), '']) {
      const answer = await postConsent(params, { agent: 'agent:web-w1' }, cookie, csrf);
      expect(answer.status).toBe(403);
      expect(answer.headers.get('location')).toBeNull();
    }
    // Another site's form (a foreign Origin) is refused before the consent is read.
    const foreign = await fetch(`${base()}/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example', cookie: `rt_session=${cookie}` },
      body: new URLSearchParams({ ...params, csrf: await csrfOf(params, cookie), agent: 'agent:web-w1', decision: 'allow' }),
    });
    expect(foreign.status).toBe(403);
  });

  it('a grant of a role above the person’s own is refused: an observer can make or grant only observers', async () => {
    const clientId = await register();
    const { challenge } = pkce();
    const params = paramsFor(clientId, challenge);
    const cookie = await signIn('oscar');
    const csrf = await csrfOf(params, cookie);
    for (const form of [{ agent: 'new', new_name: 'sneaky', new_role: 'worker' }, { agent: 'new', new_name: 'sneaky', new_role: 'leader' }, { agent: 'agent:web-w1' }, { agent: 'agent:web-lead' }]) {
      const answer = await postConsent(params, form, cookie, csrf);
      expect(answer.status, JSON.stringify(form)).toBe(200);
      expect(answer.headers.get('location')).toBeNull();
      expect(await answer.text()).toMatch(/may not grant that agent|above what you may grant/);
    }
    const agents = await fetch(`${board.url}/p/web/api/v1/tools/list_agents`, { method: 'POST', headers: { authorization: `Bearer ${tokens['web-lead']}`, 'content-type': 'application/json' }, body: '{}' });
    expect(JSON.stringify(await agents.json())).not.toContain('sneaky');
    // What an observer may grant works: a new observer.
    const ok = await postConsent(params, { agent: 'new', new_name: 'watcher', new_role: 'observer' }, cookie, csrf);
    expect(ok.status).toBe(303);
    expect(new URL(ok.headers.get('location')!).searchParams.get('code')).toMatch(/^rtc_/);
  });

  it('a code presented several times at once is taken by exactly one request, and then the grant is revoked', async () => {
    const c = await issueCode();
    const answers = await Promise.all(Array.from({ length: 5 }, () => redeem(c)));
    const issued = answers.filter((a) => a.status === 200);
    expect(issued).toHaveLength(1);
    for (const refused of answers.filter((a) => a.status !== 200)) {
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: 'invalid_grant' });
    }
    for (const taken of issued) expect((await whoami('web', ((await taken.json()) as { access_token: string }).access_token)).status).toBe(401);
  });

  it('a refresh token presented several times at once rotates exactly once, and then the grant is revoked', async () => {
    const c = await issueCode();
    const first = (await (await redeem(c)).json()) as { access_token: string; refresh_token: string };
    const answers = await Promise.all(Array.from({ length: 5 }, () => tokenRequest('web', { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: c.clientId })));
    const rotated = answers.filter((a) => a.status === 200);
    expect(rotated).toHaveLength(1);
    for (const taken of rotated) expect((await whoami('web', ((await taken.json()) as { access_token: string }).access_token)).status).toBe(401);
    expect((await whoami('web', first.access_token)).status).toBe(401);
  });

  it('a token of one kind is refused as the other: a refresh token as a bearer, an access token as a refresh token', async () => {
    const c = await issueCode();
    const issued = (await (await redeem(c)).json()) as { access_token: string; refresh_token: string };
    expect((await whoami('web', issued.refresh_token)).status).toBe(401);
    const asRefresh = await tokenRequest('web', { grant_type: 'refresh_token', refresh_token: issued.access_token, client_id: c.clientId });
    expect(asRefresh.status).toBe(400);
    expect(await asRefresh.json()).toMatchObject({ error: 'invalid_grant' });
    // A refresh token presented by another client of the project is refused and leaves the grant as it was.
    const other = await tokenRequest('web', { grant_type: 'refresh_token', refresh_token: issued.refresh_token, client_id: await registerNew() });
    expect(other.status).toBe(400);
    expect(await other.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await whoami('web', issued.access_token)).status).toBe(200);
    expect((await tokenRequest('web', { grant_type: 'refresh_token', refresh_token: issued.refresh_token, client_id: c.clientId })).status).toBe(200);
  });

  it("a code of project web is refused at another project's token endpoint, and still redeems at its own", async () => {
    const c = await issueCode();
    const elsewhere = await tokenRequest('default', { grant_type: 'authorization_code', code: c.code, code_verifier: c.verifier, client_id: await register('default'), redirect_uri: REDIRECT });
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.json()).toMatchObject({ error: 'invalid_grant' });
    const unprefixed = await fetch(`${board.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: c.code, code_verifier: c.verifier, client_id: c.clientId, redirect_uri: REDIRECT }),
    });
    expect(unprefixed.status).toBe(401);
    expect((await redeem(c)).status).toBe(200);
  });

  it('a consent whose carried redirect URI or resource was changed after the page is judged again and grants nothing', async () => {
    const clientId = await register();
    const { challenge } = pkce();
    const params = paramsFor(clientId, challenge);
    const cookie = await signIn('olive');
    const csrf = await csrfOf(params, cookie);
    const near = await postConsent({ ...params, redirect_uri: 'https://app.example/cb/x' }, { agent: 'agent:web-w1' }, cookie, csrf);
    expect(near.status).toBe(400);
    expect(near.headers.get('location')).toBeNull();
    const target = await postConsent({ ...params, resource: `${board.url}/p/default/mcp` }, { agent: 'agent:web-w1' }, cookie, csrf);
    expect(target.status).toBe(303);
    const back = new URL(target.headers.get('location')!);
    expect(back.searchParams.get('error')).toBe('invalid_target');
    expect(back.searchParams.get('code')).toBeNull();
    const denied = await postConsent(params, { agent: 'agent:web-w1', decision: 'deny' }, cookie, csrf);
    expect(new URL(denied.headers.get('location')!).searchParams.get('error')).toBe('access_denied');
    expect(new URL(denied.headers.get('location')!).searchParams.get('code')).toBeNull();
  });

  it("one person's CSRF token does not pass with another's session, and a person without a role in a project grants nothing there", async () => {
    const clientId = await register();
    const { challenge } = pkce();
    const params = paramsFor(clientId, challenge);
    const olive = await signIn('olive');
    const oscar = await signIn('oscar');
    const crossed = await postConsent(params, { agent: 'new', new_name: 'crossed', new_role: 'observer' }, oscar, await csrfOf(params, olive));
    expect(crossed.status).toBe(403);
    expect(crossed.headers.get('location')).toBeNull();
    // oscar holds no role in default: the page and the form refuse him there (the session is the board's, not a project's).
    const defaultParams = paramsFor(await register('default'), challenge, 'default');
    const page = await authorizePage(defaultParams, oscar, 'default');
    expect(page.status).toBe(403);
    const posted = await postConsent(defaultParams, { agent: 'new', new_name: 'crossed', new_role: 'observer' }, oscar, await csrfOf(params, oscar), 'default');
    expect(posted.status).toBe(403);
    expect(posted.headers.get('location')).toBeNull();
  });

  it('sign-in sends the browser back only to its own authorize page, and refuses a form from another site', async () => {
    for (const returnTo of ['https://evil.example/p/web/oauth/authorize?x=1', '//evil.example/p/web/oauth/authorize?x=1', '/p/default/oauth/authorize?x=1', '/p/web/oauth/authorizex?x=1']) {
      const answer = await fetch(`${base()}/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: board.url },
        body: new URLSearchParams({ token: tokens['olive']!, return_to: returnTo }),
      });
      expect(answer.status, returnTo).toBe(400);
      expect(answer.headers.get('location')).toBeNull();
      expect(answer.headers.get('set-cookie')).toBeNull();
    }
    const foreign = await fetch(`${base()}/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: new URLSearchParams({ token: tokens['olive']!, return_to: '/p/web/oauth/authorize?x=1' }),
    });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('set-cookie')).toBeNull();
  });

  it('an agent token signs in but cannot consent: only a person grants', async () => {
    const clientId = await register();
    const { challenge } = pkce();
    const params = paramsFor(clientId, challenge);
    const cookie = await signInNew('web-lead');
    const page = await authorizePage(params, cookie);
    expect(page.status).toBe(403);
    expect(await page.text()).toContain('sign in as a person');
  });
});
