// The Activity timeline's reads over a 1,000,000-row event log (issue 36): `node bench/activity.mjs` (after `npm run
// build`). The log is seeded directly (task events by 40 agents, task messages, room messages to all and to one agent),
// the real daemon is started on it with retention above the seed, and an owner's GET /api/v1/activity is timed over
// keep-alive HTTP, one request at a time: the first page, the first page of one agent's rows (the index of migration
// 017/016), of a kind (no index: a scan until the page fills), a page 50 pages back (before=), a time window a week
// back, and a live read after the head. Also GET /api/v1/audit over 1,000,000 audit rows, first page and one agent's.
// SQLite always; PostgreSQL with ROUNDTABLE_BENCH_PG_URL (or ROUNDTABLE_TEST_PG_URL). Target: first page <= 50 ms.
// BENCH_ACTIVITY_ROWS changes the size; BENCH_ACTIVITY_SAMPLES the requests per case (default 200).
import http from 'node:http';
import { join } from 'node:path';
import pg from 'pg';
import { cleanupSync, createBoardDb, makeTempDir, percentiles, sha256, startDaemon, stopServer } from './harness.mjs';
import { createBenchDatabase, PG_ADMIN_URL } from './pg-database.mjs';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';

const ROWS = Number(process.env.BENCH_ACTIVITY_ROWS ?? 1_000_000);
const SAMPLES = Number(process.env.BENCH_ACTIVITY_SAMPLES ?? 200);
const AGENTS = Array.from({ length: 40 }, (_, i) => `w${i + 1}`);
const ACTIONS = ['created', 'claimed', 'submitted', 'approved', 'released', 'edited'];
const BASE = Date.parse('2026-01-01T00:00:00Z');
/** One row a second: 1,000,000 rows span 11.6 days. */
const STEP_MS = 1000;
const RETENTION = { ROUNDTABLE_EVENT_LOG_MAX_ROWS: String(ROWS * 2), ROUNDTABLE_EVENT_LOG_MAX_AGE: '3650d' };

/** Row i of the seed: deterministic, so every run and both stores read the same log. 'rejected' is 1 row in 1,000. */
function eventOf(i) {
  const actor = i % 1000 === 7 ? 'rare' : AGENTS[i % AGENTS.length];
  const task = { id: 1 + (i % 50_000), status: 'claimed', assignee: actor, required_skills: [], blocked: false, created_by: 'lead', lease_expires_at: null };
  if (i % 10 === 8) return { type: 'task_message', task_id: task.id, author: actor };
  if (i % 10 === 9) return { type: 'room', message_id: i, from: actor, to: i % 20 === 9 ? 'all' : ['w1'] };
  return { type: 'task', action: i % 1000 === 3 ? 'rejected' : ACTIONS[i % ACTIONS.length], actor, task };
}

function writeAgents(dir) {
  const owner = `rt_${randomBytes(32).toString('base64url')}`;
  const names = ['lead', 'rare', ...AGENTS];
  const agents = names.map((name) => ({ name, role: name === 'lead' ? 'leader' : 'worker', skills: [], token_sha256: sha256(`rt_${name}_unused_${randomBytes(8).toString('hex')}`) }));
  agents.push({ name: 'olive', role: 'owner', skills: [], token_sha256: sha256(owner) });
  const path = join(dir, 'agents.json');
  writeFileSync(path, JSON.stringify({ agents }, null, 2));
  return { path, owner };
}

function seedSqlite(path) {
  createBoardDb(path, ({ db }) => {
    const insertEvent = db.prepare('INSERT INTO event_log (id, at, kind, task_id, event) VALUES (?, ?, ?, ?, ?)');
    const insertAudit = db.prepare('INSERT INTO audit_log (id, at, agent, tool, task_id, outcome, face) VALUES (?, ?, ?, ?, ?, ?, ?)');
    for (let i = 0; i < ROWS; i++) {
      const event = eventOf(i);
      const at = new Date(BASE + i * STEP_MS).toISOString();
      insertEvent.run(i + 1, at, event.type, event.type === 'task' ? event.task.id : event.type === 'task_message' ? event.task_id : null, JSON.stringify(event));
      insertAudit.run(i + 1, at, event.actor ?? event.author ?? event.from, i % 3 === 0 ? 'list_tasks' : 'claim_task', 1 + (i % 50_000), i % 50 === 0 ? 'conflict' : 'ok', 'mcp');
    }
    db.exec('ANALYZE');
  });
}

async function seedPostgres(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const chunk = 20_000;
    for (let from = 0; from < ROWS; from += chunk) {
      const events = [];
      for (let i = from; i < Math.min(ROWS, from + chunk); i++) events.push(JSON.stringify(eventOf(i)));
      // One statement per chunk: the events as a JSON array, times from the row number.
      await client.query(
        `INSERT INTO event_log (at, kind, task_id, event)
         SELECT to_timestamp($2::float8 / 1000 + (($1::int + n - 1) * ${STEP_MS / 1000})), e->>'type',
           COALESCE((e->'task'->>'id')::bigint, (e->>'task_id')::bigint), e::text
         FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY AS t(e, n)`,
        [from, BASE, JSON.stringify(events.map((e) => JSON.parse(e)))],
      );
      await client.query(
        `INSERT INTO audit_log (at, agent, tool, task_id, outcome, face)
         SELECT to_char(to_timestamp($2::float8 / 1000 + ($1::int + n - 1)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           COALESCE(e->>'actor', e->>'author', e->>'from'), CASE WHEN ($1::int + n - 1) % 3 = 0 THEN 'list_tasks' ELSE 'claim_task' END,
           1 + (($1::int + n - 1) % 50000), CASE WHEN ($1::int + n - 1) % 50 = 0 THEN 'conflict' ELSE 'ok' END, 'mcp'
         FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY AS t(e, n)`,
        [from, BASE, JSON.stringify(events.map((e) => JSON.parse(e)))],
      );
    }
    await client.query('VACUUM ANALYZE event_log');
    await client.query('VACUUM ANALYZE audit_log');
  } finally {
    await client.end();
  }
}

const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });

function get(port, path, token) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request({ host: '127.0.0.1', port, path, agent: keepAlive, headers: { authorization: `Bearer ${token}` } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const ms = performance.now() - started;
        if (res.statusCode !== 200) return reject(new Error(`${path}: HTTP ${res.statusCode} ${Buffer.concat(chunks).toString().slice(0, 200)}`));
        resolve({ ms, body: JSON.parse(Buffer.concat(chunks).toString()) });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

async function timeCase(port, token, label, pathOf) {
  const samples = [];
  let items = 0;
  for (let i = 0; i < SAMPLES + 10; i++) {
    const path = await pathOf();
    const { ms, body } = await get(port, path, token);
    items = (body.items ?? body.entries).length;
    if (i >= 10) samples.push(ms);
  }
  const { p50, p99 } = percentiles(samples);
  return { label, p50: p50.toFixed(2), p99: p99.toFixed(2), items };
}

async function measure(store, port, token) {
  const first = await get(port, '/api/v1/activity', token);
  if (first.body.items.length !== 50) throw new Error(`the first page has ${first.body.items.length} rows`);
  // The cursor 50 pages back, walked once.
  let before = first.body.next;
  for (let p = 1; p < 50; p++) before = (await get(port, `/api/v1/activity?before=${encodeURIComponent(before)}`, token)).body.next;
  const weekBack = new Date(BASE + (ROWS - 7 * 86_400) * STEP_MS).toISOString();
  const dayAfter = new Date(BASE + (ROWS - 6 * 86_400) * STEP_MS).toISOString();
  const cases = [
    ['first page (50 rows)', () => '/api/v1/activity'],
    ['first page, one agent (w7: 1 row in 40)', () => '/api/v1/activity?agent=w7'],
    ['first page, a rare agent (1 row in 1,000)', () => '/api/v1/activity?agent=rare'],
    ['first page, kind=claimed (1 in 6 task rows)', () => '/api/v1/activity?kind=claimed'],
    ['first page, kind=rejected (1 row in 1,000)', () => '/api/v1/activity?kind=rejected'],
    ['page 51 (before=, 2,500 rows back)', () => `/api/v1/activity?before=${encodeURIComponent(before)}`],
    ['a day a week back (since, until)', () => `/api/v1/activity?since=${weekBack}&until=${dayAfter}`],
    ['live read after the head (nothing new)', () => `/api/v1/activity?after=${encodeURIComponent(first.body.head)}`],
    ['audit: first page (50 rows)', () => '/api/v1/audit'],
    ['audit: one agent (w7)', () => '/api/v1/audit?agent=w7'],
    ['audit: outcome=conflict (1 in 50)', () => '/api/v1/audit?outcome=conflict'],
  ];
  const rows = [];
  for (const [label, pathOf] of cases) rows.push(await timeCase(port, token, label, pathOf));
  console.log(`\n${store}: ${ROWS.toLocaleString('en')} event-log rows and audit rows; ${SAMPLES} requests per case, one at a time`);
  console.table(rows.map((r) => ({ case: r.label, 'p50 ms': r.p50, 'p99 ms': r.p99, rows: r.items })));
}

async function main() {
  const dir = makeTempDir();
  const agents = writeAgents(dir);
  try {
    const dbPath = join(dir, 'board.db');
    let started = performance.now();
    seedSqlite(dbPath);
    console.log(`SQLite seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    let daemon = await startDaemon(dbPath, agents.path, undefined, { env: RETENTION });
    try {
      await measure('SQLite', daemon.port, agents.owner);
    } finally {
      await stopServer(daemon);
    }
    if (!PG_ADMIN_URL) {
      console.log('\nPostgreSQL: skipped (set ROUNDTABLE_BENCH_PG_URL; scripts/pg-cluster.sh start prints one)');
      return;
    }
    const url = await createBenchDatabase('activity');
    // The daemon makes the schema; the seed goes in once it has.
    daemon = await startDaemon(join(dir, 'unused.db'), agents.path, undefined, { env: { ...RETENTION, ROUNDTABLE_DATABASE_URL: url } });
    await stopServer(daemon);
    started = performance.now();
    await seedPostgres(url);
    console.log(`PostgreSQL seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    daemon = await startDaemon(join(dir, 'unused.db'), agents.path, undefined, { env: { ...RETENTION, ROUNDTABLE_DATABASE_URL: url } });
    try {
      await measure('PostgreSQL', daemon.port, agents.owner);
    } finally {
      await stopServer(daemon);
    }
  } finally {
    keepAlive.destroy();
    cleanupSync();
  }
}

await main();
