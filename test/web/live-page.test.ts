// The live web page in real headless Chromium: sign-in, nothing without a session, live moves without reloads,
// board text shown as text only, the cookie's flags, the security headers, and no token anywhere.
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startBoard, writeAgentsFile, type AgentSpec, type TestBoard } from '../helpers/board.js';
import { freePort } from '../helpers/net.js';
import { makeTestPki, tlsEnv } from '../helpers/tls.js';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_BROWSER = existsSync(CHROMIUM);
const REQUIRE_BROWSER = process.env['ROUNDTABLE_REQUIRE_BROWSER'] === '1';
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
const XSS_TITLE = '<img src=x onerror=alert(1)>';

const AGENTS: AgentSpec[] = [
  { name: 'lead', role: 'leader' },
  { name: 'w1', role: 'worker', skills: ['python', 'sql'] },
  { name: 'w2', role: 'worker', skills: ['python'] },
  { name: 'viewer', role: 'observer' },
  { name: 'leaving', role: 'observer' },
];

if (REQUIRE_BROWSER && !HAVE_BROWSER) {
  describe('the live web page', () => {
    it('needs Chromium at /usr/bin/chromium (ROUNDTABLE_REQUIRE_BROWSER=1)', () => {
      throw new Error(`${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`);
    });
  });
}

describe.skipIf(!HAVE_BROWSER)(`the live web page in headless Chromium${HAVE_BROWSER ? '' : ` (skipped: ${CHROMIUM} is missing; apt-get install chromium, or set ROUNDTABLE_REQUIRE_BROWSER=1 to fail instead)`}`, () => {
  let board: TestBoard;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    board = await startBoard({ agents: AGENTS });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
    });
  });

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await board?.stop();
  });

  async function newPage(): Promise<{ context: BrowserContext; page: Page; dialogs: string[]; errors: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    const page = await context.newPage();
    const dialogs: string[] = [];
    const errors: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(`${dialog.type()}: ${dialog.message()}`);
      void dialog.dismiss();
    });
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      // The page's first look at /view/state is answered 401 before signing in; Chromium logs that, and it is expected.
      if (message.type() === 'error' && !/status of 401/.test(message.text())) errors.push(message.text());
    });
    return { context, page, dialogs, errors };
  }

  async function signIn(page: Page, agent: string): Promise<void> {
    await page.goto(`${board.url}/`);
    await page.locator('#token').fill(board.tokens[agent]!);
    await page.locator('#signin-button').click();
    await page.locator('#app').waitFor({ state: 'visible' });
    await expect.poll(() => page.locator('#conn').getAttribute('data-state')).toBe('live');
  }

  const card = (page: Page, status: string, title: string) => page.locator(`.column[data-status="${status}"] .card`, { hasText: title });

  async function fetchAs(cookie: string | undefined, path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (cookie) headers.set('cookie', `rt_session=${cookie}`);
    return fetch(`${board.url}${path}`, { ...init, headers, redirect: 'manual' });
  }

  async function sessionCookie(agent: string): Promise<string> {
    const response = await fetchAs(undefined, '/session', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: board.tokens[agent] }),
    });
    expect(response.status).toBe(200);
    const match = /rt_session=([^;]+)/.exec(response.headers.get('set-cookie') ?? '');
    expect(match).not.toBeNull();
    return match![1]!;
  }

  it('without a session the page shows only the sign-in form, and no data route answers', async () => {
    const secret = `Secret task ${Date.now()}`;
    expect((await api(board, 'lead', 'create_task', { title: secret, description: 'hidden description' })).status).toBe(200);
    await api(board, 'lead', 'post', { to: 'all', text: 'hidden room text' });

    for (const path of ['/view/state', '/view/tasks/1', '/events']) {
      const response = await fetchAs(undefined, path);
      expect(response.status, path).toBe(401);
      const text = await response.text();
      expect(text).not.toContain('Secret task');
      expect(text).not.toContain('hidden');
    }
    // A made-up session id is no better than none.
    expect((await fetchAs('A'.repeat(43), '/view/state')).status).toBe(401);

    const { page, errors } = await newPage();
    await page.goto(`${board.url}/`);
    await page.locator('#signin').waitFor({ state: 'visible' });
    expect(await page.locator('#app').isHidden()).toBe(true);
    expect(await page.locator('#token').getAttribute('type')).toBe('password');
    const html = await page.content();
    expect(html).not.toContain(secret);
    expect(html).not.toContain('hidden room text');
    expect(await page.locator('.card').count()).toBe(0);
    const statuses = await page.evaluate(async () =>
      Promise.all(['/view/state', '/view/tasks/1', '/events'].map(async (path) => (await fetch(path)).status)),
    );
    expect(statuses).toEqual([401, 401, 401]);
    expect(errors).toEqual([]);
  });

  it('a wrong token shows an error and sets no cookie', async () => {
    const { context, page } = await newPage();
    await page.goto(`${board.url}/`);
    await page.locator('#token').fill('rt_not_a_real_token_for_this_board');
    await page.locator('#signin-button').click();
    await page.locator('#signin-error').waitFor({ state: 'visible' });
    expect(await page.locator('#signin-error').textContent()).toMatch(/not valid/);
    expect(await page.locator('#app').isHidden()).toBe(true);
    expect(await context.cookies()).toEqual([]);

    const response = await fetchAs(undefined, '/session', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: 'rt_not_a_real_token_for_this_board' }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(await response.text()).not.toContain('rt_not_a_real_token');
  });

  it('serves the page with a strict Content-Security-Policy and the right content types; data is never cached', async () => {
    const page = await fetchAs(undefined, '/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toBe(CSP);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await page.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i);
    expect(html).not.toMatch(/\sstyle=|<style/i);
    expect((await fetchAs(undefined, '/app.js')).headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await fetchAs(undefined, '/app.css')).headers.get('content-type')).toMatch(/^text\/css/);
    const script = await (await fetchAs(undefined, '/app.js')).text();
    expect(script).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|localStorage|sessionStorage/);

    const cookie = await sessionCookie('w2');
    const state = await fetchAs(cookie, '/view/state');
    expect(state.status).toBe(200);
    expect(state.headers.get('cache-control')).toBe('no-store');
    expect(state.headers.get('content-security-policy')).toBe(CSP);

    // Another site's page cannot sign in (CSRF), nor can a foreign Host name reach the page (DNS rebinding).
    const foreign = await fetchAs(undefined, '/session', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://evil.example' },
      body: JSON.stringify({ token: board.tokens['w2'] }),
    });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('set-cookie')).toBeNull();
    const rebound = await new Promise<number>((resolve, reject) => {
      // fetch() will not send a Host header of our choosing; a raw request can.
      const req = request({ host: '127.0.0.1', port: board.port, path: '/', headers: { host: 'evil.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(rebound).toBe(404);
  });

  it('an observer signs in: HttpOnly SameSite=Strict cookie, no token kept by the page, board and presence shown', async () => {
    await api(board, 'lead', 'post', { to: 'w2', text: 'a direct word for w2 only' });
    const { context, page, errors } = await newPage();
    await signIn(page, 'viewer');
    expect(await page.locator('#me-name').textContent()).toBe('viewer');
    expect(await page.locator('#me-role').textContent()).toBe('observer');
    expect(await page.locator('#token').inputValue()).toBe('');

    const cookies = await context.cookies();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ name: 'rt_session', httpOnly: true, sameSite: 'Strict', path: '/', secure: false });
    expect(cookies[0]!.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await page.evaluate('document.cookie')).toBe('');
    expect(await page.evaluate('[localStorage.length, sessionStorage.length]')).toEqual([0, 0]);
    const html = await page.content();
    for (const value of Object.values(board.tokens)) expect(html).not.toContain(value);

    // Members with presence, and the room as this member may see it (not another member's direct message).
    await expect.poll(() => page.locator('.member').count()).toBe(AGENTS.length);
    expect(await page.locator('.member[data-state="active"]', { hasText: 'lead' }).count()).toBe(1);
    expect(await page.locator('#room .msg', { hasText: 'hidden room text' }).count()).toBe(1);
    expect(await page.locator('#room').textContent()).not.toContain('a direct word for w2 only');
    expect(errors).toEqual([]);
  });

  it('a task created through the API appears, then moves across the columns, without a reload', async () => {
    const { page, errors } = await newPage();
    await signIn(page, 'w1');
    let navigations = 0;
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) navigations++;
    });
    // A marker on window: a reload or navigation would lose it.
    await page.evaluate("window.__noReload = 'still here'");

    const title = `Live task ${Date.now()}`;
    const created = await api(board, 'lead', 'create_task', { title, description: 'Watch me move', required_skills: ['python'] });
    const id = created.body.task.id as number;
    await card(page, 'open', title).waitFor();
    expect(await card(page, 'open', title).textContent()).toContain(`#${id}`);
    expect(await card(page, 'open', title).textContent()).toContain('python');

    expect((await api(board, 'w1', 'claim_task', { task_id: id })).status).toBe(200);
    await card(page, 'claimed', title).waitFor();
    expect(await card(page, 'open', title).count()).toBe(0);
    expect(await card(page, 'claimed', title).textContent()).toContain('w1');
    // The member now holds it.
    await expect.poll(() => page.locator('.member', { hasText: 'w1' }).textContent()).toContain(title);

    expect((await api(board, 'w1', 'submit_result', { task_id: id, result: 'Result text here' })).status).toBe(200);
    await card(page, 'submitted', title).waitFor();
    expect(await card(page, 'claimed', title).count()).toBe(0);

    // The detail panel follows the task live too.
    await card(page, 'submitted', title).click();
    await page.locator('#detail').waitFor({ state: 'visible' });
    await expect.poll(() => page.locator('#detail-body').textContent()).toContain('Result text here');
    expect(await page.locator('#detail-body').textContent()).toContain('Watch me move');
    expect((await api(board, 'lead', 'post_message', { task_id: id, kind: 'note', text: 'A note on the submission' })).status).toBe(200);
    await expect.poll(() => page.locator('#detail-body').textContent()).toContain('A note on the submission');

    expect((await api(board, 'lead', 'review_task', { task_id: id, verdict: 'approve', note: 'Nicely done' })).status).toBe(200);
    await card(page, 'done', title).waitFor();
    expect(await card(page, 'submitted', title).count()).toBe(0);
    await expect.poll(() => page.locator('#detail-status').textContent()).toBe('Done');
    await expect.poll(() => page.locator('#detail-body').textContent()).toContain('Nicely done');
    expect(await page.locator('#detail-body .step').count()).toBeGreaterThanOrEqual(4);

    await api(board, 'lead', 'post', { to: 'all', text: 'Room message arriving live' });
    await page.locator('#room .msg', { hasText: 'Room message arriving live' }).waitFor();

    expect(navigations).toBe(0);
    expect(await page.evaluate('window.__noReload')).toBe('still here');
    expect(errors).toEqual([]);
  });

  it('reserved paths appear beside the claim, live, as literal text, and go when the claim ends', async () => {
    // As w1: a later test proves w2 made no tool call.
    const { page, dialogs, errors } = await newPage();
    await signIn(page, 'viewer');
    const id = (await api(board, 'lead', 'create_task', { title: 'paths on the page' })).body.task.id as number;
    expect((await api(board, 'w1', 'claim_task', { task_id: id })).status).toBe(200);
    const reserved = await api(board, 'w1', 'reserve_paths', { task_id: id, paths: ['src/<b>bold</b>/**', 'docs/API.md'] });
    expect(reserved.status, JSON.stringify(reserved.body)).toBe(200);
    const chips = page.locator('.holding-paths .chip.path');
    await expect.poll(() => chips.allTextContents(), { timeout: 20_000 }).toEqual(['src/<b>bold</b>/**', 'docs/API.md']);
    expect(await page.locator('.holding-paths b').count()).toBe(0);
    expect((await api(board, 'w1', 'release_task', { task_id: id })).status).toBe(200);
    await expect.poll(() => chips.count(), { timeout: 20_000 }).toBe(0);
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
  });

  it(`a task titled ${XSS_TITLE} shows as literal text and runs nothing`, async () => {
    const created = await api(board, 'lead', 'create_task', {
      title: XSS_TITLE,
      description: '<script>alert(2)</script><b>bold?</b>',
      required_skills: ['c++'],
    });
    const id = created.body.task.id as number;
    // Skills are plain names now (SPEC §1), so markup cannot be sent as one; a board from before the rule may still
    // hold such a skill, so it is written as an older version would have, before the page first reads the board.
    expect((await api(board, 'lead', 'create_task', { title: 'refused', required_skills: ['<svg onload=alert(4)>'] })).status).toBe(400);
    const db = new Database(board.dbPath);
    try {
      db.prepare('UPDATE tasks SET required_skills = ? WHERE id = ?').run(JSON.stringify(['<svg onload=alert(4)>']), id);
    } finally {
      db.close();
    }
    const { page, dialogs, errors } = await newPage();
    await signIn(page, 'viewer');
    const imagesBefore = await page.locator('img').count();
    await api(board, 'lead', 'post_message', { task_id: id, kind: 'note', text: '<img src=y onerror=alert(3)>' });
    await api(board, 'lead', 'post', { to: 'all', text: '<iframe src="javascript:alert(5)"></iframe>' });

    const xss = card(page, 'open', XSS_TITLE);
    await xss.waitFor();
    expect(await xss.locator('.card-title').textContent()).toBe(XSS_TITLE);
    expect(await xss.locator('.chip', { hasText: '<svg onload=alert(4)>' }).count()).toBe(1);
    await page.locator('#room .msg', { hasText: '<iframe src="javascript:alert(5)"></iframe>' }).waitFor();
    await xss.click();
    await expect.poll(() => page.locator('#detail-body').textContent()).toContain('<img src=y onerror=alert(3)>');
    expect(await page.locator('#detail-title').textContent()).toBe(XSS_TITLE);
    expect(await page.locator('#detail-body').textContent()).toContain('<script>alert(2)</script><b>bold?</b>');

    // Give any injected handler time to fire, then look for what it would have made.
    await page.waitForTimeout(300);
    expect(await page.locator('img').count()).toBe(imagesBefore);
    expect(await page.locator('#app script, #app iframe, #app b, #app svg[onload]').count()).toBe(0);
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('shows priority, marks a blocked task with its blockers, and shows edits with the values they replaced, live', async () => {
    const { page, errors } = await newPage();
    await signIn(page, 'viewer');
    const blocker = (await api(board, 'lead', 'create_task', { title: `Blocker ${Date.now()}`, priority: 'urgent' })).body.task.id as number;
    const title = `Waits ${Date.now()}`;
    const id = (await api(board, 'lead', 'create_task', { title, depends_on: [blocker], priority: 'high' })).body.task.id as number;
    const waiting = card(page, 'open', title);
    await waiting.waitFor();
    expect(await waiting.locator('.chip.priority').textContent()).toBe('high');
    expect(await waiting.locator('.chip.blocked').textContent()).toBe(`blocked by #${blocker}`);
    expect(await waiting.getAttribute('data-blocked')).toBe('true');

    await waiting.click();
    await page.locator('#detail').waitFor({ state: 'visible' });
    await expect.poll(() => page.locator('#detail-body .depends-on').textContent()).toContain(`#${blocker}`);
    expect((await api(board, 'lead', 'update_task', { task_id: id, title: `${title} renamed`, priority: 'low' })).status).toBe(200);
    await expect.poll(() => page.locator('#detail-body .edit').textContent()).toContain(`title was${title}`);
    expect(await page.locator('#detail-body .edit').textContent()).toContain('priority washigh');
    await expect.poll(() => card(page, 'open', `${title} renamed`).locator('.chip.priority').textContent()).toBe('low');

    // Cancelling the blocker marks the dependent, live.
    expect((await api(board, 'lead', 'cancel_task', { task_id: blocker })).status).toBe(200);
    await expect.poll(() => card(page, 'open', `${title} renamed`).locator('.chip.stranded').textContent()).toBe(`cancelled blocker #${blocker}`);
    expect(errors).toEqual([]);
  });

  it('a task no worker can claim says "no one can claim" instead of ready, and turns ready live when a worker gets the skill (issue 31 item 6)', async () => {
    const { page, errors } = await newPage();
    await signIn(page, 'viewer');
    const title = `Needs fortran ${Date.now()}`;
    const made = await api(board, 'lead', 'create_task', { title, required_skills: ['fortran'] });
    expect(made.body['warnings'][0].missing_skills).toEqual(['fortran']);
    const stuck = card(page, 'open', title);
    await stuck.waitFor();
    await expect.poll(() => stuck.locator('.chip.unclaimable').textContent()).toBe('no one can claim');
    expect(await stuck.locator('.chip.unclaimable').getAttribute('title')).toContain('no worker has fortran');
    expect(await stuck.locator('.chip.ready').count()).toBe(0);
    await stuck.click();
    await expect.poll(() => page.locator('#detail-body .depends-on .chip.unclaimable').count()).toBe(1);
    await page.keyboard.press('Escape');

    // Only the reload tells the page: no task changes, so no task event follows.
    writeAgentsFile(join(board.dir, 'agents.json'), AGENTS.map((a) => (a.name === 'w2' ? { ...a, skills: ['python', 'fortran'] } : a)), board.tokens);
    board.process.kill('SIGHUP');
    await expect.poll(() => card(page, 'open', title).locator('.chip.ready').count(), { timeout: 15_000 }).toBe(1);
    expect(await card(page, 'open', title).locator('.chip.unclaimable').count()).toBe(0);
    writeAgentsFile(join(board.dir, 'agents.json'), AGENTS, board.tokens);
    board.process.kill('SIGHUP');
    await expect.poll(() => card(page, 'open', title).locator('.chip.unclaimable').count(), { timeout: 15_000 }).toBe(1);
    expect(errors).toEqual([]);
  });

  it('a long thread: the panel shows the newest 100 messages with the total, and loads the earlier ones on request', async () => {
    const { page, errors } = await newPage();
    await signIn(page, 'viewer');
    const title = `Long thread ${Date.now()}`;
    const id = (await api(board, 'lead', 'create_task', { title })).body.task.id as number;
    for (let i = 1; i <= 105; i++) expect((await api(board, 'lead', 'post_message', { task_id: id, kind: 'note', text: `thread message ${i}.` })).status).toBe(200);
    await card(page, 'open', title).click();
    await page.locator('#detail').waitFor({ state: 'visible' });
    await expect.poll(() => page.locator('#detail-body').textContent()).toContain('Messages (105)');
    const entries = page.locator('#detail-body .thread .entry');
    expect(await entries.count()).toBe(100);
    expect(await page.locator('#detail-body').textContent()).not.toContain('thread message 5.');
    const older = page.locator('#detail-body button.load-older[data-list="messages"]');
    expect(await older.textContent()).toBe('Show earlier messages (5 more)');
    await older.click();
    await expect.poll(() => entries.count()).toBe(105);
    // Oldest first, as the thread reads; the button is gone once there is nothing earlier.
    expect(await entries.first().textContent()).toContain('thread message 1.');
    expect(await entries.last().textContent()).toContain('thread message 105.');
    expect(await older.count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('page reads are not tool calls: no audit row, no room cursor moved', async () => {
    const cookie = await sessionCookie('w2');
    for (let i = 0; i < 5; i++) expect((await fetchAs(cookie, '/view/state')).status).toBe(200);
    expect((await fetchAs(cookie, '/view/tasks/1')).status).toBe(200);
    const db = new Database(board.dbPath, { readonly: true });
    try {
      const rows = db.prepare("SELECT COUNT(*) AS n FROM audit_log WHERE agent IN ('viewer', 'w2', 'leaving')").get() as { n: number };
      expect(rows.n).toBe(0);
    } finally {
      db.close();
    }
    // w2 has read nothing through its tools, so everything the page showed it is still unread.
    const unread = await api(board, 'w2', 'read_unread');
    const texts = (unread.body.messages as Array<{ text: string }>).map((m) => m.text);
    expect(texts).toContain('hidden room text');
    expect(texts).toContain('a direct word for w2 only');
  });

  it('signing out ends the session: the cookie is cleared and the old id opens nothing', async () => {
    const { context, page } = await newPage();
    await signIn(page, 'viewer');
    const id = (await context.cookies())[0]!.value;
    expect((await fetchAs(id, '/view/state')).status).toBe(200);
    await page.locator('#signout').click();
    await page.locator('#signin').waitFor({ state: 'visible' });
    expect(await context.cookies()).toEqual([]);
    expect(await page.locator('.card').count()).toBe(0);
    expect((await fetchAs(id, '/view/state')).status).toBe(401);
    expect((await fetchAs(id, '/events')).status).toBe(401);
  });

  it('removing an agent from agents.json ends its sessions at once, open page included', async () => {
    const { page } = await newPage();
    await signIn(page, 'leaving');
    const remaining = AGENTS.filter((a) => a.name !== 'leaving');
    writeAgentsFile(join(board.dir, 'agents.json'), remaining, board.tokens);
    board.process.kill('SIGHUP');
    // The next event ends its stream; the page finds its session gone and shows the form.
    await expect
      .poll(async () => {
        await api(board, 'lead', 'post', { to: 'all', text: 'nudge' });
        return page.locator('#signin').isVisible();
      }, { timeout: 15_000 })
      .toBe(true);
    expect(await page.locator('#signin-error').textContent()).toMatch(/session ended/);
    expect(await page.locator('.card').count()).toBe(0);
  });

  it('after a restart (SQLite keeps sessions in memory) the open page says the board restarted, not that the session ended (issue 31, item 8)', async () => {
    const port = await freePort();
    const first = await startBoard({ agents: AGENTS, env: { ROUNDTABLE_PORT: String(port) } });
    let second: TestBoard | undefined;
    try {
      const { page, errors } = await newPage();
      await page.goto(`${first.url}/`);
      await page.locator('#token').fill(first.tokens['viewer']!);
      await page.locator('#signin-button').click();
      await expect.poll(() => page.locator('#conn').getAttribute('data-state')).toBe('live');
      await first.stop();
      second = await startBoard({ agents: AGENTS, dir: first.dir, tokens: first.tokens, env: { ROUNDTABLE_PORT: String(port) } });
      // The stream drops, its reconnect is refused, and the page reads its state again: 401 from a board started anew.
      await page.locator('#signin').waitFor({ state: 'visible', timeout: 20_000 });
      expect(await page.locator('#signin-error').textContent()).toBe('The board restarted, which signs everyone out (it keeps sessions in memory). Sign in again.');
      expect(errors.filter((e) => !/ERR_CONNECTION_REFUSED|status of 401/.test(e))).toEqual([]);
    } finally {
      await second?.stop();
      if (first.process.exitCode === null) await first.stop();
    }
  });

  it('sign-in attempts are rate limited per client', async () => {
    let limited: Response | undefined;
    for (let i = 0; i < 12 && !limited; i++) {
      const response = await fetchAs(undefined, '/session', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: `rt_guess_${i}` }),
      });
      if (response.status === 429) limited = response;
      else expect(response.status).toBe(401);
    }
    expect(limited, 'a 429 within 12 attempts').toBeDefined();
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it("no token ever appears in the daemon's output", () => {
    const { stdout, stderr } = board.output();
    expect(stderr).toContain('"path":"/session"');
    for (const value of Object.values(board.tokens)) {
      expect(stderr).not.toContain(value);
      expect(stdout).not.toContain(value);
    }
  });
});

describe('the session cookie over HTTPS', () => {
  async function signInCookie(board: TestBoard, headers: Record<string, string> = {}, ca?: Buffer): Promise<string> {
    const url = new URL('/session', board.url);
    const send = url.protocol === 'https:' ? httpsRequest : request;
    return new Promise((resolve, reject) => {
      const req = send(
        url,
        { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, ...(ca && { ca }) },
        (res) => {
          res.resume();
          expect(res.statusCode).toBe(200);
          resolve(String(res.headers['set-cookie'] ?? ''));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ token: board.tokens['viewer'] }));
    });
  }

  it('is Secure and __Host- prefixed on a TLS socket, so no page on another port can plant or shadow it (issue 31, item 9)', async () => {
    const pki = makeTestPki();
    const board = await startBoard({ agents: AGENTS, env: tlsEnv(pki) });
    try {
      expect(board.url).toMatch(/^https:/);
      expect(await signInCookie(board, {}, readFileSync(pki.caCert))).toMatch(/^__Host-rt_session=[^;]+; Max-Age=\d+; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
    } finally {
      await board.stop();
    }
  });

  it('is Secure behind a trusted proxy that says https, and X-Forwarded-Proto is ignored otherwise', async () => {
    const trusting = await startBoard({ agents: AGENTS, env: { ROUNDTABLE_TRUST_PROXY: 'true' } });
    const plain = await startBoard({ agents: AGENTS });
    try {
      expect(await signInCookie(trusting, { 'x-forwarded-proto': 'https' })).toMatch(/^__Host-rt_session=[^;]+;.*; Secure;/);
      expect(await signInCookie(trusting)).not.toMatch(/Secure/);
      expect(await signInCookie(plain, { 'x-forwarded-proto': 'https' })).not.toMatch(/Secure/);
      expect(await signInCookie(plain)).toMatch(/^rt_session=[^;]+;.*HttpOnly; SameSite=Strict/);
    } finally {
      await trusting.stop();
      await plain.stop();
    }
  });
});
