// A person with owner in one project and observer in another (issue 33), in real headless Chromium: signs in once at /,
// sees both projects listed with their role and counts there, opens the first and acts as its owner, switches to the
// second and gets the read-only view whose action routes refuse them; an agent of the first cannot read the second's
// board. Over MCP the same person's token does an owner's tool on /p/alpha/mcp and is refused it by role on
// /p/beta/mcp. The catalog is written in its second spelling (projects and people).
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpClient, resultJson, startBoard, token, type TestBoard } from '../helpers/board.js';
import { signInPage } from '../helpers/page-session.js';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_BROWSER = existsSync(CHROMIUM);
const REQUIRE_BROWSER = process.env['ROUNDTABLE_REQUIRE_BROWSER'] === '1';

const NAMES = ['lead-a', 'wa', 'lead-b', 'wb', 'pat'] as const;
const sha = (value: string) => createHash('sha256').update(value).digest('hex');

function writeCatalog(dir: string, tokens: Record<string, string>): void {
  const agent = (name: string, role: string) => ({ name, role, skills: [], token_sha256: sha(tokens[name]!) });
  const catalog = {
    projects: [
      { slug: 'alpha', title: 'Alpha app', mode: 'role', agents: [agent('lead-a', 'leader'), agent('wa', 'worker')] },
      { slug: 'beta', title: 'Beta lib', mode: 'role', agents: [agent('lead-b', 'leader'), agent('wb', 'worker')] },
    ],
    people: [{ name: 'pat', token_sha256: sha(tokens['pat']!), grants: { alpha: 'owner', beta: 'observer' } }],
  };
  writeFileSync(join(dir, 'agents.json'), JSON.stringify(catalog), { mode: 0o600 });
}

/** A tool through a project's JSON API, with an agent's token. */
async function apiIn(board: TestBoard, slug: string, agent: string, tool: string, args: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${board.url}/p/${slug}/api/v1/tools/${tool}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${board.tokens[agent]}` },
    body: JSON.stringify(args),
  });
  return { status: response.status, body: await response.json() };
}

async function okIn(board: TestBoard, slug: string, agent: string, tool: string, args: unknown): Promise<any> {
  const answer = await apiIn(board, slug, agent, tool, args);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
}

/** A page action on a project's URL with this session, as the page sends it. */
async function actIn(board: TestBoard, slug: string, cookie: string, tool: string, args: unknown): Promise<{ status: number; body: any }> {
  const state = await fetch(`${board.url}/p/${slug}/view/state`, { headers: { cookie: `rt_session=${cookie}` } });
  const csrf = state.status === 200 ? ((await state.json()) as { csrf_token: string }).csrf_token : 'none';
  const response = await fetch(`${board.url}/p/${slug}/actions/${tool}`, {
    method: 'POST',
    headers: { cookie: `rt_session=${cookie}`, 'content-type': 'application/json', origin: board.url, 'sec-fetch-site': 'same-origin', 'x-csrf-token': csrf, 'idempotency-key': `test-${Math.random()}` },
    body: JSON.stringify(args),
  });
  return { status: response.status, body: await response.json() };
}

if (REQUIRE_BROWSER && !HAVE_BROWSER) {
  describe('the page with projects', () => {
    it('needs Chromium at /usr/bin/chromium (ROUNDTABLE_REQUIRE_BROWSER=1)', () => {
      throw new Error(`${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`);
    });
  });
}

describe.skipIf(!HAVE_BROWSER)(`the page with projects in headless Chromium${HAVE_BROWSER ? '' : ` (skipped: ${CHROMIUM} is missing)`}`, () => {
  let board: TestBoard;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roundtable-projects-page-'));
    const tokens = Object.fromEntries(NAMES.map((name) => [name, token()]));
    writeCatalog(dir, tokens);
    board = await startBoard({ dir, tokens });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'] });

    // alpha: one submitted, one with a help request, one open, a message to pat. beta: one submitted, a message to pat.
    const submitted = (await okIn(board, 'alpha', 'lead-a', 'create_task', { title: 'to submit' })).task.id;
    const helped = (await okIn(board, 'alpha', 'lead-a', 'create_task', { title: 'needs help' })).task.id;
    await okIn(board, 'alpha', 'lead-a', 'create_task', { title: 'open one' });
    await okIn(board, 'alpha', 'wa', 'claim_task', { task_id: submitted });
    await okIn(board, 'alpha', 'wa', 'submit_result', { task_id: submitted, result: 'done' });
    await okIn(board, 'alpha', 'wa', 'claim_task', { task_id: helped });
    await okIn(board, 'alpha', 'wa', 'post_message', { task_id: helped, kind: 'help_request', text: 'stuck' });
    await okIn(board, 'alpha', 'lead-a', 'post', { to: 'pat', text: 'hello pat' });
    const other = (await okIn(board, 'beta', 'lead-b', 'create_task', { title: 'beta work' })).task.id;
    await okIn(board, 'beta', 'wb', 'claim_task', { task_id: other });
    await okIn(board, 'beta', 'wb', 'submit_result', { task_id: other, result: 'done' });
    await okIn(board, 'beta', 'lead-b', 'post', { to: ['pat'], text: 'hello from beta' });
  });

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await board?.stop();
  });

  async function newPage(): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      // 401 before sign-in and the 403s the test asks for are logged by Chromium.
      if (message.type() === 'error' && !/status of 40[13]/.test(message.text())) errors.push(message.text());
    });
    return { context, page, errors };
  }

  const card = (page: Page, slug: string) => page.locator(`.project-card[data-slug="${slug}"]`);

  it('signs in once at /, lists both projects with their role and counts, acts as owner in one and only watches the other', async () => {
    const { context, page, errors } = await newPage();
    await page.goto(`${board.url}/`);
    await page.getByLabel('Agent or observer token').fill(board.tokens['pat']!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#overview').waitFor({ state: 'visible' });
    expect(await page.locator('#app').isHidden()).toBe(true);
    expect(await page.locator('#overview-name').textContent()).toBe('pat');

    // The list: each project with its title, slug, role, tasks by state, what waits on pat, and agents active now.
    await expect.poll(() => page.locator('.project-card').count()).toBe(2);
    expect(await card(page, 'alpha').locator('.project-title').textContent()).toBe('Alpha app');
    expect(await card(page, 'alpha').locator('.project-slug').textContent()).toBe('alpha');
    expect(await card(page, 'alpha').locator('.project-role').textContent()).toBe('owner');
    expect(await card(page, 'beta').locator('.project-role').textContent()).toBe('observer');
    const count = (slug: string, status: string) => card(page, slug).locator(`.project-tasks [data-status="${status}"]`).getAttribute('data-count');
    expect([await count('alpha', 'open'), await count('alpha', 'claimed'), await count('alpha', 'submitted')]).toEqual(['1', '1', '1']);
    expect([await count('beta', 'open'), await count('beta', 'submitted')]).toEqual(['0', '1']);
    expect(await card(page, 'alpha').locator('.project-waiting').textContent()).toBe('Waiting on you: 1 submission to review · 1 help request · 1 message to you');
    // An observer reviews nothing and answers no help request: only the message to them waits.
    expect(await card(page, 'beta').locator('.project-waiting').textContent()).toBe('Waiting on you: 1 message to you');
    expect(await card(page, 'alpha').locator('.project-agents').getAttribute('data-active')).toBe('2');
    expect(await card(page, 'alpha').locator('.project-link').getAttribute('href')).toBe('/p/alpha/');

    // Into alpha: the owner's board, with its controls; the page reads and acts under /p/alpha/.
    await card(page, 'alpha').locator('.project-link').click();
    await page.waitForURL(`${board.url}/p/alpha/`);
    await page.locator('#app').waitFor({ state: 'visible' });
    await expect.poll(() => page.locator('#conn').getAttribute('data-state')).toBe('live');
    expect(await page.locator('#board-name').textContent()).toBe('Alpha app');
    expect(await page.locator('#me-role').textContent()).toBe('owner');
    expect(await page.locator('.card').count()).toBe(3);
    await page.getByRole('button', { name: 'New task' }).click();
    const dialog = page.getByRole('dialog', { name: 'New task' });
    await dialog.getByLabel('Title').fill('Made from the page');
    await dialog.getByRole('button', { name: 'Create task' }).click();
    await expect.poll(() => page.locator('#action-status').textContent()).toMatch(/^Task #\d+ created\.$/);
    const made = (await okIn(board, 'alpha', 'lead-a', 'list_tasks', {})).tasks as Array<{ title: string }>;
    expect(made.map((t) => t.title)).toContain('Made from the page');
    expect((await okIn(board, 'beta', 'lead-b', 'list_tasks', {})).tasks.map((t: { title: string }) => t.title)).toEqual(['beta work']);

    // The switcher lists pat's projects and moves to beta: the read-only view, no controls.
    const switcher = page.getByRole('combobox', { name: 'Switch project' });
    expect(await switcher.isVisible()).toBe(true);
    expect(await switcher.locator('option').allTextContents()).toEqual(['All projects', 'Alpha app (owner)', 'Beta lib (observer)']);
    await switcher.selectOption('beta');
    await page.waitForURL(`${board.url}/p/beta/`);
    await expect.poll(() => page.locator('#me-role').textContent()).toBe('observer');
    expect(await page.locator('#board-name').textContent()).toBe('Beta lib');
    expect(await page.locator('#new-task').isHidden()).toBe(true);
    expect(await page.locator('#room-form').isHidden()).toBe(true);
    expect(await page.locator('#untrusted-note').textContent()).toContain('Read-only view');
    expect(await page.locator('.card').count()).toBe(1);

    // The same session's action routes: beta refuses it by role, alpha takes it.
    const cookie = (await context.cookies()).find((c) => c.name === 'rt_session')!.value;
    const refused = await actIn(board, 'beta', cookie, 'create_task', { title: 'pat in beta' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
    expect((await okIn(board, 'beta', 'lead-b', 'list_tasks', {})).tasks).toHaveLength(1);
    expect((await actIn(board, 'alpha', cookie, 'create_task', { title: 'pat in alpha' })).status).toBe(200);

    // Back to the list through the switcher.
    await page.getByRole('combobox', { name: 'Switch project' }).selectOption('');
    await page.waitForURL(`${board.url}/`);
    await page.locator('#overview').waitFor({ state: 'visible' });
    expect(errors).toEqual([]);
  });

  it("an agent of alpha signed in reads alpha's board and is refused beta's (403)", async () => {
    const session = await signInPage(board, 'wa');
    expect(session.me).toMatchObject({ name: 'wa', role: 'worker' });
    const cookie = { cookie: `rt_session=${session.cookie}` };
    expect((await fetch(`${board.url}/p/alpha/view/state`, { headers: cookie })).status).toBe(200);
    const other = await fetch(`${board.url}/p/beta/view/state`, { headers: cookie });
    expect(other.status).toBe(403);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    expect((await fetch(`${board.url}/p/beta/events`, { headers: cookie })).status).toBe(403);
    // Its overview lists only its own project, so its page at / is alpha's board, without a switcher.
    const overview = (await (await fetch(`${board.url}/overview`, { headers: cookie })).json()) as { projects: Array<{ slug: string }> };
    expect(overview.projects.map((p) => p.slug)).toEqual(['alpha']);
    const { page } = await newPage();
    await page.goto(`${board.url}/`);
    await page.getByLabel('Agent or observer token').fill(board.tokens['wa']!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#app').waitFor({ state: 'visible' });
    await expect.poll(() => page.locator('#board-name').textContent()).toBe('Alpha app');
    expect(await page.locator('#project-switch').isHidden()).toBe(true);
    expect(await page.locator('#overview').isHidden()).toBe(true);
  });

  it("over MCP the person's token does an owner's tool on /p/alpha/mcp and is refused it by role on /p/beta/mcp", async () => {
    const inAlpha = await mcpClient({ url: `${board.url}/p/alpha`, tokens: board.tokens }, 'pat');
    const inBeta = await mcpClient({ url: `${board.url}/p/beta`, tokens: board.tokens }, 'pat');
    try {
      const made = await inAlpha.callTool({ name: 'create_task', arguments: { title: 'pat over MCP' } });
      expect(made.isError, JSON.stringify(made)).toBeFalsy();
      expect(resultJson(made).task.created_by).toBe('pat');
      const refused = await inBeta.callTool({ name: 'create_task', arguments: { title: 'pat over MCP in beta' } });
      expect(refused.isError).toBe(true);
      expect(resultJson(refused).error.code).toBe('forbidden');
      expect(resultJson(refused).error.message).toMatch(/observer/);
      // Reading is an observer's right there.
      const read = await inBeta.callTool({ name: 'list_tasks', arguments: {} });
      expect(read.isError).toBeFalsy();
      expect(resultJson(read).tasks.map((t: { title: string }) => t.title)).toEqual(['beta work']);
    } finally {
      await inAlpha.close();
      await inBeta.close();
    }
  });
});
