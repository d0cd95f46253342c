// An owner at the live page, in real headless Chromium: signs in, creates a task with a dependency, rejects a
// submission with a note, approves the resubmission, force-releases a claim and posts to one worker; after each act the
// board is read back through the JSON API and a worker parked in wait_for_activity has been woken. Also: an observer's
// page has no controls and its session's POSTs are refused; forms from another origin or another local port, and
// requests without the CSRF token, change nothing and get 403; XSS payloads in every field an owner writes stay inert;
// the plan on each card, the filter box, a phone-width screen, the keyboard, and labels a screen reader announces.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startBoard, type AgentSpec, type TestBoard } from '../helpers/board.js';
import { openBoardDb, type BoardDb } from '../helpers/board-db.js';
import { eventually } from '../helpers/eventually.js';
import { standInServer, type StandIn } from '../helpers/net.js';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_BROWSER = existsSync(CHROMIUM);
const REQUIRE_BROWSER = process.env['ROUNDTABLE_REQUIRE_BROWSER'] === '1';

const AGENTS: AgentSpec[] = [
  { name: 'lead', role: 'leader' },
  { name: 'alice', role: 'owner' },
  { name: 'w1', role: 'worker', skills: ['python', 'sql'] },
  { name: 'w2', role: 'worker', skills: ['python'] },
  { name: 'viewer', role: 'observer' },
];

/** Each runs script or markup if rendered as HTML; shown as text, it is only characters. */
const XSS = {
  title: '<img src=x onerror="window.__xss=1">',
  description: '<script>window.__xss=2</script><b>bold?</b>',
  skill: '<svg onload="window.__xss=3">',
  note: '<iframe src="javascript:window.__xss=4"></iframe>',
  message: '<img src=y onerror="window.__xss=5">',
  room: '"><script>window.__xss=6</script>',
  reason: '<a href="javascript:window.__xss=7">x</a>',
  release: '<details open ontoggle="window.__xss=8">',
};

if (REQUIRE_BROWSER && !HAVE_BROWSER) {
  describe('the owner at the live page', () => {
    it('needs Chromium at /usr/bin/chromium (ROUNDTABLE_REQUIRE_BROWSER=1)', () => {
      throw new Error(`${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`);
    });
  });
}

describe.skipIf(!HAVE_BROWSER)(`the owner at the live page in headless Chromium${HAVE_BROWSER ? '' : ` (skipped: ${CHROMIUM} is missing)`}`, () => {
  let board: TestBoard;
  let db: BoardDb;
  let browser: Browser;
  let foreign: StandIn;
  const contexts: BrowserContext[] = [];
  /** The page another site or port serves: whatever markup the test puts here. */
  let foreignPage = '';

  beforeAll(async () => {
    board = await startBoard({ agents: AGENTS });
    db = openBoardDb(board);
    foreign = await standInServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(foreignPage);
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      // evil.test is another site on this machine: the resolver sends it to loopback.
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--host-resolver-rules=MAP evil.test 127.0.0.1'],
    });
  });

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await foreign?.close();
    await db?.close();
    await board?.stop();
  });

  async function newPage(viewport = { width: 1280, height: 900 }): Promise<{ context: BrowserContext; page: Page; dialogs: string[]; errors: string[] }> {
    const context = await browser.newContext({ viewport });
    contexts.push(context);
    const page = await context.newPage();
    const dialogs: string[] = [];
    const errors: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      // Refusals the test asks for (401 before sign-in, 403 for forged requests, 4xx the board answers) are logged by Chromium.
      if (message.type() === 'error' && !/status of 40[0139]/.test(message.text())) errors.push(message.text());
    });
    return { context, page, dialogs, errors };
  }

  async function signIn(page: Page, agent: string): Promise<void> {
    await page.goto(`${board.url}/`);
    await page.getByLabel('Agent or observer token').fill(board.tokens[agent]!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#app').waitFor({ state: 'visible' });
    await expect.poll(() => page.locator('#conn').getAttribute('data-state')).toBe('live');
  }

  const card = (page: Page, status: string, id: number) => page.locator(`.column[data-status="${status}"] .card[data-task-id="${id}"]`);

  /** Opens a task's panel from its card and waits for the task to load. */
  async function openTask(page: Page, status: string, id: number): Promise<void> {
    await card(page, status, id).click();
    await expect.poll(() => page.locator('#detail-status').textContent()).toBe(status.charAt(0).toUpperCase() + status.slice(1));
  }

  /**
   * A worker's wait_for_activity, parked before the act, whose answer the test awaits after it (an object, since an
   * async function would wait for a promise it returned).
   */
  async function parkedWait(agent: string, args: Record<string, unknown>): Promise<{ answer: Promise<any> }> {
    const answer = api(board, agent, 'wait_for_activity', { timeout_s: 20, ...args }).then((a) => a.body);
    await eventually(`${agent} to be parked`, async () => ((await api(board, 'lead', 'members')).body.members as Array<{ name: string; waiting: boolean }>).find((m) => m.name === agent)?.waiting);
    return { answer };
  }

  const task = async (id: number) => (await api(board, 'lead', 'get_task', { task_id: id, order: 'oldest_first', history_limit: 100 })).body;
  const auditFaces = async (id: number) => (await db.rows<{ tool: string; face: string }>(`SELECT tool, face FROM audit_log WHERE agent = 'alice' AND task_id = ${id} ORDER BY id`)).map((r) => `${r.tool}:${r.face}`);

  it('an owner plans, reviews, recovers and talks from the page; after each act the board has it and a waiting worker was woken', async () => {
    const { page, errors } = await newPage();
    await signIn(page, 'alice');
    expect(await page.locator('#me-role').textContent()).toBe('owner');

    // 1. A task, then one that depends on it, through the task form.
    let wait = await parkedWait('w1', { for: ['tasks'] });
    await page.getByRole('button', { name: 'New task' }).click();
    const dialog = page.getByRole('dialog', { name: 'New task' });
    await dialog.getByLabel('Title').fill('Write the schema');
    await dialog.getByLabel('Description').fill('Tables for users and orders.');
    await dialog.getByLabel('Required skills').fill('sql');
    await dialog.getByLabel('Priority').selectOption('high');
    await dialog.getByRole('button', { name: 'Create task' }).click();
    await expect.poll(() => page.locator('#action-status').textContent()).toMatch(/^Task #\d+ created\.$/);
    const schema = Number(/#(\d+)/.exec((await page.locator('#action-status').textContent())!)![1]);
    expect((await task(schema)).task).toMatchObject({ title: 'Write the schema', required_skills: ['sql'], priority: 'high', created_by: 'alice', status: 'open' });
    expect(await wait.answer).toMatchObject({ reason: 'activity', claimable_tasks: 1 });
    expect(await dialog.isHidden()).toBe(true);

    await page.getByRole('button', { name: 'New task' }).click();
    await dialog.getByLabel('Title').fill('Write the API on the schema');
    await dialog.getByLabel('Depends on').fill(`#${schema}`);
    await dialog.getByLabel('Assignee').selectOption('w1');
    await dialog.getByRole('button', { name: 'Create task' }).click();
    await expect.poll(() => page.locator('#action-status').textContent()).not.toContain(`#${schema} created`);
    const apiTask = Number(/#(\d+)/.exec((await page.locator('#action-status').textContent())!)![1]);
    expect((await task(apiTask)).task).toMatchObject({ depends_on: [schema], blocked_by: [schema], assignee: 'w1', created_by: 'alice' });
    // The card says what blocks it; the schema's card says it is ready.
    await expect.poll(() => card(page, 'open', apiTask).locator('.chip.blocked').textContent()).toBe(`blocked by #${schema}`);
    expect(await card(page, 'open', schema).locator('.chip.ready').textContent()).toBe('ready');

    // 2. w1 claims and submits; the owner rejects it with a note, beside the result.
    expect((await api(board, 'w1', 'claim_task', { task_id: schema })).status).toBe(200);
    expect((await api(board, 'w1', 'reserve_paths', { task_id: schema, paths: ['db/schema.sql', 'db/migrations/**'] })).status).toBe(200);
    // The claimed card shows the reserved paths and the lease's time left.
    await expect.poll(() => card(page, 'claimed', schema).locator('.card-paths .chip.path').allTextContents()).toEqual(['db/schema.sql', 'db/migrations/**']);
    expect(await card(page, 'claimed', schema).locator('.lease').textContent()).toMatch(/^lease \d+ min left$/);
    expect((await api(board, 'w1', 'submit_result', { task_id: schema, result: 'users and orders, no indexes' })).status).toBe(200);
    wait = await parkedWait('w1', { for: ['reviews'] });
    await openTask(page, 'submitted', schema);
    const review = page.getByRole('form', { name: `Review task ${schema}` });
    await expect.poll(() => page.locator('#detail-body .result-review').textContent()).toContain('users and orders, no indexes');
    await review.getByLabel('Review note').fill('Add indexes on the foreign keys.');
    await review.getByRole('button', { name: 'Reject' }).click();
    await expect.poll(() => page.locator('#action-status').textContent()).toBe(`Task #${schema} rejected.`);
    let detail = await task(schema);
    expect(detail.task).toMatchObject({ status: 'open', assignee: null, result: null });
    expect(detail.reviews.at(-1)).toMatchObject({ reviewer: 'alice', verdict: 'reject', note: 'Add indexes on the foreign keys.' });
    expect(detail.history.at(-1)).toMatchObject({ action: 'rejected', agent: 'alice' });
    expect((await wait.answer).reviews).toEqual([expect.objectContaining({ task_id: schema, verdict: 'reject', reviewer: 'alice' })]);

    // 3. The resubmission, approved: w1 hears of the approval, and of the task it unblocked.
    await api(board, 'w1', 'claim_task', { task_id: schema });
    await api(board, 'w1', 'submit_result', { task_id: schema, result: 'with indexes now' });
    wait = await parkedWait('w1', { for: ['reviews'] });
    const unblockedWait = await parkedWait('w1', { for: ['tasks'] });
    await expect.poll(() => page.locator('#detail-status').textContent()).toBe('Submitted');
    await page.getByRole('form', { name: `Review task ${schema}` }).getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => page.locator('#action-status').textContent()).toBe(`Task #${schema} approved.`);
    expect((await task(schema)).task.status).toBe('done');
    expect((await wait.answer).reviews).toEqual([expect.objectContaining({ task_id: schema, verdict: 'approve', reviewer: 'alice' })]);
    // The dependent, reserved for w1, is unblocked by the approval: w1's wait for tasks hears of it too.
    expect(await unblockedWait.answer).toMatchObject({ reason: 'activity', claimable_tasks: 1 });
    expect((await api(board, 'w1', 'list_tasks', { claimable_by_me: true })).body.tasks.map((t: { id: number }) => t.id)).toEqual([apiTask]);
    await page.getByRole('button', { name: 'Close' }).first().click();

    // 4. w1 claims the dependent and goes quiet: the owner takes the claim back, with a note.
    await api(board, 'w1', 'claim_task', { task_id: apiTask });
    // A claimable task for w1 again once released: w1's own wait for tasks is woken by the release.
    wait = await parkedWait('w1', { for: ['tasks'] });
    await openTask(page, 'claimed', apiTask);
    const release = page.getByRole('form', { name: `Release the claim on task ${apiTask}` });
    await release.getByLabel('Why release it').fill('w1 stopped answering; freeing it.');
    await release.getByRole('button', { name: 'Force release' }).click();
    await expect.poll(() => page.locator('#action-status').textContent()).toBe(`Task #${apiTask} released.`);
    detail = await task(apiTask);
    // Back in the pool for any qualified worker: a release lifts the assignment too (SPEC, release_task).
    expect(detail.task).toMatchObject({ status: 'open', assignee: null, claim_id: null });
    expect(detail.history.at(-1)).toMatchObject({ action: 'released', agent: 'alice', note: 'w1 stopped answering; freeing it.' });
    expect(await wait.answer).toMatchObject({ reason: 'activity', claimable_tasks: 1 });

    // 5. A word to one worker, in the room (the task panel, over it, closed first).
    await page.keyboard.press('Escape');
    wait = await parkedWait('w2', { for: ['messages'] });
    const room = page.getByRole('form', { name: 'Post to the room' });
    await room.getByLabel('To').selectOption('w2');
    await room.getByLabel('Message').fill('w2: please pick up the API task next.');
    await room.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('#action-status').textContent()).toMatch(/^Message \d+ sent to w2\.$/);
    expect(await wait.answer).toMatchObject({ reason: 'activity', unread_messages: 1 });
    const unread = (await api(board, 'w2', 'read_unread')).body.messages as Array<{ from: string; to: string[]; text: string }>;
    expect(unread.at(-1)).toMatchObject({ from: 'alice', to: ['w2'], text: 'w2: please pick up the API task next.' });
    expect((await api(board, 'w1', 'read_unread')).body.messages.map((m: { text: string }) => m.text)).not.toContain('w2: please pick up the API task next.');
    await page.locator('#room .msg', { hasText: 'w2: please pick up the API task next.' }).waitFor();

    // Each act was one audit row through the web face.
    expect(await auditFaces(schema)).toEqual(['create_task:web', 'review_task:web', 'review_task:web']);
    expect(await auditFaces(apiTask)).toEqual(['create_task:web', 'release_task:web']);
    expect(errors).toEqual([]);
  });

  it("a leader's read-only page says how to get an owner's token; an owner's page does not (issue 31, item 3)", async () => {
    const { page: leaderPage } = await newPage();
    await signIn(leaderPage, 'lead');
    const note = leaderPage.locator('#untrusted-note');
    await expect.poll(() => note.textContent()).toContain('Read-only view: only an owner can act here.');
    expect(await note.textContent()).toContain("Sign in with the owner's token that `npx roundtable init` printed first, or make one on the board's machine: `npx roundtable agents add NAME --role owner` prints it.");
    expect(await note.isVisible()).toBe(true);
    const { page: ownerPage } = await newPage();
    await signIn(ownerPage, 'alice');
    await expect.poll(() => ownerPage.locator('#untrusted-note').textContent()).toContain('You act as an owner');
    expect(await ownerPage.locator('#untrusted-note').textContent()).not.toContain('--role owner');
  });

  it("the room's message box: Enter sends, Shift+Enter adds a line (issue 31, item 8)", async () => {
    const { page, errors } = await newPage();
    await signIn(page, 'alice');
    const box = page.getByRole('form', { name: 'Post to the room' }).getByLabel('Message');
    await box.click();
    await page.keyboard.type('first line');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('second line');
    // Shift+Enter sent nothing: the text is still in the box, on two lines.
    expect(await box.inputValue()).toBe('first line\nsecond line');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#action-status').textContent()).toMatch(/^Message \d+ sent to everyone\.$/);
    expect(await box.inputValue()).toBe('');
    const log = (await api(board, 'lead', 'read_log', {})).body.messages as Array<{ from: string; text: string }>;
    expect(log.filter((m) => m.from === 'alice').at(-1)?.text).toBe('first line\nsecond line');
    // Enter in an empty box posts nothing (the form's own check refuses it).
    await page.keyboard.press('Enter');
    expect((await api(board, 'lead', 'read_log', {})).body.messages.filter((m: { from: string }) => m.from === 'alice')).toHaveLength(log.filter((m) => m.from === 'alice').length);
    expect(errors).toEqual([]);
  });

  it("an observer's page shows no controls, and its session's POSTs are refused", async () => {
    const id = (await api(board, 'lead', 'create_task', { title: 'watched, not touched' })).body.task.id as number;
    await api(board, 'w1', 'claim_task', { task_id: id });
    await api(board, 'w1', 'submit_result', { task_id: id, result: 'a result' });
    const { page, errors } = await newPage();
    await signIn(page, 'viewer');
    expect(await page.getByRole('button', { name: 'New task' }).isHidden()).toBe(true);
    expect(await page.locator('#room-form').isHidden()).toBe(true);
    await openTask(page, 'submitted', id);
    await expect.poll(() => page.locator('#detail-body').textContent()).toContain('a result');
    expect(await page.locator('#detail form, #app form:visible:not(#filter)').count()).toBe(0);
    for (const name of ['Approve', 'Reject', 'Force release', 'Cancel task', 'Edit task', 'Post message', 'Send']) expect(await page.getByRole('button', { name }).count(), name).toBe(0);
    // Even with the session's own CSRF token, the page's actions are not the observer's.
    const statuses = await page.evaluate(async (taskId) => {
      const state = (await (await fetch('/view/state')).json()) as { csrf_token: string };
      const send = (tool: string, args: unknown) =>
        fetch(`/actions/${tool}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': state.csrf_token }, body: JSON.stringify(args) }).then((r) => r.status);
      return [await send('review_task', { task_id: taskId, verdict: 'approve' }), await send('post', { to: 'all', text: 'observer speaking' }), await send('create_task', { title: 'observer task' })];
    }, id);
    expect(statuses).toEqual([403, 403, 403]);
    expect((await task(id)).task.status).toBe('submitted');
    expect((await api(board, 'lead', 'read_log', { limit: 100 })).body.messages.map((m: { text: string }) => m.text)).not.toContain('observer speaking');
    expect(errors).toEqual([]);
  });

  describe('forged requests change nothing and get 403', () => {
    /** The page's form, auto-submitted: what another site would put in front of a signed-in owner. */
    const formPage = (action: string) =>
      `<!doctype html><form id="f" method="post" action="${action}" enctype="application/x-www-form-urlencoded"><input name="title" value="forged by a form"></form><script>document.getElementById('f').submit()</script>`;

    async function forgedFrom(origin: string, markup: string): Promise<number[]> {
      const { page } = await newPage();
      await signIn(page, 'alice');
      const before = await db.snapshot();
      const statuses: number[] = [];
      page.on('response', (response) => {
        if (response.url().includes('/actions/')) statuses.push(response.status());
      });
      foreignPage = markup;
      await page.goto(`${origin}/`);
      await eventually('the forged request to be answered', () => statuses.length > 0);
      expect(await db.snapshot()).toEqual(before);
      return statuses;
    }

    it('a form posted from another local port (the same site: the session cookie is sent along)', async () => {
      const port = new URL(foreign.url).port;
      expect(await forgedFrom(`http://127.0.0.1:${port}`, formPage(`${board.url}/actions/create_task`))).toEqual([403]);
    });

    it('a form posted from another origin', async () => {
      const port = new URL(foreign.url).port;
      expect(await forgedFrom(`http://evil.test:${port}`, formPage(`${board.url}/actions/create_task`))).toEqual([403]);
    });

    it('a script on another local port, sending the JSON a page action carries (its preflight is refused)', async () => {
      const port = new URL(foreign.url).port;
      const markup = `<!doctype html><script>
        fetch(${JSON.stringify(`${board.url}/actions/create_task`)}, { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json', 'x-csrf-token': 'guess' }, body: JSON.stringify({ title: 'forged by a script' }) }).catch(() => undefined);
        fetch(${JSON.stringify(`${board.url}/actions/create_task`)}, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ title: 'forged, no cors' }) }).catch(() => undefined);
      </script>`;
      const statuses = await forgedFrom(`http://127.0.0.1:${port}`, markup);
      expect(statuses.every((s) => s === 403)).toBe(true);
      const titles = (await api(board, 'lead', 'list_tasks', { limit: 100 })).body.tasks.map((t: { title: string }) => t.title);
      expect(titles.filter((t: string) => t.startsWith('forged'))).toEqual([]);
    });

    it("the board's own page without the CSRF token, or with another's", async () => {
      const { page } = await newPage();
      await signIn(page, 'alice');
      const before = await db.snapshot();
      const statuses = await page.evaluate(async () => {
        const send = (headers: Record<string, string>) =>
          fetch('/actions/create_task', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ title: 'no token' }) }).then((r) => r.status);
        return [await send({}), await send({ 'x-csrf-token': 'x'.repeat(43) })];
      });
      expect(statuses).toEqual([403, 403]);
      expect(await db.snapshot()).toEqual(before);
    });
  });

  it('XSS payloads in every field an owner writes stay inert: shown as text, run nowhere', async () => {
    const { page, dialogs, errors } = await newPage();
    await signIn(page, 'alice');
    const imagesBefore = await page.locator('img').count();
    // The task form: title, description, skills (the skill on a task of its own, which no worker can claim).
    const dialog = page.getByRole('dialog', { name: 'New task' });
    const created = async () => {
      await expect.poll(() => page.locator('#action-status').textContent()).toMatch(/^Task #\d+ created\.$/);
      return Number(/#(\d+)/.exec((await page.locator('#action-status').textContent())!)![1]);
    };
    // Skills are plain names (SPEC section 1): markup is refused by the board, the refusal is shown as text in the
    // form, and nothing is created. (A skill stored before the rule is rendered as text: live-page.test.ts.)
    const snapshot = await db.snapshot();
    await page.getByRole('button', { name: 'New task' }).click();
    await dialog.getByLabel('Title').fill('needs an odd skill');
    await dialog.getByLabel('Required skills').fill(XSS.skill);
    await dialog.getByRole('button', { name: 'Create task' }).click();
    await expect.poll(() => dialog.getByRole('alert').textContent()).toContain('each skill must be');
    expect(await db.snapshot()).toEqual(snapshot);
    await dialog.getByLabel('Required skills').fill('');
    await dialog.getByLabel('Title').fill(XSS.title);
    await dialog.getByLabel('Description').fill(XSS.description);
    // Depends on takes task ids only: anything else is named back in the form's error, as text, and nothing is sent.
    await dialog.getByLabel('Depends on').fill(XSS.message);
    await dialog.getByRole('button', { name: 'Create task' }).click();
    await expect.poll(() => dialog.getByRole('alert').textContent()).toContain('is not a task id');
    expect(await dialog.getByRole('alert').textContent()).toContain('<img');
    await dialog.getByLabel('Depends on').fill('');
    await dialog.getByRole('button', { name: 'Create task' }).click();
    const id = await created();
    expect((await task(id)).task).toMatchObject({ title: XSS.title, description: XSS.description });

    // A message on the task, and its edit (the history keeps the old values, shown as text too).
    await openTask(page, 'open', id);
    const reply = page.getByRole('form', { name: `Post a message on task ${id}` });
    await reply.getByLabel('Message').fill(XSS.message);
    await reply.getByRole('button', { name: 'Post message' }).click();
    await expect.poll(() => page.locator('#detail-body .thread').textContent()).toContain(XSS.message);
    await page.getByRole('button', { name: 'Edit task' }).click();
    const edit = page.getByRole('dialog', { name: `Edit task #${id}` });
    await edit.getByLabel('Title').fill(`${XSS.title} (edited)`);
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.locator('#detail-body .edit').textContent()).toContain(XSS.title);

    // A review note (a rejection) and a release note, on the claims w1 makes.
    await api(board, 'w1', 'claim_task', { task_id: id });
    await expect.poll(() => page.locator('#detail-status').textContent()).toBe('Claimed');
    const release = page.getByRole('form', { name: `Release the claim on task ${id}` });
    await release.getByLabel('Why release it').fill(XSS.release);
    await release.getByRole('button', { name: 'Force release' }).click();
    await expect.poll(() => page.locator('#detail-status').textContent()).toBe('Open');
    await api(board, 'w1', 'claim_task', { task_id: id });
    await api(board, 'w1', 'submit_result', { task_id: id, result: 'r' });
    await expect.poll(() => page.locator('#detail-status').textContent()).toBe('Submitted');
    const review = page.getByRole('form', { name: `Review task ${id}` });
    await review.getByLabel('Review note').fill(XSS.note);
    await review.getByRole('button', { name: 'Reject' }).click();
    await expect.poll(() => page.locator('#detail-body').textContent()).toContain(XSS.note);
    // A cancel reason.
    const cancel = page.getByRole('form', { name: `Cancel task ${id}` });
    await cancel.getByLabel('Reason to cancel (optional)').fill(XSS.reason);
    await cancel.getByRole('button', { name: 'Cancel task' }).click();
    await expect.poll(() => page.locator('#detail-status').textContent()).toBe('Cancelled');
    // A room message (the task panel, over the room, stays open: its text is checked below).
    const room = page.getByRole('form', { name: 'Post to the room' });
    await room.getByLabel('Message').fill(XSS.room);
    await room.getByRole('button', { name: 'Send' }).press('Enter');
    await page.locator('#room .msg-text', { hasText: XSS.room }).waitFor();

    const body = (await page.locator('#detail-body').textContent()) ?? '';
    for (const text of [XSS.description, XSS.message, XSS.note, XSS.reason, XSS.release]) expect(body).toContain(text);
    expect(await page.locator('#detail-title').textContent()).toBe(`${XSS.title} (edited)`);
    expect(await card(page, 'cancelled', id).locator('.card-title').textContent()).toBe(`${XSS.title} (edited)`);
    // Any injected handler had its chance: nothing it would have made exists, nothing ran.
    await page.waitForTimeout(300);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(await page.locator('img').count()).toBe(imagesBefore);
    expect(await page.locator('#app script, #app iframe, #app b, #app a[href^="javascript"], #app details, #app svg[onload]').count()).toBe(0);
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('the filter box narrows the columns by text, status (ready, blocked), assignee and skill', async () => {
    const blocker = (await api(board, 'lead', 'create_task', { title: 'Filter: the base', required_skills: ['rust'] })).body.task.id as number;
    const blocked = (await api(board, 'lead', 'create_task', { title: 'Filter: on top', depends_on: [blocker], assignee: 'w2' })).body.task.id as number;
    const { page } = await newPage();
    await signIn(page, 'alice');
    const shown = () => page.locator('.card').evaluateAll((cards) => cards.map((c) => Number(c.getAttribute('data-task-id'))).sort((a, b) => a - b));
    const filter = page.getByRole('search', { name: 'Filter tasks' });
    await filter.getByLabel('Find').fill('Filter:');
    await expect.poll(shown).toEqual([blocker, blocked]);
    await filter.getByLabel('Status').selectOption('ready');
    await expect.poll(shown).toEqual([blocker]);
    await filter.getByLabel('Status').selectOption('blocked');
    await expect.poll(shown).toEqual([blocked]);
    await filter.getByLabel('Status').selectOption('');
    await filter.getByLabel('Assignee').selectOption('w2');
    await expect.poll(shown).toEqual([blocked]);
    await filter.getByLabel('Assignee').selectOption('');
    await filter.getByLabel('Skill').selectOption('rust');
    await expect.poll(shown).toEqual([blocker]);
    await filter.getByLabel('Find').fill(`#${blocked}`);
    await expect.poll(shown).toEqual([]);
    expect(await page.locator('.column[data-status="open"] .empty').textContent()).toBe('Nothing here matches the filter');
    await filter.getByRole('button', { name: 'Clear' }).click();
    await expect.poll(async () => (await shown()).length).toBeGreaterThan(2);
  });

  it('on a phone-width screen, by keyboard alone: create a task and approve a submission; every control has a label', async () => {
    const { page, errors } = await newPage({ width: 390, height: 844 });
    await signIn(page, 'alice');
    // Nothing is wider than the screen (the columns scroll sideways inside their own box).
    // (Code run in the page is given as text: the tests are type-checked against Node's types, not the DOM's.)
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);

    /** Presses Tab until the focused element is the one wanted; fails if it is never reached. */
    async function tabTo(description: string, isIt: () => Promise<boolean>): Promise<void> {
      for (let i = 0; i < 120; i++) {
        if (await isIt()) return;
        await page.keyboard.press('Tab');
      }
      throw new Error(`Tab never reached ${description}`);
    }
    const focusedIs = (selector: string) => async () => (await page.evaluate(`document.activeElement?.matches(${JSON.stringify(selector)}) === true`)) === true;

    await tabTo('the New task button', focusedIs('#new-task'));
    await page.keyboard.press('Enter');
    await expect.poll(focusedIs('#task-title')).toBe(true);
    expect(await page.evaluate("(() => { const r = document.getElementById('task-dialog').getBoundingClientRect(); return r.left >= 0 && r.right <= window.innerWidth; })()")).toBe(true);
    await page.keyboard.type('Typed on a phone');
    await tabTo('the Create task button', focusedIs('#task-submit'));
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#action-status').textContent()).toMatch(/^Task #\d+ created\.$/);
    const id = Number(/#(\d+)/.exec((await page.locator('#action-status').textContent())!)![1]);
    expect((await task(id)).task).toMatchObject({ title: 'Typed on a phone', created_by: 'alice' });

    await api(board, 'w1', 'claim_task', { task_id: id });
    await api(board, 'w1', 'submit_result', { task_id: id, result: 'done on a phone' });
    // At phone width the filters fold behind one button and the columns are tabs (issue 36): open both by keyboard.
    await page.locator('#filter-toggle').focus();
    await page.keyboard.press('Enter');
    await page.locator('#filter-text').fill(`#${id}`);
    await page.getByRole('tab', { name: /Submitted/ }).focus();
    await page.keyboard.press('Enter');
    await page.locator('#filter-text').focus();
    await tabTo(`the card of task ${id}`, focusedIs(`.card[data-task-id="${id}"]`));
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#detail-status').textContent()).toBe('Submitted');
    await tabTo('the Approve button', async () => (await page.evaluate("document.activeElement?.textContent === 'Approve'")) === true);
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await task(id)).task.status).toBe('done');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('#detail').isHidden()).toBe(true);

    // Every control an owner can reach has a name a screen reader announces: a label, or words of its own.
    const unnamed = await page.evaluate(`(() => {
      const missing = [];
      for (const el of document.querySelectorAll('#app input, #app select, #app textarea, #app button, #task-dialog input, #task-dialog select, #task-dialog textarea, #task-dialog button')) {
        const named = (el.labels?.length ?? 0) > 0 || el.getAttribute('aria-label') || el.getAttribute('aria-labelledby') || (el.tagName === 'BUTTON' && el.textContent.trim());
        if (!named) missing.push(el.outerHTML.slice(0, 80));
      }
      return missing;
    })()`);
    expect(unnamed).toEqual([]);
    expect(errors).toEqual([]);
  });
});
