// The Activity and Audit views of the board page (issue 36) in real headless Chromium, on both stores: the owner's
// open Activity view shows another agent's claim live, with a hostile task title as inert text; the owner's Audit view
// filters by agent and downloads a CSV whose rows are the JSON API's; an observer has no Audit button and gets 403.
import { existsSync, readFileSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startBoard, type AgentSpec, type TestBoard } from '../helpers/board.js';
import { describeEachStore } from '../helpers/stores.js';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_BROWSER = existsSync(CHROMIUM);
const REQUIRE_BROWSER = process.env['ROUNDTABLE_REQUIRE_BROWSER'] === '1';
const XSS_TITLE = '<img src=x onerror="window.__xss=1">';

const AGENTS: AgentSpec[] = [
  { name: 'lead', role: 'leader' },
  { name: 'olive', role: 'owner' },
  { name: 'w1', role: 'worker' },
  { name: 'w2', role: 'worker' },
  { name: 'oscar', role: 'observer' },
];

interface AuditEntry {
  id: number;
  at: string;
  agent: string | null;
  tool: string;
  task_id: number | null;
  outcome: string;
  face: string | null;
}

if (REQUIRE_BROWSER && !HAVE_BROWSER) {
  describe('activity and audit on the page', () => {
    it('needs Chromium at /usr/bin/chromium (ROUNDTABLE_REQUIRE_BROWSER=1)', () => {
      throw new Error(`${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`);
    });
  });
}

describe.skipIf(!HAVE_BROWSER)('activity and audit on the board page in headless Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync'] });
  });
  afterAll(async () => {
    await browser?.close();
  });

  describeEachStore((store) => {
    let board: TestBoard;
    const contexts: BrowserContext[] = [];
    beforeAll(async () => {
      board = await startBoard({ store, agents: AGENTS });
    });
    afterAll(async () => {
      for (const context of contexts) await context.close().catch(() => undefined);
      await board?.stop();
    });

    async function signedIn(agent: string): Promise<{ page: Page; errors: string[] }> {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
      contexts.push(context);
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('dialog', (dialog) => {
        errors.push(`dialog: ${dialog.message()}`);
        void dialog.dismiss();
      });
      await page.goto(`${board.url}/`);
      await page.getByLabel('Agent or observer token').fill(board.tokens[agent]!);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('#app').waitFor({ state: 'visible' });
      await expect.poll(() => page.locator('#conn').getAttribute('data-state')).toBe('live');
      return { page, errors };
    }

    it('shows another agent claiming a task live in the open Activity view, a hostile title as text', async () => {
      const id = (await api(board, 'lead', 'create_task', { title: XSS_TITLE })).body.task.id as number;
      const { page, errors } = await signedIn('olive');
      await page.locator('#activity-open').click();
      const list = page.locator('#activity-list');
      await expect.poll(() => list.locator('li').first().textContent()).toContain(`created#${id} ${XSS_TITLE}`);
      expect((await api(board, 'w1', 'claim_task', { task_id: id })).status).toBe(200);
      await expect.poll(() => list.locator('li').first().textContent(), { timeout: 10_000 }).toMatch(new RegExp(`^W1w1claimed#${id} `));
      expect(await list.locator('li').count()).toBe(2);
      // Inert: no element came from the title, nothing ran.
      expect(await list.locator('img').count()).toBe(0);
      expect(await page.evaluate(() => (globalThis as { __xss?: number }).__xss)).toBeUndefined();
      // A filter: only w1's rows.
      await page.locator('#activity-filter input[name="agent"]').fill('w1');
      await page.locator('#activity-filter button[type="submit"]').click();
      await expect.poll(() => list.locator('li').count()).toBe(1);
      // A task opens its panel.
      await list.locator(`[data-task="${id}"]`).first().click();
      await expect.poll(() => page.locator('#detail-title').textContent()).toBe(XSS_TITLE);
      expect(errors).toEqual([]);
    });

    it("filters the owner's Audit view by agent and downloads a CSV whose rows are the JSON API's", async () => {
      const id = (await api(board, 'lead', 'create_task', { title: 'audited' })).body.task.id as number;
      expect((await api(board, 'w2', 'claim_task', { task_id: id })).status).toBe(200);
      expect((await api(board, 'w1', 'claim_task', { task_id: id })).status).toBe(409);
      const { page, errors } = await signedIn('olive');
      await expect.poll(() => page.locator('#audit-open').isVisible()).toBe(true);
      await page.locator('#audit-open').click();
      await page.locator('#audit-filter input[name="agent"]').fill('w1');
      await page.locator('#audit-filter button[type="submit"]').click();
      const cells = page.locator('#audit-body tbody tr td:nth-child(2)');
      const json = (await (await fetch(`${board.url}/api/v1/audit?agent=w1&limit=200`, { headers: { authorization: `Bearer ${board.tokens['olive']}` } })).json()) as { entries: AuditEntry[] };
      await expect.poll(() => cells.allTextContents()).toEqual(json.entries.map(() => 'w1'));
      expect(await page.locator('#audit-body tbody tr td:nth-child(5)').allTextContents()).toContain('conflict');
      const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#audit-csv').click()]);
      expect(download.suggestedFilename()).toBe('roundtable-audit.csv');
      const lines = readFileSync((await download.path())!, 'utf8').trimEnd().split('\r\n');
      expect(lines[0]).toBe('id,at,agent,tool,task_id,outcome,face');
      expect(lines.slice(1)).toEqual(json.entries.map((e) => [e.id, e.at, e.agent, e.tool, e.task_id ?? '', e.outcome, e.face ?? ''].join(',')));
      expect(errors).toEqual([]);
    });

    it('gives an observer no Audit view, and the endpoint 403', async () => {
      const { page } = await signedIn('oscar');
      expect(await page.locator('#audit-open').isHidden()).toBe(true);
      expect(await page.locator('#activity-open').isVisible()).toBe(true);
      const status = await page.evaluate(async () => (await fetch('/view/audit')).status);
      expect(status).toBe(403);
    });
  });
});
