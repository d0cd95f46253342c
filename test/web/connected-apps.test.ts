// The connected apps on the board page (issue 34), in real headless Chromium on both stores: an app signs in with the
// MCP SDK v2 client's own OAuth support, the owner sees it listed with the agent it acts as, revokes it after a confirm
// step, and the app's next tool call gets 401; an observer sees the list without the button and the action route
// refuses them 403, as it refuses an agent's session; an app named with markup is shown as text; an unknown grant id
// is a 404 naming the field, and each revoke, done or refused, leaves an audit row.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultJson, startBoard, token, type TestBoard } from '../helpers/board.js';
import { openBoardDb, type BoardDb } from '../helpers/board-db.js';
import { CHROMIUM_ARGS, consentInBrowser, MemoryProvider, redirectReceiver } from '../helpers/oauth.js';
import { pageAction, signInPage, type PageSession } from '../helpers/page-session.js';
import { describeEachStore } from '../helpers/stores.js';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_BROWSER = existsSync(CHROMIUM);
const REQUIRE_BROWSER = process.env['ROUNDTABLE_REQUIRE_BROWSER'] === '1';
const sha = (value: string) => createHash('sha256').update(value).digest('hex');
const MARKUP_NAME = '<img src=x onerror=alert(1)>';

function writeCatalog(dir: string, tokens: Record<string, string>): void {
  const agent = (name: string, role: string) => ({ name, role, skills: [], token_sha256: sha(tokens[name]!) });
  const catalog = {
    projects: [{ slug: 'default', mode: 'role', agents: [agent('lead', 'leader'), agent('w1', 'worker')] }],
    people: [
      { name: 'olive', token_sha256: sha(tokens['olive']!), grants: { default: 'owner' } },
      { name: 'oscar', token_sha256: sha(tokens['oscar']!), grants: { default: 'observer' } },
    ],
  };
  writeFileSync(join(dir, 'agents.json'), JSON.stringify(catalog), { mode: 0o600 });
}

/** Registers under its own name (dynamic registration), which may be anything an app chooses. */
class NamedProvider extends MemoryProvider {
  constructor(
    redirect: string,
    private readonly name: string,
  ) {
    super(redirect);
  }
  override get clientMetadata() {
    return { ...super.clientMetadata, client_name: this.name };
  }
}

interface ConnectedApp {
  grant_id: string;
  client_name: string | null;
  client_id: string;
  redirect_host: string;
  agent: string;
  agent_role: string | null;
  granted_by: string;
  created_at: string;
  last_used_at: string | null;
}

if (REQUIRE_BROWSER && !HAVE_BROWSER) {
  describe('connected apps on the page', () => {
    it('needs Chromium at /usr/bin/chromium (ROUNDTABLE_REQUIRE_BROWSER=1)', () => {
      throw new Error(`${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`);
    });
  });
}

describe.skipIf(!HAVE_BROWSER)('connected apps on the board page in headless Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
  });

  describeEachStore((store) => {
    let board: TestBoard;
    let db: BoardDb;
    let receiver: Awaited<ReturnType<typeof redirectReceiver>>;
    const contexts: BrowserContext[] = [];
    const clients: Client[] = [];

    beforeAll(async () => {
      const dir = mkdtempSync(join(tmpdir(), 'rt-apps-page-'));
      const tokens = { lead: token(), w1: token(), olive: token(), oscar: token() };
      writeCatalog(dir, tokens);
      receiver = await redirectReceiver();
      board = await startBoard({ store, dir, tokens, env: { ROUNDTABLE_OAUTH_ALLOW_LOOPBACK: '1', ROUNDTABLE_OAUTH_REGISTRATION: '1' } });
      db = openBoardDb(board);
    });
    afterAll(async () => {
      for (const client of clients) await client.close().catch(() => undefined);
      for (const context of contexts) await context.close().catch(() => undefined);
      await db?.close();
      await board?.stop();
      await receiver?.close();
    });

    /** An app signs in at /mcp with the SDK client; olive grants it the agent. */
    async function connectApp(name: string, agent: string): Promise<{ client: Client; provider: MemoryProvider }> {
      const provider = new NamedProvider(receiver.redirectUri, name);
      const first = new StreamableHTTPClientTransport(new URL(`${board.url}/mcp`), { authProvider: provider });
      await expect(new Client({ name: 'apps-page-test', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
      await consentInBrowser(browser, provider.authorizationUrl!.toString(), receiver.redirectUri, { token: board.tokens['olive']!, agent });
      await first.finishAuth(receiver.received.at(-1)!);
      const client = new Client({ name: 'apps-page-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${board.url}/mcp`), { authProvider: provider }));
      clients.push(client);
      return { client, provider };
    }

    /** One page session per person: sign-in is rate limited per address (10 a minute). */
    const sessions = new Map<string, Promise<PageSession>>();
    const sessionOf = (person: string): Promise<PageSession> => {
      if (!sessions.has(person)) sessions.set(person, signInPage(board, person));
      return sessions.get(person)!;
    };

    async function appsAs(person: string): Promise<{ status: number; body: any }> {
      const session = await sessionOf(person);
      const response = await fetch(`${board.url}/view/apps`, { headers: { cookie: `rt_session=${session.cookie}` } });
      return { status: response.status, body: await response.json() };
    }

    async function openPage(person: string): Promise<{ page: Page; dialogs: string[]; errors: string[] }> {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      contexts.push(context);
      const page = await context.newPage();
      const dialogs: string[] = [];
      const errors: string[] = [];
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${board.url}/`);
      await page.getByLabel('Agent or observer token').fill(board.tokens[person]!);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('#app').waitFor({ state: 'visible' });
      await expect.poll(() => page.locator('#conn').getAttribute('data-state')).toBe('live');
      return { page, dialogs, errors };
    }

    /** A tools/call of whoami with the app's access token, as its next call would go. */
    async function callWithAccessToken(provider: MemoryProvider): Promise<number> {
      const access = (provider.tokens() as { access_token: string }).access_token;
      const response = await fetch(`${board.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${access}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
      });
      await response.body?.cancel();
      return response.status;
    }

    const auditRows = () => db.rows<{ agent: string; tool: string; outcome: string; face: string }>(`SELECT agent, tool, outcome, face FROM audit_log WHERE tool = 'oauth_revoke' ORDER BY id`);

    it('the owner sees the app with its agent, revokes it after a confirm step, and its next tool call gets 401', async () => {
      const { client, provider } = await connectApp('Planner app', 'w1');
      expect(resultJson(await client.callTool({ name: 'whoami', arguments: {} }))).toMatchObject({ name: 'w1' });

      const listed = await appsAs('olive');
      expect(listed.status).toBe(200);
      const app = (listed.body.apps as ConnectedApp[]).find((a) => a.client_name === 'Planner app')!;
      expect(app).toMatchObject({ client_name: 'Planner app', redirect_host: new URL(receiver.redirectUri).host, agent: 'w1', agent_role: 'worker', granted_by: 'olive' });
      expect(app.grant_id).toMatch(/^grant_/);
      expect(app.client_id).toMatch(/^rtapp_/);
      expect(Date.parse(app.created_at)).not.toBeNaN();
      // The whoami above used it (its first use is recorded soon after, later ones at most once a minute).
      await expect.poll(async () => ((await appsAs('olive')).body.apps as ConnectedApp[]).find((a) => a.grant_id === app.grant_id)?.last_used_at).not.toBeNull();

      const { page, dialogs, errors } = await openPage('olive');
      const section = page.getByRole('region', { name: /Connected apps/ });
      await section.waitFor();
      const item = section.locator(`[data-grant-id="${app.grant_id}"]`);
      await expect.poll(() => item.textContent()).toContain('Planner app');
      expect(await item.textContent()).toContain('as w1');
      expect(await item.locator('.member-role').textContent()).toBe('worker');
      expect(await item.textContent()).toContain('granted by olive');

      // Revoke asks first; Keep leaves the app connected.
      await item.getByRole('button', { name: 'Revoke Planner app' }).click();
      const confirm = item.getByRole('form', { name: 'Revoke Planner app' });
      await confirm.waitFor();
      await confirm.getByRole('button', { name: 'Keep' }).click();
      await item.getByRole('button', { name: 'Revoke Planner app' }).waitFor();
      expect(await callWithAccessToken(provider)).toBe(200);

      await item.getByRole('button', { name: 'Revoke Planner app' }).click();
      await item.getByRole('button', { name: 'Yes, revoke' }).click();
      await expect.poll(() => page.locator('#action-status').textContent()).toBe('Planner app was revoked: it can no longer act as w1.');
      await expect.poll(() => item.count()).toBe(0);

      // Its access token is refused at once, and the SDK client cannot go on either (its refresh token ended with it).
      expect(await callWithAccessToken(provider)).toBe(401);
      await expect(client.callTool({ name: 'whoami', arguments: {} })).rejects.toThrow();
      expect(((await appsAs('olive')).body.apps as ConnectedApp[]).some((a) => a.grant_id === app.grant_id)).toBe(false);
      expect(await auditRows()).toEqual([{ agent: 'olive', tool: 'oauth_revoke', outcome: 'ok', face: 'web' }]);
      expect(dialogs).toEqual([]);
      expect(errors).toEqual([]);
    });

    it('an observer sees the list live and read-only, an app named with markup shows as text, and the action route refuses them 403', async () => {
      // The page is open before the app connects: the grant makes it read the list again.
      const { page, dialogs, errors } = await openPage('oscar');
      const { provider } = await connectApp(MARKUP_NAME, 'lead');
      const listed = await appsAs('oscar');
      expect(listed.status).toBe(200);
      const app = (listed.body.apps as ConnectedApp[]).find((a) => a.client_name === MARKUP_NAME)!;
      expect(app).toMatchObject({ agent: 'lead', agent_role: 'leader', granted_by: 'olive' });

      const item = page.locator(`#apps-list [data-grant-id="${app.grant_id}"]`);
      await expect.poll(() => item.locator('.app-name').textContent()).toBe(MARKUP_NAME);
      expect(await page.locator('#apps img').count()).toBe(0);
      expect(await page.locator('#apps button').count()).toBe(0);
      expect(await page.getByRole('region', { name: /Connected apps/ }).isVisible()).toBe(true);

      // The owner's page shows the same name as text too.
      const owner = await openPage('olive');
      await expect.poll(() => owner.page.locator(`[data-grant-id="${app.grant_id}"] .app-name`).textContent()).toBe(MARKUP_NAME);
      expect(await owner.page.locator('#apps img').count()).toBe(0);

      const before = (await auditRows()).length;
      const refused = await pageAction(board, await sessionOf('oscar'), 'revoke_app', { grant_id: app.grant_id });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('forbidden');
      // An agent's session neither reads the list nor revokes.
      expect((await appsAs('w1')).status).toBe(403);
      expect((await pageAction(board, await sessionOf('lead'), 'revoke_app', { grant_id: app.grant_id })).status).toBe(403);
      expect(await callWithAccessToken(provider)).toBe(200);
      expect((await auditRows()).slice(before)).toEqual([
        { agent: 'oscar', tool: 'oauth_revoke', outcome: 'forbidden', face: 'web' },
        { agent: 'lead', tool: 'oauth_revoke', outcome: 'forbidden', face: 'web' },
      ]);

      // Revoked by the owner elsewhere: both open pages drop it without a reload.
      expect((await pageAction(board, await sessionOf('olive'), 'revoke_app', { grant_id: app.grant_id })).status).toBe(200);
      await expect.poll(() => item.count()).toBe(0);
      await expect.poll(() => owner.page.locator(`[data-grant-id="${app.grant_id}"]`).count()).toBe(0);
      expect(await callWithAccessToken(provider)).toBe(401);
      expect(dialogs).toEqual([]);
      expect(owner.dialogs).toEqual([]);
      expect([...errors, ...owner.errors]).toEqual([]);
    });

    it('an unknown or malformed grant id is refused naming grant_id; the page checks still apply', async () => {
      const session = await sessionOf('olive');
      const unknown = await pageAction(board, session, 'revoke_app', { grant_id: 'grant_nope' });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.code).toBe('not_found');
      expect(unknown.body.error.message).toMatch(/^grant_id: /);
      const malformed = await pageAction(board, session, 'revoke_app', { grant_id: '<b>' });
      expect(malformed.status).toBe(400);
      expect(malformed.body.error.message).toMatch(/^grant_id: /);
      expect((await pageAction(board, session, 'revoke_app', {}, { csrf: null })).status).toBe(403);
      expect((await pageAction(board, session, 'revoke_app', {}, { origin: null })).status).toBe(403);
    });
  });
});
