#!/usr/bin/env node
// Renders docs/screenshot.png: a throwaway board filled through the API, with its owner signed in, in headless Chromium.
// Run by hand after changing the page (npm run build first); CI does not rewrite the picture.
//   node scripts/screenshot.mjs                       -> docs/screenshot.png at 1280x800, light
//   SCREENSHOT_OUT=/tmp/p.png SCREENSHOT_WIDTH=390 SCREENSHOT_HEIGHT=844 SCREENSHOT_SCHEME=dark node scripts/screenshot.mjs
//   node scripts/screenshot.mjs --phone               -> docs/screenshot-phone.png at 390x844, light
//   SCREENSHOT_PROGRESS=1 SCREENSHOT_OUT=/tmp/p.png node scripts/screenshot.mjs   (the Progress dialog open)
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const ROOT = new URL('../', import.meta.url).pathname;
const PHONE = process.argv.includes('--phone');
const OUT = process.env.SCREENSHOT_OUT ?? join(ROOT, PHONE ? 'docs/screenshot-phone.png' : 'docs/screenshot.png');
const WIDTH = Number(process.env.SCREENSHOT_WIDTH ?? (PHONE ? 390 : 1280));
const HEIGHT = Number(process.env.SCREENSHOT_HEIGHT ?? (PHONE ? 844 : 800));
const SCHEME = process.env.SCREENSHOT_SCHEME === 'dark' ? 'dark' : 'light';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const AGENTS = [
  { name: 'lead', role: 'leader', skills: [] },
  { name: 'ada', role: 'worker', skills: ['python', 'sql'] },
  { name: 'grace', role: 'worker', skills: ['frontend', 'css'] },
  { name: 'linus', role: 'worker', skills: ['python', 'ops'] },
  { name: 'maria', role: 'owner', skills: [] },
  { name: 'watcher', role: 'observer', skills: [] },
];
const tokens = Object.fromEntries(AGENTS.map((a) => [a.name, `rt_${randomBytes(32).toString('base64url')}`]));

const dir = mkdtempSync(join(tmpdir(), 'roundtable-screenshot-'));
writeFileSync(
  join(dir, 'agents.json'),
  JSON.stringify({ agents: AGENTS.map(({ name, role, skills }) => ({ name, role, skills, token_sha256: createHash('sha256').update(tokens[name]).digest('hex') })) }),
  { mode: 0o600 },
);

const daemon = spawn(process.execPath, [join(ROOT, 'daemon/bin/roundtable.js'), 'run'], {
  env: {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    ROUNDTABLE_HOST: '127.0.0.1',
    ROUNDTABLE_PORT: '0',
    ROUNDTABLE_DB_PATH: join(dir, 'board.db'),
    ROUNDTABLE_AGENTS_CONFIG: join(dir, 'agents.json'),
    ROUNDTABLE_NAME: 'Acme platform team',
    ROUNDTABLE_BACKUP_INTERVAL: '0',
  },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let daemonLog = '';
daemon.stderr.on('data', (d) => (daemonLog += d));

let browser;
const waiting = new AbortController();
try {
  const url = await new Promise((resolve, reject) => {
    let out = '';
    daemon.stdout.on('data', (d) => {
      out += d;
      const match = /listening on (https?:\/\/[^\s]+?)\/mcp/.exec(out);
      if (match) resolve(match[1]);
    });
    daemon.once('exit', (code) => reject(new Error(`the daemon exited with ${code}`)));
  });

  const call = async (agent, tool, args = {}, signal) => {
    const response = await fetch(`${url}/api/v1/tools/${tool}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[agent]}` },
      body: JSON.stringify(args),
      signal,
    });
    const body = await response.json();
    if (!response.ok) throw new Error(`${agent} ${tool}: ${JSON.stringify(body.error)}`);
    return body;
  };
  const create = async (title, extra = {}) => (await call('lead', 'create_task', { title, ...extra })).task.id;

  const docs = await create('Document the backup restore steps', { description: 'Step by step, with the commands, for whoever is on call.' });
  await call('ada', 'claim_task', { task_id: docs });
  await call('ada', 'submit_result', { task_id: docs, result: 'docs/RESTORE.md: stop, restore, verify, start. Tried twice on staging.' });
  await call('lead', 'review_task', { task_id: docs, verdict: 'approve', note: 'Clear and tested. Thanks!' });

  const redis = await create('Evaluate a Redis cache for sessions', { required_skills: ['ops'] });
  await call('lead', 'cancel_task', { task_id: redis, reason: 'Not needed: sessions stay in memory.' });

  const dark = await create('Add dark mode to the settings page', { required_skills: ['css'], description: 'Follow prefers-color-scheme; no toggle for now.' });
  await call('grace', 'claim_task', { task_id: dark });
  await call('grace', 'submit_result', { task_id: dark, result: 'Done with CSS variables; screenshots attached to the PR.' });
  await call('lead', 'review_task', { task_id: dark, verdict: 'approve' });

  const migration = await create('Write the migration for user settings', {
    required_skills: ['sql'],
    description: 'Add a settings table keyed by user id; backfill defaults; keep it reversible.',
  });
  await call('ada', 'claim_task', { task_id: migration });
  await call('ada', 'post_message', { task_id: migration, kind: 'progress', text: 'Schema done, backfill script next.' });

  const flake = await create('Fix the flaky login test on Safari', { required_skills: ['frontend'] });
  await call('grace', 'claim_task', { task_id: flake });
  await call('grace', 'submit_result', { task_id: flake, result: 'A race with the cookie banner: wait for it to settle before typing.' });

  const cert = await create('Rotate the staging TLS certificate', { required_skills: ['ops'] });
  await call('linus', 'claim_task', { task_id: cert });
  await call('linus', 'post_message', { task_id: cert, kind: 'help_request', text: 'Which CA do we use for staging now?' });

  await create('Profile the nightly export job', { required_skills: ['python'], description: 'It went from 4 to 11 minutes last week.' });
  await create('Draft the release notes for 0.4', { assignee: 'ada' });
  await create('Add rate limits to the public search API', { required_skills: ['python'] });

  await call('lead', 'post', { to: 'all', text: 'Morning! Priorities today: the settings migration and the Safari login flake.' });
  await call('ada', 'post', { to: 'all', text: 'Migration schema is up. Running the backfill against a copy of prod now.' });
  await call('linus', 'post', { to: 'all', text: 'Staging cert expires Friday; I have it. Proxies roll after lunch.' });
  await call('grace', 'post', { to: 'all', text: 'Login flake fixed and submitted for review: it was the cookie banner.' });
  await call('lead', 'post', { to: 'all', text: 'Great work. I will review the flake fix within the hour.' });
  await call('ada', 'post', { to: 'maria', text: 'Maria, may the backfill run against prod tonight?' });

  // The owner plans from the page too: a task that waits on the migration, and one of the migration's paths reserved.
  await call('maria', 'create_task', { title: 'Ship the settings page behind a flag', depends_on: [migration], priority: 'high', required_skills: ['frontend'] });
  await call('ada', 'reserve_paths', { task_id: migration, paths: ['db/migrations/**', 'src/settings/model.ts'] });

  // grace waits for work: nothing is claimable for her, her room is read and her reviews are told, so she shows as "waiting".
  await call('grace', 'read_unread');
  await call('grace', 'wait_for_activity', { timeout_s: 1 });
  void call('grace', 'wait_for_activity', { timeout_s: 50 }, waiting.signal).catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 300));

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
  });
  const context = await browser.newContext({ viewport: { width: WIDTH, height: HEIGHT }, colorScheme: SCHEME, deviceScaleFactor: 1 });
  const page = await context.newPage();
  await page.goto(`${url}/`);
  await page.locator('#token').fill(tokens.maria);
  await page.locator('#signin-button').click();
  await page.locator('#app').waitFor({ state: 'visible' });
  await page.locator('#conn[data-state="live"]').waitFor();
  await page.locator('.member .chip.waiting').waitFor();
  if (!PHONE) {
    await page.locator('#room-to').selectOption('ada');
    await page.locator('#room-text').fill('Yes, after 22:00 please.');
  }
  if (process.env.SCREENSHOT_DETAIL) {
    // The submitted flake fix, with the owner's review form beside its result.
    await page.locator('.card', { hasText: 'Fix the flaky login test' }).click();
    await page.locator('#detail-body .review-form').waitFor();
  }
  await page.locator('#needs-list .need').first().waitFor();
  if (process.env.SCREENSHOT_PROGRESS) {
    await page.locator('#progress-open').click();
    await page.locator('#progress-wip').waitFor();
  }
  // Let the arrival highlight fade.
  await page.waitForTimeout(1800);
  await page.screenshot({ path: OUT });
  console.log(`wrote ${OUT} (${WIDTH}x${HEIGHT}, ${SCHEME})`);
} catch (error) {
  process.stderr.write(daemonLog);
  throw error;
} finally {
  waiting.abort();
  await browser?.close();
  daemon.kill('SIGTERM');
  await new Promise((resolve) => (daemon.exitCode !== null ? resolve() : daemon.once('exit', resolve)));
  rmSync(dir, { recursive: true, force: true });
}
