// The person's console in real headless Chromium, as an owner, on both stores (issue 36): a submission, a help request
// and a direct message appear in Needs me with their count in the title and leave it when handled from the page; an
// opted-in notification names kinds and ids only; the table of a progress chart equals the figures computed from the
// tasks' history; at phone width (390x844) the page does not scroll sideways, the title is whole, the filters fold
// behind one button and Submitted is one tap away. Hostile board text stays inert throughout.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startBoard, type AgentSpec, type TestBoard } from '../helpers/board.js';
import { describeEachStore } from '../helpers/stores.js';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_BROWSER = existsSync(CHROMIUM);

const AGENTS: AgentSpec[] = [
  { name: 'lead', role: 'leader' },
  { name: 'alice', role: 'owner' },
  { name: 'w1', role: 'worker' },
  { name: 'w2', role: 'worker' },
];

/** Each runs script if rendered as HTML; as text it is only characters. */
const XSS = {
  title: '<img src=x onerror="window.__xss=1">',
  help: '<script>window.__xss=2</script>',
  message: '<svg onload="window.__xss=3">',
};

describe.skipIf(!HAVE_BROWSER)(`the console in headless Chromium${HAVE_BROWSER ? '' : ` (skipped: ${CHROMIUM} is missing)`}`, () => {
  describeEachStore((store) => {
    let board: TestBoard;
    let browser: Browser;
    beforeAll(async () => {
      board = await startBoard({ store, agents: AGENTS });
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync'] });
    });
    afterAll(async () => {
      await browser?.close();
      await board?.stop();
    });

    const ok = async (agent: string, tool: string, args: unknown) => {
      const answer = await api(board, agent, tool, args);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.body;
    };

    async function signedIn(viewport: { width: number; height: number }): Promise<{ page: Page; errors: string[] }> {
      const context = await browser.newContext({ viewport });
      await context.grantPermissions(['notifications'], { origin: board.url });
      // Records each notification the page makes (its title and body), as the browser would show them.
      await context.addInitScript(`(() => {
        window.__notes = [];
        const Native = window.Notification;
        if (!Native) return;
        window.Notification = class extends Native {
          constructor(title, options) { super(title, options); window.__notes.push({ title, body: options && options.body }); }
        };
      })()`);
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${board.url}/`);
      await page.getByLabel('Agent or observer token').fill(board.tokens['alice']!);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('#app').waitFor({ state: 'visible' });
      await expect.poll(() => page.locator('#conn').getAttribute('data-state')).toBe('live');
      return { page, errors };
    }

    const item = (page: Page, key: string) => page.locator(`#needs-list [data-need="${key}"]`);
    const needKeys = (page: Page) => page.locator('#needs-list .need').evaluateAll((els) => els.map((el) => el.getAttribute('data-need')));

    it('a submission, a help request and a direct message appear in Needs me and leave it when handled', async () => {
      const { page, errors } = await signedIn({ width: 1280, height: 900 });
      await page.locator('#needs-notify').click();
      await expect.poll(() => page.locator('#needs-notify').getAttribute('aria-pressed')).toBe('true');
      const board = await page.locator('#board-name').textContent();

      const submitted = (await ok('lead', 'create_task', { title: `review me ${XSS.title}` }))['task']['id'] as number;
      const helped = (await ok('lead', 'create_task', { title: 'needs help' }))['task']['id'] as number;
      await ok('w1', 'claim_task', { task_id: submitted });
      await ok('w1', 'submit_result', { task_id: submitted, result: 'done' });
      await ok('w2', 'claim_task', { task_id: helped });
      await ok('w2', 'post_message', { task_id: helped, kind: 'help_request', text: XSS.help });
      const direct = (await ok('lead', 'post', { to: 'alice', text: `for you ${XSS.message}` }))['message']['id'] as number;

      await expect.poll(() => needKeys(page)).toEqual([`review:${submitted}`, `help:${helped}`, `message:${direct}`]);
      await expect.poll(() => page.title()).toBe(`(3) Roundtable — ${board}`);
      expect(await item(page, `review:${submitted}`).textContent()).toContain(`review me ${XSS.title}`);
      expect(await item(page, `message:${direct}`).textContent()).toContain(`for you ${XSS.message}`);
      // The notifications: fixed words, kinds and ids, never the board's text.
      const notes = (await page.evaluate('window.__notes')) as Array<{ title: string; body: string }>;
      expect(notes.length).toBeGreaterThan(0);
      for (const note of notes) {
        expect(note.title).toBe('Roundtable: needs you');
        expect(note.body).toMatch(/^\d+ new: ((review|help requested|message) (message )?#\d+(, )?)+$/);
      }
      expect(notes.map((n) => n.body).join(' ')).toContain(`message #${direct}`);

      // The review: the item opens the task; approving it there takes it off the list.
      await item(page, `review:${submitted}`).locator('.need-link').click();
      await expect.poll(() => page.locator('#detail-status').textContent()).toBe('Submitted');
      await page.locator('#detail-body .review-form').getByRole('button', { name: 'Approve' }).click();
      await expect.poll(() => needKeys(page)).toEqual([`help:${helped}`, `message:${direct}`]);
      await expect.poll(() => page.title()).toBe(`(2) Roundtable — ${board}`);
      await page.locator('#detail-close').click();

      // The help request: a reply on the task answers it.
      await item(page, `help:${helped}`).locator('.need-link').click();
      await expect.poll(() => page.locator('#detail-status').textContent()).toBe('Claimed');
      const reply = page.locator('#detail-body .reply-form');
      await reply.getByLabel('Message').fill('use the draft');
      await reply.getByRole('button', { name: 'Post message' }).click();
      await expect.poll(() => needKeys(page)).toEqual([`message:${direct}`]);
      await page.locator('#detail-close').click();

      // The direct message: Mark read.
      await item(page, `message:${direct}`).getByRole('button', { name: 'Mark read' }).click();
      await expect.poll(() => needKeys(page)).toEqual([]);
      await expect.poll(() => page.title()).toBe(`Roundtable — ${board}`);
      expect(await page.locator('#needs-empty').isVisible()).toBe(true);
      expect((await api(board_(), 'lead', 'get_task', { task_id: submitted })).body['task']['status']).toBe('done');

      expect(await page.evaluate('window.__xss')).toBeUndefined();
      expect(errors).toEqual([]);
    });

    const board_ = () => board;

    it('the table of tasks finished per day equals the counts in the tasks\' history', async () => {
      for (let i = 0; i < 3; i++) {
        const id = (await ok('lead', 'create_task', { title: `chart ${i} ${XSS.title}` }))['task']['id'] as number;
        await ok('w1', 'claim_task', { task_id: id });
        await ok('w1', 'submit_result', { task_id: id, result: 'r' });
        await ok('lead', 'review_task', { task_id: id, verdict: 'approve' });
      }
      const { page, errors } = await signedIn({ width: 1280, height: 900 });
      await page.locator('#progress-open').click();
      await page.locator('#progress-daily table').waitFor({ state: 'attached' });
      const rows = (await page.locator('#progress-daily tbody tr').evaluateAll((trs) =>
        trs.map((tr) => [...tr.children].map((c) => c.textContent)),
      )) as string[][];

      const history: Array<{ action: string; created_at: string }> = [];
      for (const t of (await ok('lead', 'list_tasks', { limit: 100 }))['tasks'] as Array<{ id: number }>) {
        history.push(...((await ok('lead', 'get_task', { task_id: t.id, history_limit: 100 }))['history'] as typeof history));
      }
      const perDay = new Map<string, number>();
      for (const h of history) if (h.action === 'approved') perDay.set(h.created_at.slice(0, 10), (perDay.get(h.created_at.slice(0, 10)) ?? 0) + 1);
      expect(rows).toHaveLength(30);
      for (const [day, finished] of rows) expect(Number(finished), day).toBe(perDay.get(day!) ?? 0);
      expect(rows.reduce((n, r) => n + Number(r[1]), 0)).toBe(history.filter((h) => h.action === 'approved').length);
      // The burn-up's last row: every task not cancelled, and every approval.
      const last = (await page.locator('#progress-burnup tbody tr').last().locator('td').allTextContents()).map(Number);
      expect(last).toEqual([history.filter((h) => h.action === 'created').length - history.filter((h) => h.action === 'cancelled').length, perDay.size === 0 ? 0 : [...perDay.values()].reduce((a, b) => a + b)]);
      // The tables are for screen readers until asked for; then they are on screen.
      const width = async () => (await page.locator('#progress-daily .numbers').boundingBox())?.width ?? 0;
      expect(await width()).toBeLessThanOrEqual(1);
      await page.getByRole('button', { name: 'Show the numbers' }).click();
      await expect.poll(width).toBeGreaterThan(100);
      expect(await page.evaluate('window.__xss')).toBeUndefined();
      expect(errors).toEqual([]);
    });

    it('at phone width: no sideways scroll, the title whole, the filters folded, Submitted one tap away', async () => {
      const submitted = (await ok('lead', 'create_task', { title: 'on the phone' }))['task']['id'] as number;
      await ok('w1', 'claim_task', { task_id: submitted });
      await ok('w1', 'submit_result', { task_id: submitted, result: 'r' });
      const { page, errors } = await signedIn({ width: 390, height: 844 });
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      // The title: not cut (nothing overflows its box) and inside the screen.
      const title = (await page.evaluate(`(() => { const el = document.getElementById('board-name'); const r = el.getBoundingClientRect();
        return { cut: el.scrollWidth > el.clientWidth, left: r.left, right: r.right, text: el.textContent }; })()`)) as { cut: boolean; left: number; right: number; text: string };
      expect(title.cut).toBe(false);
      expect(title.left).toBeGreaterThanOrEqual(0);
      expect(title.right).toBeLessThanOrEqual(390);
      expect(title.text.length).toBeGreaterThan(0);
      // The filters fold behind one button.
      expect(await page.locator('#filter').isVisible()).toBe(false);
      await page.getByRole('button', { name: 'Filters' }).click();
      expect(await page.locator('#filter-text').isVisible()).toBe(true);
      // Submitted: one tap on its tab, visible without scrolling sideways.
      const tab = page.getByRole('tab', { name: /Submitted/ });
      const box = (await tab.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      expect(await page.locator(`.card[data-task-id="${submitted}"]`).isVisible()).toBe(false);
      await tab.click();
      await expect.poll(() => page.locator(`.card[data-task-id="${submitted}"]`).isVisible()).toBe(true);
      expect(await tab.getAttribute('aria-selected')).toBe('true');
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      // The Progress dialog fits the screen too.
      await page.locator('#progress-open').click();
      await page.locator('#progress-wip').waitFor();
      expect(await page.evaluate("(() => { const r = document.getElementById('progress-dialog').getBoundingClientRect(); return r.left >= 0 && r.right <= window.innerWidth; })()")).toBe(true);
      expect(errors).toEqual([]);
    });
  });
});
