// The Find box searches the whole board (issue 36), in real headless Chromium: a word in a task message is found and
// its hit opens the task with the message shown; a room message is found and shown in the room; a direct message to
// another member is not found; hostile board text in hits stays text. On SQLite only: the page is the same on either
// store, and test/daemon/search.test.ts holds both stores to the same answers.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startBoard, type TestBoard } from '../helpers/board.js';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_BROWSER = existsSync(CHROMIUM);

describe.skipIf(!HAVE_BROWSER)(`the Find box in headless Chromium${HAVE_BROWSER ? '' : ` (skipped: ${CHROMIUM} is missing)`}`, () => {
  let board: TestBoard;
  let browser: Browser;
  let taskId: number;
  let messageId: number;
  let roomId: number;

  beforeAll(async () => {
    board = await startBoard({ agents: [{ name: 'lead', role: 'leader' }, { name: 'alice', role: 'owner' }, { name: 'w1', role: 'worker' }] });
    const call = async (agent: string, tool: string, args: Record<string, unknown>) => {
      const answer = await api(board, agent, tool, args);
      if (answer.status !== 200) throw new Error(`${tool}: ${JSON.stringify(answer.body)}`);
      return answer.body;
    };
    taskId = (await call('lead', 'create_task', { title: 'Move the <img src=x onerror="window.__xss=1"> billing job' })).task.id;
    await call('w1', 'claim_task', { task_id: taskId });
    for (let i = 0; i < 30; i++) await call('w1', 'post_message', { task_id: taskId, kind: 'progress', text: `step ${i} of the move` });
    messageId = (await call('w1', 'post_message', { task_id: taskId, kind: 'help_request', text: 'The quokka cron <script>window.__xss=2</script> fails at night' })).message.id;
    for (let i = 0; i < 30; i++) await call('w1', 'post_message', { task_id: taskId, kind: 'progress', text: `later step ${i}` });
    roomId = (await call('lead', 'post', { to: 'all', text: 'Pangolin freeze starts <svg onload="window.__xss=3"> Friday' })).message.id;
    await call('lead', 'post', { to: 'w1', text: 'Only for w1: the okapi password moved' });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'] });
  });

  afterAll(async () => {
    await browser?.close();
    await board?.stop();
  });

  async function signedInPage(): Promise<{ page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('dialog', (dialog) => {
      errors.push(`dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
    await page.goto(`${board.url}/`);
    await page.getByLabel('Agent or observer token').fill(board.tokens['alice']!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#app').waitFor({ state: 'visible' });
    return { page, errors };
  }

  const hits = (page: Page) => page.locator('#search-hits .hit');

  /** Types the words and waits for the hits of these words (the note names them). */
  async function searchFor(page: Page, query: string): Promise<void> {
    await page.locator('#filter-text').fill(query);
    await expect.poll(() => page.locator('#search-note').textContent(), { message: query }).toContain(`“${query}”`);
  }

  it('finds a task message and opens it in its task; finds a room message and shows it; hostile text stays text', async () => {
    const { page, errors } = await signedInPage();

    await searchFor(page, 'quokka');
    expect(await hits(page).count()).toBe(1);
    expect(await hits(page).locator('.hit-where').textContent()).toBe(`Message on #${taskId}`);
    expect(await hits(page).locator('mark').allTextContents()).toEqual(['quokka']);
    // The script tag in the message is characters in the excerpt, not an element.
    expect(await hits(page).locator('.hit-excerpt').textContent()).toContain('<script>window.__xss=2</script>');
    expect(await page.locator('#search-hits script').count()).toBe(0);
    await hits(page).click();
    await expect.poll(() => page.locator('#detail-id').textContent()).toBe(`#${taskId}`);
    const message = page.locator(`#detail-body [data-message-id="${messageId}"]`);
    await expect.poll(() => message.count()).toBe(1);
    expect(await message.textContent()).toContain('The quokka cron');
    await expect.poll(() => message.isVisible()).toBe(true);
    await page.locator('#detail-close').click();

    await searchFor(page, 'pangolin friday');
    expect(await hits(page).count()).toBe(1);
    expect(await hits(page).locator('.hit-where').textContent()).toBe('Room message');
    expect(await hits(page).locator('mark').allTextContents()).toEqual(['Pangolin', 'Friday']);
    await hits(page).click();
    await expect.poll(() => page.locator(`#room [data-message-id="${roomId}"]`).getAttribute('class')).toContain('found');

    // A direct message to w1 is not alice's to read: the Find box does not find it.
    await searchFor(page, 'okapi');
    expect(await page.locator('#search-note').textContent()).toBe('Nothing in the board holds “okapi”');
    expect(await hits(page).count()).toBe(0);

    // Operators typed into the box are words or nothing, never an error.
    for (const query of ['"quokka', 'quokka*', 'NOT (', 'a:b!']) {
      await searchFor(page, query);
      expect(await page.locator('#search-note').textContent(), query).toMatch(/^(\d+ match(es)? in the board|Nothing in the board holds)/);
    }

    // The title's payload is a word of the title too: found, and shown as text.
    await searchFor(page, 'billing onerror');
    expect(await hits(page).count()).toBe(1);
    expect(await page.locator('#search-hits img').count()).toBe(0);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(errors).toEqual([]);

    // Clearing the box hides the hits.
    await page.locator('#filter-text').fill('');
    await expect.poll(() => page.locator('#search-results').isHidden()).toBe(true);
  });
});
