#!/usr/bin/env node
// Bench for the person's console (issue 36): GET /view/needs and GET /view/progress on a SQLite board of
// BENCH_CONSOLE_TASKS tasks (default 100,000) whose history spans 60 days (created, claimed, submitted, approved), with
// some submissions waiting, help requests, lapsed claims and direct messages. p50 and p99 of 100 sequential reads by
// the leader's page session (a leader steers, so every kind of item is computed). Run after `npm run build`:
//   node bench/console.mjs            BENCH_CONSOLE_TASKS=1000000 node bench/console.mjs
import http from 'node:http';
import { join } from 'node:path';
import { cleanupSync, copyDurably, createBoardDb, envInt, makeTempDir, percentiles, startDaemon, stopServer, writeAgents } from './harness.mjs';

const N = envInt('BENCH_CONSOLE_TASKS', 100_000);
const DAYS = 60;
const WORKERS = ['reader', 'claimer', 'lister', 'helper'];

function seed(path, n) {
  const now = Date.now();
  createBoardDb(path, ({ db }) => {
    const task = db.prepare(
      `INSERT INTO tasks (id, title, description, required_skills, status, assignee, created_by, result, created_at, updated_at, claim_id)
       VALUES (?, ?, '', '[]', ?, ?, 'lead', ?, ?, ?, ?)`,
    );
    const setClaim = db.prepare('UPDATE tasks SET claim_id = ? WHERE id = ?');
    const claim = db.prepare('INSERT INTO claims (task_id, agent, claimed_at, lapsed_at) VALUES (?, ?, ?, ?)');
    const row = db.prepare('INSERT INTO activity (task_id, agent, action, from_status, to_status, assignee, claim_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    const message = db.prepare('INSERT INTO messages (task_id, author, kind, text, created_at) VALUES (?, ?, ?, ?, ?)');
    const room = db.prepare('INSERT INTO room_messages (author, recipients, text, created_at) VALUES (?, ?, ?, ?)');
    const receipt = db.prepare('INSERT INTO room_receipts (message_id, agent) VALUES (?, ?)');
    for (let id = 1; id <= n; id++) {
      const r = (id * 2654435761) % 1000;
      const created = now - DAYS * 86_400_000 + Math.floor((id / n) * (DAYS - 1) * 86_400_000);
      const iso = (ms) => new Date(Math.min(ms, now - 1000)).toISOString();
      const worker = WORKERS[id % WORKERS.length];
      const status = r < 900 ? 'done' : r < 930 ? 'submitted' : r < 950 ? 'claimed' : r < 960 ? 'cancelled' : 'open';
      const claimed = created + 3_600_000;
      const finished = claimed + ((r % 48) + 1) * 3_600_000;
      const held = status !== 'open' && status !== 'cancelled';
      task.run(id, `Task ${id}`, status, held ? worker : null, status === 'done' || status === 'submitted' ? 'result' : null, iso(created), iso(finished), null);
      const claimId = held ? Number(claim.run(id, worker, iso(claimed), null).lastInsertRowid) : null;
      if (claimId !== null) setClaim.run(claimId, id);
      row.run(id, 'lead', 'created', null, 'open', null, null, iso(created));
      if (claimId !== null) row.run(id, worker, 'claimed', 'open', 'claimed', worker, claimId, iso(claimed));
      if (status === 'done' || status === 'submitted') row.run(id, worker, 'submitted', 'claimed', 'submitted', worker, claimId, iso(finished - 600_000));
      if (status === 'done') row.run(id, 'lead', 'approved', 'submitted', 'done', worker, claimId, iso(finished));
      if (status === 'cancelled') row.run(id, 'lead', 'cancelled', 'open', 'cancelled', null, null, iso(finished));
      if (status === 'claimed' && r % 3 === 0) message.run(id, worker, 'help_request', 'stuck', iso(claimed + 60_000));
      if (status === 'open' && r % 4 === 0) {
        // A claim that lapsed within the last day.
        const lapsed = Number(claim.run(id, worker, iso(now - 7_200_000), iso(now - 3_600_000)).lastInsertRowid);
        row.run(id, worker, 'claimed', 'open', 'claimed', worker, lapsed, iso(now - 7_200_000));
        row.run(id, 'roundtable', 'lease_expired', 'claimed', 'open', null, lapsed, iso(now - 3_600_000));
      }
      if (id % 1000 === 0) {
        const m = Number(room.run(worker, '["lead"]', `a word ${id}`, iso(finished)).lastInsertRowid);
        receipt.run(m, 'lead');
      }
    }
  });
}

function signIn(port, token) {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ token });
    const req = http.request({ host: '127.0.0.1', port, path: '/session', method: 'POST', headers: { 'content-type': 'application/json', origin: `http://127.0.0.1:${port}` } }, (res) => {
      res.resume();
      const cookie = /rt_session=([^;]+)/.exec(String(res.headers['set-cookie'] ?? ''))?.[1];
      res.on('end', () => (cookie ? resolve(cookie) : reject(new Error(`sign-in: HTTP ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function get(agent, port, path, cookie) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, agent, headers: { cookie: `rt_session=${cookie}` } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(new Error(`${path}: HTTP ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

async function timed(send, iterations = 100) {
  for (let i = 0; i < 10; i++) await send();
  const samples = [];
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    await send();
    samples.push(performance.now() - t);
  }
  return percentiles(samples);
}

if (process.env.BENCH_CONSOLE_SEED_ONLY) {
  // Seeds a board at that path and stops, to study its queries by hand.
  seed(process.env.BENCH_CONSOLE_SEED_ONLY, N);
  process.exit(0);
}
const dir = makeTempDir();
try {
  const { path: agentsPath, agents } = writeAgents(dir);
  const seedPath = join(dir, 'seed.db');
  const t0 = performance.now();
  seed(seedPath, N);
  const seededS = (performance.now() - t0) / 1000;
  const dbPath = join(dir, 'served.db');
  copyDurably(seedPath, dbPath);
  const server = await startDaemon(dbPath, agentsPath);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const cookie = await signIn(server.port, agents.lead.token);
    const needs = JSON.parse(await get(agent, server.port, '/view/needs', cookie));
    const kinds = {};
    for (const item of needs.items) kinds[item.kind] = (kinds[item.kind] ?? 0) + 1;
    console.log(`console bench: ${N.toLocaleString('en-US')} tasks over ${DAYS} days (seeded in ${seededS.toFixed(1)} s); needs count ${needs.count}, listed ${JSON.stringify(kinds)}`);
    for (const [name, path] of [['GET /view/needs', '/view/needs'], ['GET /view/progress (30 days)', '/view/progress'], ['GET /view/progress?days=365', '/view/progress?days=365'], ['GET /view/state (for scale)', '/view/state']]) {
      const p = await timed(() => get(agent, server.port, path, cookie));
      console.log(`${name.padEnd(32)} p50 ${p.p50.toFixed(2)} ms   p99 ${p.p99.toFixed(2)} ms`);
    }
  } finally {
    agent.destroy();
    await stopServer(server);
  }
} finally {
  cleanupSync();
}
