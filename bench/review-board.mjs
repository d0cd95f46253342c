// A throwaway board for the review page's bench and screenshot (issue 35): the built daemon on loopback with a leader,
// two workers and an owner, a tool-call helper, and a signed-in owner page in headless Chromium. npm run build first.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const ROOT = new URL('../', import.meta.url).pathname;
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const AGENTS = [
  { name: 'lead', role: 'leader', skills: [] },
  { name: 'ada', role: 'worker', skills: [] },
  { name: 'grace', role: 'worker', skills: [] },
  { name: 'maria', role: 'owner', skills: [] },
];

export async function startReviewBoard(name = 'Acme platform team') {
  const tokens = Object.fromEntries(AGENTS.map((a) => [a.name, `rt_${randomBytes(32).toString('base64url')}`]));
  const dir = mkdtempSync(join(tmpdir(), 'roundtable-review-'));
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
      ROUNDTABLE_NAME: name,
      ROUNDTABLE_BACKUP_INTERVAL: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  daemon.stderr.on('data', (d) => (log += d));
  const url = await new Promise((resolve, reject) => {
    let out = '';
    daemon.stdout.on('data', (d) => {
      out += d;
      const match = /listening on (https?:\/\/[^\s]+?)\/mcp/.exec(out);
      if (match) resolve(match[1]);
    });
    daemon.once('exit', (code) => reject(new Error(`the daemon exited with ${code}: ${log}`)));
  });
  let browser;
  const call = async (agent, tool, args = {}) => {
    const response = await fetch(`${url}/api/v1/tools/${tool}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[agent]}` },
      body: JSON.stringify(args),
    });
    const body = await response.json();
    if (!response.ok) throw new Error(`${agent} ${tool}: ${JSON.stringify(body.error)}`);
    return body;
  };
  /** lead creates it, the worker claims and submits it with the work (and any usage). */
  const submitted = async ({ title, worker = 'ada', result, work, usage }) => {
    const id = (await call('lead', 'create_task', { title })).task.id;
    await call(worker, 'claim_task', { task_id: id });
    await call(worker, 'submit_result', { task_id: id, result, work, ...(usage && { usage }) });
    return id;
  };
  /** The owner's page, signed in and live. */
  const ownerPage = async ({ width = 1440, height = 900, scheme = 'light' } = {}) => {
    browser ??= await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
    });
    const context = await browser.newContext({ viewport: { width, height }, colorScheme: scheme, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await page.goto(`${url}/`);
    await page.locator('#token').fill(tokens.maria);
    await page.locator('#signin-button').click();
    await page.locator('#app').waitFor({ state: 'visible' });
    await page.locator('#conn[data-state="live"]').waitFor();
    return page;
  };
  const stop = async () => {
    await browser?.close();
    daemon.kill('SIGTERM');
    await new Promise((resolve) => (daemon.exitCode !== null ? resolve() : daemon.once('exit', resolve)));
    rmSync(dir, { recursive: true, force: true });
  };
  return { url, call, submitted, ownerPage, stop, log: () => log };
}

/** A commit id from a word, for made-up work records. */
export const fakeId = (word) => createHash('sha1').update(word).digest('hex');
