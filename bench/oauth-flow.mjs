// One OAuth sign-in of an app, step by step and timed (issue 34): the MCP SDK v2 client (StreamableHTTPClientTransport
// with an in-memory OAuthClientProvider) against a project's MCP URL, and the person's part done over HTTP as a browser
// would (sign in, read the consent page, post the form), never following the redirect to the app.
import http from 'node:http';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';

/** The steps of a flow, in order; the SDK's first attempt is split by the requests it sent (see requestStep). */
export const STEPS = [
  'first call, 401',
  'resource metadata',
  'AS metadata',
  'registration',
  'SDK work before the redirect',
  'sign-in POST',
  'consent page GET',
  'consent POST (code)',
  'finishAuth (token request)',
  'connect with the token',
  'first tools/call (whoami)',
];

/** Which step of the SDK's first attempt a request belongs to. */
function requestStep(url, method) {
  const path = new URL(url).pathname;
  if (path.startsWith('/.well-known/oauth-protected-resource')) return 'resource metadata';
  if (path.includes('/.well-known/oauth-authorization-server') || path.includes('/.well-known/openid-configuration')) return 'AS metadata';
  if (path.endsWith('/oauth/register')) return 'registration';
  if (path.endsWith('/mcp') && method === 'POST') return 'first call, 401';
  return undefined;
}

/** What an app keeps between its attempts, in memory (as test/helpers/oauth.ts's MemoryProvider). */
class MemoryProvider {
  authorizationUrl;
  #verifier = '';
  #tokens;
  #info;
  #discovery;
  constructor(redirectUrl) {
    this.redirectUrl = redirectUrl;
  }
  get clientMetadata() {
    return { client_name: 'Roundtable bench app', redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.#info;
  }
  saveClientInformation(info) {
    this.#info = info;
  }
  tokens() {
    return this.#tokens;
  }
  saveTokens(tokens) {
    this.#tokens = tokens;
  }
  redirectToAuthorization(url) {
    this.authorizationUrl = url;
  }
  // Kept as the SDK asks (SEP-2352): the code is redeemed at the authorization server that was found before the redirect.
  saveDiscoveryState(state) {
    this.#discovery = state;
  }
  discoveryState() {
    return this.#discovery;
  }
  saveCodeVerifier(verifier) {
    this.#verifier = verifier;
  }
  codeVerifier() {
    return this.#verifier;
  }
}

function request(agent, port, path, { method = 'GET', headers = {}, form } = {}) {
  const body = form && new URLSearchParams(form).toString();
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path, method, agent, headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) }) } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const unescapeHtml = (text) => text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** The consent form's hidden inputs (the request's parameters and the csrf token), as the page wrote them. */
function hiddenInputs(page) {
  const fields = {};
  for (const match of page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[match[1]] = unescapeHtml(match[2]);
  return fields;
}

/**
 * Signs an app in on `mcpUrl` as `agentName`, granted by the person holding `personToken`, and makes its first tool
 * call. Resolves { ms: step -> ms, totalMs, accessToken, requests: the SDK's requests as text }; throws if any step does not answer as the flow needs.
 */
export async function signInFlow({ port, slug, personToken, agentName }) {
  const origin = `http://127.0.0.1:${port}`;
  const mcpUrl = new URL(`${origin}/p/${slug}/mcp`);
  // Never listened on: the flow takes the code from the 303's Location and does not follow it.
  const provider = new MemoryProvider('http://127.0.0.1:9/callback');
  const ms = Object.fromEntries(STEPS.map((s) => [s, 0]));
  // Every request the SDK sends, by step: the first attempt's time is split by them, and the report lists them.
  const requests = [];
  let phase = 'first attempt';
  const timedFetch = async (url, init) => {
    const t = performance.now();
    const res = await fetch(url, init);
    const method = init?.method ?? 'GET';
    const step = phase === 'first attempt' && requestStep(String(url), method);
    if (step) ms[step] += performance.now() - t;
    requests.push(`${phase}: ${method} ${new URL(url).pathname} ${res.status}`);
    return res;
  };
  const browser = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let client;
  const started = performance.now();
  try {
    // 1. The app calls, is refused, discovers the authorization server, registers, and sends the person to authorize.
    let t = performance.now();
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: timedFetch });
    const refused = await new Client({ name: 'bench-oauth', version: '1.0.0' }).connect(first).then(
      () => undefined,
      (error) => error,
    );
    if (!(refused instanceof UnauthorizedError) || !provider.authorizationUrl) throw new Error(`oauth: the first connect did not end in the authorization redirect: ${refused}`);
    const attemptMs = performance.now() - t;
    ms['SDK work before the redirect'] = attemptMs - ms['first call, 401'] - ms['resource metadata'] - ms['AS metadata'] - ms['registration'];
    const authorize = `${provider.authorizationUrl.pathname}${provider.authorizationUrl.search}`;

    // 2. The person signs in on the board's page with their token; the session cookie comes back.
    t = performance.now();
    const signedIn = await request(browser, port, `/p/${slug}/oauth/sign-in`, { method: 'POST', headers: { origin }, form: { return_to: authorize, token: personToken } });
    const cookie = String(signedIn.headers['set-cookie'] ?? '').split(';')[0];
    if (signedIn.status !== 303 || !cookie) throw new Error(`oauth: sign-in answered ${signedIn.status} ${signedIn.body.slice(0, 200)}`);
    ms['sign-in POST'] = performance.now() - t;

    // 3. The consent page, then its form: grant the existing agent.
    t = performance.now();
    const page = await request(browser, port, signedIn.headers.location, { headers: { cookie } });
    const fields = hiddenInputs(page.body);
    if (page.status !== 200 || !fields.csrf) throw new Error(`oauth: the consent page answered ${page.status} without a csrf input`);
    ms['consent page GET'] = performance.now() - t;
    t = performance.now();
    const decided = await request(browser, port, `/p/${slug}/oauth/authorize`, { method: 'POST', headers: { origin, cookie }, form: { ...fields, agent: `agent:${agentName}`, decision: 'allow' } });
    const back = decided.headers.location && new URL(decided.headers.location);
    if (decided.status !== 303 || !back?.searchParams.get('code')) throw new Error(`oauth: the consent answered ${decided.status} ${decided.headers.location ?? decided.body.slice(0, 200)}`);
    ms['consent POST (code)'] = performance.now() - t;

    // 4. The app redeems the code, connects with its token and calls a tool.
    phase = 'finishAuth';
    t = performance.now();
    await first.finishAuth(back.searchParams);
    ms['finishAuth (token request)'] = performance.now() - t;
    phase = 'connect';
    t = performance.now();
    client = new Client({ name: 'bench-oauth', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: timedFetch }));
    ms['connect with the token'] = performance.now() - t;
    phase = 'tools/call';
    t = performance.now();
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    const me = JSON.parse(result.content?.[0]?.text ?? '{}');
    if (result.isError || me.name !== agentName) throw new Error(`oauth: whoami with the new token answered ${JSON.stringify(result).slice(0, 300)}`);
    ms['first tools/call (whoami)'] = performance.now() - t;
    return { ms, totalMs: performance.now() - started, accessToken: provider.tokens().access_token, requests };
  } finally {
    await client?.close();
    browser.destroy();
  }
}
