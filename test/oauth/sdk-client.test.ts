// Apps join by signing in (issue 34): the MCP SDK v2 client's own OAuth support runs the whole flow against the
// board, with the consent page clicked in headless Chromium, once with a Client ID Metadata Document served on
// loopback and once with dynamic client registration, on both stores. The app then calls tools as the agent the
// person granted, on that project's URL only.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import Database from 'better-sqlite3';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonEnv, resultJson, runCli, startBoard, token, type TestBoard } from '../helpers/board.js';
import { CHROMIUM_ARGS, clientDocumentServer, consentInBrowser, MemoryProvider, redirectReceiver } from '../helpers/oauth.js';
import { describeEachStore } from '../helpers/stores.js';
import { makeTestPki } from '../helpers/tls.js';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_BROWSER = existsSync(CHROMIUM) || process.env['ROUNDTABLE_REQUIRE_BROWSER'] === '1';
const sha = (value: string) => createHash('sha256').update(value).digest('hex');

function writeCatalog(dir: string, tokens: Record<string, string>): void {
  const agent = (name: string, role: string) => ({ name, role, skills: [], token_sha256: sha(tokens[name]!) });
  writeFileSync(
    join(dir, 'agents.json'),
    JSON.stringify({
      projects: [
        { slug: 'default', mode: 'role', agents: [agent('lead', 'leader')] },
        { slug: 'web', title: 'Web app', mode: 'role', agents: [agent('web-lead', 'leader'), agent('web-w1', 'worker')] },
      ],
      people: [{ name: 'olive', token_sha256: sha(tokens['olive']!), grants: { default: 'owner', web: 'owner' } }],
    }),
    { mode: 0o600 },
  );
}

/** Connects the SDK client with its OAuth provider; the first attempt ends in the authorization redirect. */
async function signInWithSdk(browser: Browser, mcpUrl: string, provider: MemoryProvider, redirectUri: string, received: URLSearchParams[], choice: Parameters<typeof consentInBrowser>[3]): Promise<Client> {
  const first = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
  await expect(new Client({ name: 'sdk-oauth-test', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.authorizationUrl).toBeDefined();
  await consentInBrowser(browser, provider.authorizationUrl!.toString(), redirectUri, choice);
  const callback = received.at(-1)!;
  expect(callback.get('code')).toMatch(/^rtc_/);
  await first.finishAuth(callback);
  const client = new Client({ name: 'sdk-oauth-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }));
  return client;
}

describe.skipIf(!HAVE_BROWSER)('the MCP SDK v2 client signs in with OAuth', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
  });

  describeEachStore((store) => {
    let board: TestBoard;
    let receiver: Awaited<ReturnType<typeof redirectReceiver>>;
    let documents: Awaited<ReturnType<typeof clientDocumentServer>>;
    beforeAll(async () => {
      const dir = mkdtempSync(join(tmpdir(), 'rt-oauth-'));
      const tokens = { lead: token(), 'web-lead': token(), 'web-w1': token(), olive: token() };
      writeCatalog(dir, tokens);
      receiver = await redirectReceiver();
      const pki = makeTestPki('Roundtable OAuth test CA');
      documents = await clientDocumentServer(pki, (clientId) => ({ client_id: clientId, client_name: 'Doc <b>App</b>', redirect_uris: [receiver.redirectUri], token_endpoint_auth_method: 'none' }));
      board = await startBoard({ store, dir, tokens, env: { ROUNDTABLE_OAUTH_ALLOW_LOOPBACK: '1', ROUNDTABLE_OAUTH_REGISTRATION: '1', NODE_EXTRA_CA_CERTS: pki.caCert } });
    });
    afterAll(async () => {
      await board?.stop();
      await receiver?.close();
      await documents?.close();
    });

    it('with a client metadata document: the person makes a new worker, and the app acts as it on /p/web/mcp only', async () => {
      const provider = new MemoryProvider(receiver.redirectUri, documents.clientId);
      const client = await signInWithSdk(browser, `${board.url}/p/web/mcp`, provider, receiver.redirectUri, receiver.received, { token: board.tokens['olive']!, newAgent: { name: 'doc-app', role: 'worker' } });
      const url = provider.authorizationUrl!;
      expect(url.searchParams.get('client_id')).toBe(documents.clientId);
      expect(url.searchParams.get('code_challenge_method')).toBe('S256');
      expect(url.searchParams.get('resource')).toBe(`${board.url}/p/web/mcp`);
      expect(receiver.received.at(-1)!.get('iss')).toBe(`${board.url}/p/web`);
      const me = resultJson(await client.callTool({ name: 'whoami', arguments: {} }));
      expect(me).toMatchObject({ name: 'doc-app', role: 'worker' });
      await client.close();
      // The new agent is in the catalog (SQLite: agents.json), with a token hash that no one was shown.
      if (store.name === 'sqlite') expect(readFileSync(join(board.dir, 'agents.json'), 'utf8')).toContain('"doc-app"');
      // The token is for /p/web/mcp: the default project's URL and the JSON API refuse it.
      const access = (provider.tokens() as { access_token: string }).access_token;
      expect(access).toMatch(/^rta_/);
      const elsewhere = await fetch(`${board.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${access}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
      expect(elsewhere.status).toBe(401);
      expect(elsewhere.headers.get('www-authenticate')).toContain(`resource_metadata="${board.url}/.well-known/oauth-protected-resource/mcp"`);
      const api = await fetch(`${board.url}/p/web/api/v1/tools/whoami`, { method: 'POST', headers: { authorization: `Bearer ${access}`, 'content-type': 'application/json' }, body: '{}' });
      expect(api.status).toBe(401);

      // The owner sees the app at the terminal and revokes it: its next call is refused, and its refresh token too.
      const env = daemonEnv(board.dir, board.databaseUrl ? { ROUNDTABLE_DATABASE_URL: board.databaseUrl } : {});
      const listed = await runCli(['apps', 'list', '--project', 'web', '--json'], env);
      expect(listed.code, listed.stderr).toBe(0);
      const apps = (JSON.parse(listed.stdout) as { apps: Array<{ id: string; agent: string; client_name: string; granted_by: string }> }).apps;
      expect(apps).toHaveLength(1);
      expect(apps[0]).toMatchObject({ agent: 'doc-app', client_name: 'Doc <b>App</b>', granted_by: 'olive' });
      expect(listed.stdout).not.toContain(access);
      const revoked = await runCli(['apps', 'revoke', apps[0]!.id, '--project', 'web'], env);
      expect(revoked.code, revoked.stderr).toBe(0);
      const after = await fetch(`${board.url}/p/web/mcp`, { method: 'POST', headers: { authorization: `Bearer ${access}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
      expect(after.status).toBe(401);
      const refresh = (provider.tokens() as { refresh_token: string }).refresh_token;
      const refreshed = await fetch(`${board.url}/p/web/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refresh, client_id: documents.clientId }) });
      expect(refreshed.status).toBe(400);
      expect(await refreshed.json()).toMatchObject({ error: 'invalid_grant' });
      const again = await runCli(['apps', 'revoke', apps[0]!.id, '--project', 'web'], env);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('apps list --project web');

      // An export carries no app sign-ins: their tokens were issued for this daemon's URLs (the grant is still a row here).
      const exportFile = join(board.dir, 'web.export.db');
      const exported = await runCli(['projects', 'export', 'web', exportFile], env);
      expect(exported.code, exported.stderr).toBe(0);
      const copy = new Database(exportFile, { readonly: true });
      try {
        for (const table of ['oauth_grants', 'oauth_codes', 'oauth_tokens', 'oauth_clients']) expect(copy.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get(), table).toBe(0);
      } finally {
        copy.close();
      }
    });

    it('with dynamic registration: the person grants an existing agent of the default project on the unprefixed /mcp', async () => {
      const provider = new MemoryProvider(receiver.redirectUri);
      const client = await signInWithSdk(browser, `${board.url}/mcp`, provider, receiver.redirectUri, receiver.received, { token: board.tokens['olive']!, agent: 'lead' });
      expect(provider.clientInformation()?.client_id).toMatch(/^rtapp_/);
      expect(receiver.received.at(-1)!.get('iss')).toBe(board.url);
      expect(resultJson(await client.callTool({ name: 'whoami', arguments: {} }))).toMatchObject({ name: 'lead', role: 'leader' });
      await client.close();
    });
  });
});
