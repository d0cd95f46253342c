// Bench section for the owner at the page: the time from an owner's page action (a new task) to the answer of the
// worker it wakes, through the page in headless Chromium and as the page's own HTTP request, beside the leader making
// the same act over the JSON API (how the board hears of a person today: through the leader's agent app).
// It uses run.mjs's helpers, passed in, so the report, process hygiene and daemon start-up stay in one place.
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { inRounds, postTool, sha256 } from './harness.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const WARMUP = 5;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function writeOwnerAgents(dir) {
  const defs = [
    { name: 'lead', role: 'leader' },
    { name: 'alice', role: 'owner' },
    { name: 'claimer', role: 'worker' },
  ];
  const tokens = Object.fromEntries(defs.map((d) => [d.name, `rt_${randomBytes(32).toString('base64url')}`]));
  const path = join(dir, 'agents.json');
  writeFileSync(path, JSON.stringify({ agents: defs.map((d) => ({ ...d, skills: [], token_sha256: sha256(tokens[d.name]) })) }));
  return { path, tokens };
}

/** A page session as the browser makes one: sign in, read the CSRF token. */
async function signIn(base, token) {
  const res = await fetch(`${base}/session`, { method: 'POST', headers: { 'content-type': 'application/json', origin: base }, body: JSON.stringify({ token }) });
  const cookie = /rt_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
  if (!cookie) throw new Error(`sign-in: HTTP ${res.status}`);
  const state = await (await fetch(`${base}/view/state`, { headers: { cookie: `rt_session=${cookie}` } })).json();
  return { cookie, csrf: state.csrf_token };
}

/** The page's request for an action, sent from Node with the headers the page's fetch carries. */
function pageAction(agent, port, base, session, tool, args) {
  const body = JSON.stringify(args);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: `/actions/${tool}`,
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          cookie: `rt_session=${session.cookie}`,
          origin: base,
          'sec-fetch-site': 'same-origin',
          'x-csrf-token': session.csrf,
          'idempotency-key': `bench-${randomBytes(8).toString('hex')}`,
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))) : reject(new Error(`${tool}: HTTP ${res.statusCode} ${Buffer.concat(chunks)}`))));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The owner's page in Chromium, signed in; act(title) submits the task form as a click on "Create task" would. */
async function ownerPage(base, token) {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'] });
  const page = await browser.newPage();
  await page.goto(`${base}/`);
  await page.fill('#token', token);
  await page.click('#signin-button');
  await page.waitForSelector('#new-task', { state: 'visible' });
  return {
    act: (title) =>
      page.evaluate((t) => {
        document.getElementById('task-title').value = t;
        document.getElementById('task-form').requestSubmit(document.getElementById('task-submit'));
      }, title),
    close: () => browser.close(),
    /** The form is free again: the page's answer to the last action has arrived (a person cannot submit it twice at once). */
    ready: () => page.waitForFunction(() => !document.getElementById('task-form').hasAttribute('aria-busy')),
    errors: () => page.evaluate(() => document.getElementById('task-error').textContent),  };
}

/**
 * Each round: the worker parks in wait_for_activity; one act creates a task it may claim; the time from the act's
 * start (for the page: the form submitted) to the worker's answer arriving. The worker then claims and submits the
 * task and the leader approves it, so nothing is pending for the next round and the page's board stays small. The kinds take turns in alternating order (harness inRounds).
 */
export async function benchOwnerAction(h, { rounds }) {
  const dir = h.makeTempDir();
  const { path: agentsPath, tokens } = writeOwnerAgents(dir);
  const daemon = await h.startDaemon(join(dir, 'owner.db'), agentsPath);
  const base = `http://127.0.0.1:${daemon.port}`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const call = (who, tool, args) => postTool(agent, daemon.port, tokens[who], tool, args);
  const session = await signIn(base, tokens.alice);
  const browser = existsSync(CHROMIUM) ? await ownerPage(base, tokens.alice) : undefined;
  if (!browser) h.report.note(`owner_action: ${CHROMIUM} is missing, so the row measured through the page in Chromium is left out`);
  let n = 0;
  const acts = {
    page: (title) => browser.act(title),
    http: (title) => pageAction(agent, daemon.port, base, session, 'create_task', { title }),
    leader: (title) => call('lead', 'create_task', { title }),
  };
  const kinds = browser ? ['page', 'http', 'leader'] : ['http', 'leader'];
  let results;
  try {
    results = await inRounds(rounds + WARMUP, kinds, async (kind) => {
      const title = `${kind} ${n++}`;
      if (browser) await browser.ready();
      const waiting = call('claimer', 'wait_for_activity', { timeout_s: 20, for: ['tasks'] }).then((answer) => ({ answer, at: performance.now() }));
      await sleep(20); // let the wait reach the daemon and park
      const sent = performance.now();
      await acts[kind](title);
      const { answer, at } = await waiting;
      if (answer.reason !== 'activity' || answer.claimable_tasks !== 1) {
        throw new Error(`${kind}: the waiter answered ${JSON.stringify(answer)}${browser ? `; the page says "${await browser.errors()}"` : ''}`);
      }
      // The worker takes the task and it is done, so the page shows a board that does not grow with the rounds.
      const [task] = (await call('claimer', 'list_tasks', { claimable_by_me: true })).tasks;
      await call('claimer', 'claim_task', { task_id: task.id });
      await call('claimer', 'submit_result', { task_id: task.id, result: 'done' });
      await call('lead', 'review_task', { task_id: task.id, verdict: 'approve' });
      return at - sent;
    });
  } finally {
    await browser?.close();
    agent.destroy();
    await h.stopServer(daemon);
  }
  const labels = {
    page: "owner's page in Chromium: the task form submitted -> the worker's answer",
    http: "owner's page action as its HTTP request (POST /actions/create_task, cookie + CSRF) -> the worker's answer",
    leader: "baseline: the leader's create_task over the JSON API -> the worker's answer",
  };
  h.report.table('owner_action', `Owner acts from the page: time to the woken worker's answer (${rounds} rounds per kind after ${WARMUP} warm-up, kinds alternating)`, ['act', 'p50 ms', 'p99 ms', 'mean ms']);
  const figures = {};
  for (const kind of kinds) {
    const p = h.percentiles(results[kind].slice(WARMUP));
    figures[kind] = p;
    h.report.row('owner_action', [labels[kind], h.fmt.ms(p.p50), h.fmt.ms(p.p99), h.fmt.ms(p.mean)]);
  }
  const measured = figures.page ?? figures.http;
  h.report.target(
    `owner's page action -> woken worker's answer p50 < 50 ms (${figures.page ? 'through Chromium' : 'HTTP request only'})`,
    `p50 ${h.fmt.ms(measured.p50)} ms (leader over the API: ${h.fmt.ms(figures.leader.p50)} ms)`,
    measured.p50 < 50,
  );
}
