// OAuth sign-in in tests (issue 34): a client metadata document and a redirect receiver on loopback ports, the
// consent page clicked in headless Chromium, and an in-memory OAuthClientProvider for the MCP SDK v2 client.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthClientProvider, OAuthTokens } from '@modelcontextprotocol/client';
import type { Browser } from 'playwright-core';

export interface LoopbackServer {
  readonly url: string;
  close(): Promise<void>;
}

function listen(server: Server, scheme = 'http'): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

const closing = (server: Server) => () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())));

/**
 * Serves `document(url)` as the client metadata document at https://127.0.0.1:PORT/client.json (its own URL is its
 * client_id), with a certificate of the test PKI: the daemon trusts it through NODE_EXTRA_CA_CERTS.
 */
export async function clientDocumentServer(tls: { serverCert: string; serverKey: string }, document: (clientId: string) => unknown): Promise<LoopbackServer & { readonly clientId: string }> {
  let clientId = '';
  const server = createHttpsServer({ cert: readFileSync(tls.serverCert), key: readFileSync(tls.serverKey) }, (req, res) => {
    if (req.url !== '/client.json') return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document(clientId)));
  });
  const url = await listen(server as unknown as Server, 'https');
  clientId = `${url}/client.json`;
  return { url, clientId, close: closing(server) };
}

/** Receives the browser at /callback and keeps each query it was sent back with. */
export async function redirectReceiver(): Promise<LoopbackServer & { readonly redirectUri: string; readonly received: URLSearchParams[] }> {
  const received: URLSearchParams[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') return res.writeHead(404).end();
    received.push(url.searchParams);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('signed in; you can close this tab');
  });
  const url = await listen(server);
  return { url, redirectUri: `${url}/callback`, received, close: closing(server) };
}

export interface ConsentChoice {
  /** The person's sign-in token. */
  readonly token: string;
  /** An existing agent to grant, or a new one. */
  readonly agent?: string;
  readonly newAgent?: { readonly name: string; readonly role: string };
  readonly decision?: 'Allow' | 'Deny';
}

/** Opens the authorization URL, signs in, makes the choice and waits until the browser has left for the redirect URI. */
export async function consentInBrowser(browser: Browser, authorizationUrl: string, redirectUri: string, choice: ConsentChoice): Promise<void> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(authorizationUrl);
    await page.getByLabel('Sign-in token').fill(choice.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const form = page.getByRole('form', { name: 'Connect the app' });
    await form.waitFor();
    if (choice.agent) await form.getByLabel('Act as').selectOption(`agent:${choice.agent}`);
    else {
      await form.getByLabel('Act as').selectOption('new');
      await form.getByLabel("New agent's name").fill(choice.newAgent!.name);
      await form.getByLabel("New agent's role").selectOption(choice.newAgent!.role);
    }
    await Promise.all([page.waitForURL((url) => url.toString().startsWith(redirectUri)), form.getByRole('button', { name: choice.decision ?? 'Allow' }).click()]);
  } finally {
    await context.close();
  }
}

/** What the SDK client keeps between its attempts, in memory; the authorization URL it was sent to is kept for the test. */
export class MemoryProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  private verifier = '';
  private saved: OAuthTokens | undefined;
  private info: OAuthClientInformationMixed | undefined;

  /** Set: the client is known by this metadata document; unset: it registers dynamically. */
  clientMetadataUrl?: string;

  constructor(
    private readonly redirect: string,
    clientMetadataUrl?: string,
  ) {
    if (clientMetadataUrl !== undefined) this.clientMetadataUrl = clientMetadataUrl;
  }

  get redirectUrl(): string {
    return this.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'SDK test app', redirect_uris: [this.redirect], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];

/**
 * A code as a browser gets one, over plain HTTP: registers a client, signs the person in on the consent page, reads the
 * page's CSRF token and posts the consent granting `agent`; returns what redeeming it needs. `publicUrl`: the board's
 * ROUNDTABLE_PUBLIC_URL, which names its resources, when it has one.
 */
export async function codeOverHttp(boardUrl: string, slug: string, personToken: string, agent: string, publicUrl = boardUrl): Promise<{ code: string; verifier: string; clientId: string; redirectUri: string }> {
  const { createHash, randomBytes } = await import('node:crypto');
  const base = `${boardUrl}/p/${slug}/oauth`;
  const redirectUri = 'https://app.example/cb';
  const registered = await fetch(`${base}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: [redirectUri] }) });
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const signedIn = await fetch(`${base}/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: boardUrl },
    body: new URLSearchParams({ token: personToken, return_to: `/p/${slug}/oauth/authorize?x=1` }),
  });
  const cookie = /rt_session=[^;]+/.exec(signedIn.headers.get('set-cookie') ?? '')?.[0];
  if (!cookie) throw new Error(`sign-in on the consent page answered ${signedIn.status}`);
  const verifier = randomBytes(32).toString('base64url');
  const params = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    resource: `${publicUrl}/p/${slug}/mcp`,
  };
  const page = await (await fetch(`${base}/authorize?${new URLSearchParams(params)}`, { headers: { cookie } })).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1];
  if (!csrf) throw new Error('the consent page carried no CSRF token');
  const consent = await fetch(`${base}/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: boardUrl, cookie },
    body: new URLSearchParams({ ...params, csrf, agent: `agent:${agent}`, decision: 'allow' }),
  });
  const code = new URL(consent.headers.get('location') ?? 'about:blank').searchParams.get('code');
  if (!code) throw new Error(`the consent answered ${consent.status} without a code`);
  return { code, verifier, clientId, redirectUri };
}
