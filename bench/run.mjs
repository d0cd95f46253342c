// Roundtable benchmarks: `npm run bench` (= npm run build && node --expose-gc bench/run.mjs).
//
// Sections (run in this order; name some on the command line to run only those, e.g. `node bench/run.mjs list_tasks`):
//   get_task    get_task calls/s through the daemon's JSON API vs a bare Hono + better-sqlite3 route (bench/bare-server.mjs)
//   claim_task  claim_task calls/s, same comparison, every request claiming a different open task
//   list_tasks  list_tasks latency (p50/p99) at 100,000 tasks, sequential requests through the daemon's API
//   bridge_start  cold start (spawn -> initialize -> tools/list) of the stdio bridge (bundled) vs the same bridge
//                 unbundled (bench/bridge-unbundled.mjs) vs a bare MCP SDK stdio server (bench/bare-stdio-server.mjs)
//                 vs mcp-remote proxying the daemon's /mcp; then the packed sizes of both packages
//   event_streams  create_task p50 with 1,000 live-page event streams open vs with none (bench/live.mjs)
//   bridge_calls  per-call latency of get_task and claim_task through the bridge, straight to /mcp (Streamable HTTP)
//                 and through mcp-remote, then the resident memory of the stdio processes
//                 (MCP client helpers: bench/mcp-clients.mjs)
//   wakeup, idle_waiters  the live layer (bench/live.mjs)
//   lease_renewal  claim -> call -> call on today's daemon vs the daemon before leases, built from git (bench/leases.mjs)
//   lease_sweep    how soon 1,000 lapsed leases on a 100,000-task board are reopened (bench/leases.mjs)
//   ready_set      list_tasks ready and claimable_by_me at 100,000 tasks with 100,000 dependency edges (bench/plans.mjs)
//   unblock_wake   approval of a last blocker -> the waiting worker's answer, beside create_task's (bench/plans.mjs)
//   tool_list      tools/list tokens per role on /mcp, now and before (shared/ built from git) (bench/tool-list.mjs)
// Each section is one async function that starts its own servers on 127.0.0.1 over its own seeded database copy,
// measures, stops them, and adds rows to the shared report; adding a section means adding a function to SECTIONS.
//
// Knobs (environment): BENCH_CONCURRENCY (16), BENCH_WARMUP_MS (1000), BENCH_DURATION_MS (5000),
// BENCH_LIST_TASKS (100000), BENCH_LIST_ITERATIONS (300), BENCH_RATE_LIMIT (100000, the daemon's maximum),
// BENCH_DAEMON_NODE_ARGS / BENCH_BARE_NODE_ARGS / BENCH_BRIDGE_NODE_ARGS (extra node flags for the daemon / the bare
// server / the bridge, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to see where a server spends its time),
// BENCH_COLD_STARTS (15), BENCH_BRIDGE_CALLS (300), BENCH_EVENT_STREAMS (1000), BENCH_EVENT_STREAM_CALLS (200).
import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { benchEventStreams, benchIdleWaiters, benchWakeup } from './live.mjs';
import { benchLeaseRenewal, benchLeaseSweep } from './leases.mjs';
import { benchHookStop } from './hooks.mjs';
import { benchReadySet, benchUnblockWake } from './plans.mjs';
import { benchReservations } from './reservations.mjs';
import { benchToolList } from './tool-list.mjs';
import { benchPgClaims, benchPgWake } from './postgres.mjs';
import { closeSync, copyFileSync, existsSync, fsyncSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { encodeCursor } from '../daemon/dist/board/cursor.js';
import { callTool as mcpCall, childEnv, coldStart, environKeys, httpClient, residentMemory, stdioClient } from './mcp-clients.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DAEMON_BIN = join(ROOT, 'daemon/bin/roundtable.js');
const BARE_SERVER = join(ROOT, 'bench/bare-server.mjs');
const MIGRATIONS_DIR = join(ROOT, 'daemon/migrations');
/** The daemon's numbered migrations (001_board.sql, ...), in order, as daemon/src/store/migrate.ts reads them. */
const MIGRATIONS = readdirSync(MIGRATIONS_DIR)
  .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
  .sort()
  .map((f) => ({ file: f, version: Number(f.slice(0, 3)), sql: readFileSync(join(MIGRATIONS_DIR, f), 'utf8') }));

const envInt = (name, fallback) => {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name}=${value}: expected a positive whole number`);
  return n;
};

const CONFIG = Object.freeze({
  concurrency: envInt('BENCH_CONCURRENCY', 16),
  warmupMs: envInt('BENCH_WARMUP_MS', 1000),
  durationMs: envInt('BENCH_DURATION_MS', 5000),
  listTasks: envInt('BENCH_LIST_TASKS', 100_000),
  listIterations: envInt('BENCH_LIST_ITERATIONS', 300),
  listWarmup: 30,
  // The daemon refuses ROUNDTABLE_RATE_LIMIT_PER_MINUTE above 100,000 (daemon/src/config.ts). Its token bucket starts
  // full, so each section, which starts a fresh daemon, has 100,000 calls plus ~1,667/s of refill per agent.
  rateLimit: envInt('BENCH_RATE_LIMIT', 100_000),
  getTaskTasks: 1000,
  claimTasks: 100_000,
  daemonNodeArgs: (process.env.BENCH_DAEMON_NODE_ARGS ?? '').split(/\s+/).filter(Boolean),
  bareNodeArgs: (process.env.BENCH_BARE_NODE_ARGS ?? '').split(/\s+/).filter(Boolean),
  bridgeNodeArgs: (process.env.BENCH_BRIDGE_NODE_ARGS ?? '').split(/\s+/).filter(Boolean),
  coldStarts: envInt('BENCH_COLD_STARTS', 15),
  bridgeCalls: envInt('BENCH_BRIDGE_CALLS', 300),
  // The daemon's default ROUNDTABLE_MAX_EVENT_STREAMS; a multiple of 8 (streams per agent).
  eventStreams: envInt('BENCH_EVENT_STREAMS', 1000),
  eventStreamCalls: envInt('BENCH_EVENT_STREAM_CALLS', 200),
  bridgeWarmup: 30,
  bridgeBlock: 30, // calls per client per turn: the clients take turns in blocks of this many, in rotating order
  bridgeReadTasks: 200,
  startTimeoutMs: 20_000,
  totalTimeoutMs: 360_000,
});

const TARGETS = Object.freeze({
  minThroughputRatio: 0.5,
  maxListP50Ms: 5,
  maxBridgeStartRatio: 0.6,
  maxBridgeAddedP50Ms: 2,
  maxBridgeRssMb: 80,
  maxWakeP99Ms: 50,
  maxIdleWaitersMb: 50,
  maxStreamsP50Ratio: 2,
});

// ---------------------------------------------------------------------------------------------------------------
// Process and temp-dir hygiene: every child is tracked and killed on exit, error or signal; the temp dir is removed.

const children = new Set();
const tempDirs = new Set();

function cleanupSync() {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}
process.on('exit', cleanupSync);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    process.stderr.write(`bench: ${signal}, stopping\n`);
    process.exit(130);
  });
}

function makeTempDir() {
  const dir = mkdtempSync(join(tmpdir(), 'roundtable-bench-'));
  tempDirs.add(dir);
  return dir;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Spawns a server process and waits for its "listening on http://127.0.0.1:PORT" line. Its environment is baseEnv
 * (the bench's own unless given) plus env.
 */
async function startServer(label, args, env, baseEnv = process.env) {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...baseEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let stderrTail = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    stderrTail = (stderrTail + chunk).slice(-4000);
  });
  let stdout = '';
  child.stdout.setEncoding('utf8');
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`did not start within ${CONFIG.startTimeoutMs} ms`)), CONFIG.startTimeoutMs);
    function fail(error) {
      clearTimeout(timer);
      reject(new Error(`${label}: ${error.message}\n${stderrTail}`));
    }
    child.once('error', fail);
    child.once('exit', (code, signal) => fail(new Error(`exited (${code ?? signal}) before listening`)));
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const match = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(stdout) ?? /listening on http:\/\/127\.0\.0\.1:(\d+)\s/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        child.once('exit', () => children.delete(child));
        resolve(Number(match[1]));
      }
    });
  });
  return { label, child, port, stderrTail: () => stderrTail };
}

/** SIGTERM, then SIGKILL after a grace period. */
async function stopServer(server, graceMs = 10_000) {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Board setup: agents.json with hashed tokens, and databases seeded directly with better-sqlite3.

const sha256 = (text) => createHash('sha256').update(text, 'utf8').digest('hex');

/** One leader and a few workers; returns name -> { token, skills } and writes agents.json. */
function writeAgents(dir) {
  const defs = [
    { name: 'lead', role: 'leader', skills: [] },
    { name: 'reader', role: 'worker', skills: ['typescript'] },
    { name: 'claimer', role: 'worker', skills: ['typescript', 'sql'] },
    { name: 'lister', role: 'worker', skills: ['typescript', 'sql', 'docs'] },
    { name: 'helper', role: 'worker', skills: ['python', 'ops'] },
  ];
  const agents = {};
  const file = { agents: [] };
  for (const d of defs) {
    const token = `rt_${randomBytes(32).toString('base64url')}`;
    agents[d.name] = { ...d, token };
    file.agents.push({ name: d.name, role: d.role, skills: d.skills, token_sha256: sha256(token) });
  }
  const path = join(dir, 'agents.json');
  writeFileSync(path, JSON.stringify(file, null, 2));
  return { path, agents };
}

/** A deterministic PRNG (mulberry32), so every run seeds the same board. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = 'add fix refactor migrate document test review deploy parser cache index schema api client worker queue retry timeout config logging metrics auth token bridge daemon board report'.split(' ');
const SKILL_POOL = ['typescript', 'python', 'sql', 'docs', 'go', 'rust', 'design', 'ops'];

function words(rand, n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(WORDS[Math.floor(rand() * WORDS.length)]);
  return out.join(' ');
}

/**
 * Creates a board database exactly as the daemon's migrate() would (schema_version, then every migration, each in
 * one transaction with its schema_version row), so the daemon starts without migrating; then calls fill(writer)
 * inside one transaction. The file is closed (WAL checkpointed) before it is copied or served.
 */
function createBoardDb(path, fill) {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF'); // seeding only; the servers open it with synchronous = FULL
  db.pragma('foreign_keys = ON');
  db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
  for (const migration of MIGRATIONS) {
    db.transaction(() => {
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)').run(migration.version, new Date().toISOString());
    }).immediate();
  }
  const s = {
    task: db.prepare(
      `INSERT INTO tasks (id, title, description, required_skills, status, assignee, created_by, result, created_at, updated_at)
       VALUES (@id, @title, @description, @required_skills, @status, @assignee, @created_by, @result, @created_at, @updated_at)`,
    ),
    skill: db.prepare('INSERT INTO task_skills (task_id, skill) VALUES (?, ?)'),
    activity: db.prepare(
      `INSERT INTO activity (task_id, agent, action, from_status, to_status, assignee, note, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    message: db.prepare('INSERT INTO messages (task_id, author, kind, text, created_at) VALUES (?, ?, ?, ?, ?)'),
    review: db.prepare('INSERT INTO reviews (task_id, reviewer, verdict, note, created_at) VALUES (?, ?, ?, ?, ?)'),
  };
  const writer = {
    /** A task with the activity (and review) rows its status implies, as the daemon would have written them. */
    task(t) {
      const skills = t.skills ?? [];
      const at = t.createdAt;
      const later = t.updatedAt ?? at;
      s.task.run({
        id: t.id,
        title: t.title,
        description: t.description ?? '',
        required_skills: JSON.stringify(skills),
        status: t.status,
        assignee: t.assignee ?? null,
        created_by: 'lead',
        result: t.result ?? null,
        created_at: at,
        updated_at: later,
      });
      for (const skill of skills) s.skill.run(t.id, skill);
      // The creation row records a reservation; later rows the worker who held the task.
      const reserved = t.status === 'open' ? (t.assignee ?? null) : null;
      s.activity.run(t.id, 'lead', 'created', null, 'open', reserved, null, at);
      const worker = t.assignee;
      if (t.status === 'cancelled') {
        s.activity.run(t.id, 'lead', 'cancelled', 'open', 'cancelled', null, 'no longer needed', later);
        return;
      }
      if (t.status === 'open') return;
      s.activity.run(t.id, worker, 'claimed', 'open', 'claimed', worker, null, later);
      if (t.status === 'claimed') return;
      s.activity.run(t.id, worker, 'submitted', 'claimed', 'submitted', worker, t.result ?? null, later);
      if (t.status === 'submitted') return;
      s.review.run(t.id, 'lead', 'approve', 'looks good', later);
      s.activity.run(t.id, 'lead', 'approved', 'submitted', 'done', worker, 'looks good', later);
    },
    message(taskId, author, kind, text, at) {
      s.message.run(taskId, author, kind, text, at);
    },
  };
  db.transaction(() => fill(writer))();
  db.close();
  for (const suffix of ['-wal', '-shm']) {
    if (existsSync(path + suffix)) throw new Error(`${path}${suffix} left behind after close`);
  }
}

/** Copies a file and fsyncs the copy, so its dirty pages are not flushed during a measurement. */
function copyDurably(from, to) {
  copyFileSync(from, to);
  const fd = openSync(to, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * How many synchronous commits per second the temp dir's disk takes (one-row autocommit INSERTs, WAL, synchronous=FULL):
 * every tool call here commits at least once, so this bounds the throughput of both servers.
 */
function probeDiskCommits(ms = 1000) {
  const dir = makeTempDir();
  const db = new Database(join(dir, 'probe.db'));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE t (x INTEGER)');
    const insert = db.prepare('INSERT INTO t (x) VALUES (?)');
    const start = performance.now();
    let n = 0;
    while (performance.now() - start < ms) insert.run(n++);
    return n / ((performance.now() - start) / 1000);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
    tempDirs.delete(dir);
  }
}

const isoAt = (base, offsetMs) => new Date(base + offsetMs).toISOString();

/** get_task data: done tasks, each with 4 messages, one review and 4 activity rows. */
function seedGetTaskBoard(path) {
  const rand = prng(1);
  const base = Date.parse('2025-01-01T00:00:00Z');
  createBoardDb(path, (w) => {
    for (let id = 1; id <= CONFIG.getTaskTasks; id++) {
      const at = isoAt(base, id * 60_000);
      w.task({
        id,
        title: `Task ${id}: ${words(rand, 5)}`,
        description: words(rand, 40),
        skills: ['typescript'],
        status: 'done',
        assignee: 'reader',
        result: words(rand, 20),
        createdAt: at,
        updatedAt: isoAt(base, id * 60_000 + 3_600_000),
      });
      const kinds = ['progress', 'help_request', 'reply', 'progress'];
      for (const [i, kind] of kinds.entries()) {
        w.message(id, kind === 'reply' ? 'lead' : 'reader', kind, words(rand, 30), isoAt(base, id * 60_000 + (i + 1) * 600_000));
      }
    }
  });
}

/** claim_task data: open tasks needing a skill the claimer has. */
function seedClaimBoard(path) {
  const rand = prng(2);
  const base = Date.parse('2025-01-01T00:00:00Z');
  createBoardDb(path, (w) => {
    for (let id = 1; id <= CONFIG.claimTasks; id++) {
      w.task({
        id,
        title: `Task ${id}: ${words(rand, 5)}`,
        description: words(rand, 40),
        skills: ['typescript'],
        status: 'open',
        createdAt: isoAt(base, id * 1000),
      });
    }
  });
}

/**
 * A board that has been in use for a while: old tasks are mostly done or cancelled with a few stale open ones,
 * the newest 10% are open, claimed or submitted. 0-2 required skills each; a tenth of open tasks are reserved.
 */
function seedListBoard(path, n = CONFIG.listTasks) {
  const rand = prng(3);
  const base = Date.parse('2024-01-01T00:00:00Z');
  const workers = ['lister', 'helper', 'claimer', 'reader'];
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const counts = { open: 0, claimed: 0, submitted: 0, done: 0, cancelled: 0 };
  createBoardDb(path, (w) => {
    for (let id = 1; id <= n; id++) {
      const r = rand();
      let status;
      if (id <= n * 0.9) status = r < 0.88 ? 'done' : r < 0.98 ? 'cancelled' : 'open';
      else status = r < 0.5 ? 'open' : r < 0.75 ? 'claimed' : r < 0.9 ? 'submitted' : 'done';
      counts[status]++;
      const k = rand();
      const skillCount = k < 0.3 ? 0 : k < 0.8 ? 1 : 2;
      const skills = [...new Set(Array.from({ length: skillCount }, () => pick(SKILL_POOL)))];
      let assignee = null;
      if (status === 'open') assignee = rand() < 0.1 ? pick(workers) : null;
      else if (status !== 'cancelled') assignee = pick(workers);
      const created = id * 300_000; // one task every 5 minutes
      w.task({
        id,
        title: `Task ${id}: ${words(rand, 6)}`,
        description: words(rand, 40),
        skills,
        status,
        assignee,
        result: status === 'submitted' || status === 'done' ? words(rand, 20) : null,
        createdAt: isoAt(base, created),
        updatedAt: isoAt(base, created + (status === 'open' ? 0 : 7_200_000)),
      });
    }
  });
  return counts;
}

// ---------------------------------------------------------------------------------------------------------------
// Servers.

/** options.bin: another daemon build (the lease bench's baseline); options.env: more settings. */
function startDaemon(dbPath, agentsPath, baseEnv, options = {}) {
  return startServer(
    'daemon',
    [...CONFIG.daemonNodeArgs, options.bin ?? DAEMON_BIN, 'run'],
    {
      ...options.env,
      ROUNDTABLE_HOST: '127.0.0.1',
      ROUNDTABLE_PORT: '0',
      ROUNDTABLE_DB_PATH: dbPath,
      ROUNDTABLE_AGENTS_CONFIG: agentsPath,
      ROUNDTABLE_RATE_LIMIT_PER_MINUTE: String(CONFIG.rateLimit),
      ROUNDTABLE_LOG_LEVEL: 'warn',
    },
    baseEnv,
  );
}

function startBare(dbPath, agentName) {
  return startServer('bare', [...CONFIG.bareNodeArgs, BARE_SERVER], { BARE_DB_PATH: dbPath, BARE_AGENT: agentName });
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP client and load generator (node:http, keep-alive).

function newAgent(sockets) {
  return new http.Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets });
}

/** One POST; resolves { status, body } (body only if keepBody), or { status: 0, error } on a network error. */
function post(agent, port, path, token, body, keepBody = false) {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...(token && { authorization: `Bearer ${token}` }),
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => {
          if (keepBody) chunks.push(chunk);
        });
        res.on('end', () => resolve({ status: res.statusCode, body: keepBody ? Buffer.concat(chunks).toString('utf8') : undefined }));
        res.on('error', (error) => resolve({ status: 0, error }));
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error('request timed out after 10 s')));
    req.on('error', (error) => resolve({ status: 0, error }));
    req.end(body);
  });
}

/** Calls a tool once and returns the parsed JSON output; throws on a non-2xx answer. */
async function callTool(agent, port, token, tool, args) {
  const res = await post(agent, port, `/api/v1/tools/${tool}`, token, JSON.stringify(args), true);
  if (res.status < 200 || res.status > 299) throw new Error(`${tool} ${JSON.stringify(args)}: HTTP ${res.status} ${res.error ?? res.body}`);
  return JSON.parse(res.body);
}

/**
 * A closed-loop load generator for one server: `concurrency` requests always in flight, over its own keep-alive
 * connections. run(ms, measured) drives it for ms; only requests that complete inside a measured run count
 * (2xx as ok, anything else as an error), and throughput is those ok completions over the measured time.
 * body(seq) gives the JSON body of request number seq, counted across all runs.
 */
function createLoad({ port, path, token, body, concurrency = CONFIG.concurrency }) {
  const agent = newAgent(concurrency);
  const latencies = [];
  const statuses = {};
  let measuredMs = 0;
  let ok = 0;
  let errors = 0;
  let totalOk = 0;
  let firstError;
  let seq = 0;
  return {
    async run(durationMs, measured) {
      globalThis.gc?.();
      const start = performance.now();
      const end = start + durationMs;
      const worker = async () => {
        for (;;) {
          const sent = performance.now();
          if (sent >= end) return;
          const res = await post(agent, port, path, token, body(seq++));
          const done = performance.now();
          const good = res.status >= 200 && res.status <= 299;
          if (good) totalOk++;
          if (measured && done <= end) {
            if (good) {
              ok++;
              latencies.push(done - sent);
            } else {
              errors++;
              statuses[res.status] = (statuses[res.status] ?? 0) + 1;
              firstError ??= res.error ? String(res.error.message) : `HTTP ${res.status}`;
            }
          }
          if (res.status === 0) await sleep(10); // a dead server must not turn this into a busy loop
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      if (measured) measuredMs += durationMs;
    },
    result() {
      return { rps: ok / (measuredMs / 1000), ok, errors, statuses, firstError, totalOk, sent: seq, ...percentiles(latencies) };
    },
    close() {
      agent.destroy();
    },
  };
}

function percentiles(samples) {
  if (samples.length === 0) return { p50: NaN, p99: NaN, mean: NaN };
  const sorted = Float64Array.from(samples).sort();
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { p50: at(0.5), p99: at(0.99), mean: samples.reduce((a, b) => a + b, 0) / samples.length };
}

// ---------------------------------------------------------------------------------------------------------------
// The report: named tables filled by the sections, plus the targets, printed at the end.

const report = {
  tables: new Map(),
  targets: [],
  notes: [],
  table(name, title, headers) {
    if (!this.tables.has(name)) this.tables.set(name, { title, headers, rows: [] });
    return this.tables.get(name);
  },
  row(name, cells) {
    this.tables.get(name).rows.push(cells);
  },
  target(name, measured, holds) {
    this.targets.push([name, measured, holds === null ? 'n/a' : holds ? 'HOLDS' : 'MISSED']);
  },
  note(text) {
    this.notes.push(text);
  },
};

/** Prints a plain-text table; numeric-looking cells are right-aligned. */
function printTable(title, headers, rows) {
  const cells = [headers, ...rows].map((r) => r.map((c) => String(c)));
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const numeric = (s) => /^[-+]?[\d.,]+( ?[a-z%/]+)?$|^[\d.]+ \/ [\d.]+$|^[\d.]+x$/i.test(s);
  const line = (r) => `| ${r.map((c, i) => (numeric(c) && i > 0 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ')} |`;
  const out = [`\n${title}`, line(cells[0]), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.slice(1).map(line)];
  process.stdout.write(`${out.join('\n')}\n`);
}

const fmt = {
  rps: (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-'),
  ms: (n) => (Number.isFinite(n) ? n.toFixed(2) : '-'),
  ratio: (n) => (Number.isFinite(n) ? `${n.toFixed(2)}x` : '-'),
  errors: (r) => (r.errors === 0 ? '0' : `${r.errors} (${Object.entries(r.statuses).map(([s, n]) => `${s === '0' ? 'net' : s}:${n}`).join(' ')})`),
};

// ---------------------------------------------------------------------------------------------------------------
// Sections.

const THROUGHPUT = 'throughput';
function throughputTable() {
  return report.table(
    THROUGHPUT,
    `Throughput: ${CONFIG.concurrency} requests in flight, ${CONFIG.warmupMs} ms warm-up then ${CONFIG.durationMs} ms measured per server, in alternating ${SLICE_MS} ms slices (HTTP/1.1 keep-alive, 127.0.0.1)`,
    ['tool', 'daemon calls/s', 'bare calls/s', 'daemon/bare', 'daemon p50 / p99 ms', 'bare p50 / p99 ms', 'errors daemon', 'errors bare'],
  );
}

/**
 * Measures one tool through the daemon and through the bare server, each on its own copy of the same seeded
 * database, with the same load: both servers run side by side and are driven in turn (1 s warm-up each, then
 * alternating slices of SLICE_MS, ABBA order, until each has had durationMs), so a slow spell of the disk or the
 * VM lands on both rather than on whichever happened to run then. `request(seq)` gives the body of request seq;
 * `probe` is the arguments of one call made to each server first, to check they answer alike.
 */
const SLICE_MS = 500;
async function compareThroughput({ tool, seed, agentName, probe, request, check }) {
  throughputTable();
  const dir = makeTempDir();
  const { path: agentsPath, agents } = writeAgents(dir);
  const seedPath = join(dir, 'seed.db');
  seed(seedPath);
  const kinds = ['daemon', 'bare'];
  const dbPath = (kind) => join(dir, `${kind}.db`);
  // Both copies are made and flushed before either server runs, so neither measurement pays for the other's writeback.
  for (const kind of kinds) copyDurably(seedPath, dbPath(kind));
  const servers = {};
  const loads = {};
  try {
    servers.daemon = await startDaemon(dbPath('daemon'), agentsPath);
    servers.bare = await startBare(dbPath('bare'), agentName);
    // One identical call to each first: both must succeed and answer with the same JSON shape and size.
    const probes = {};
    for (const kind of kinds) {
      const agent = newAgent(1);
      try {
        const token = kind === 'daemon' ? agents[agentName].token : undefined;
        probes[kind] = await post(agent, servers[kind].port, `/api/v1/tools/${tool}`, token, JSON.stringify(probe), true);
      } finally {
        agent.destroy();
      }
      if (probes[kind].status !== 200) throw new Error(`${tool} ${JSON.stringify(probe)} via ${kind}: HTTP ${probes[kind].status} ${probes[kind].error ?? probes[kind].body}`);
    }
    const shape = (text) => JSON.stringify(Object.keys(JSON.parse(text)));
    if (shape(probes.daemon.body) !== shape(probes.bare.body) || Math.abs(probes.daemon.body.length - probes.bare.body.length) > 0.02 * probes.daemon.body.length) {
      report.note(`${tool}: the daemon and bare responses differ (${probes.daemon.body.length} vs ${probes.bare.body.length} bytes, keys ${shape(probes.daemon.body)} vs ${shape(probes.bare.body)})`);
    }
    for (const kind of kinds) {
      const token = kind === 'daemon' ? agents[agentName].token : undefined;
      loads[kind] = createLoad({ port: servers[kind].port, path: `/api/v1/tools/${tool}`, token, body: request });
      await loads[kind].run(CONFIG.warmupMs, false);
    }
    const slices = Math.max(1, Math.round(CONFIG.durationMs / SLICE_MS));
    for (let i = 0; i < slices; i++) {
      const order = i % 2 === 0 ? kinds : [...kinds].reverse();
      for (const kind of order) await loads[kind].run(CONFIG.durationMs / slices, true);
    }
  } finally {
    for (const load of Object.values(loads)) load.close();
    await Promise.all(Object.values(servers).map((server) => stopServer(server)));
  }
  const results = {};
  for (const kind of kinds) {
    const server = servers[kind];
    results[kind] = loads[kind].result();
    if (results[kind].errors > 0) report.note(`${tool} via ${kind}: ${results[kind].errors} errors, first: ${results[kind].firstError}`);
    if (server.child.exitCode !== 0) report.note(`${kind} exited with ${server.child.exitCode ?? server.child.signalCode}: ${server.stderrTail().slice(-500)}`);
    check?.(kind, dbPath(kind), results[kind]);
  }
  const { daemon, bare } = results;
  const ratio = daemon.rps / bare.rps;
  report.row(THROUGHPUT, [
    tool,
    fmt.rps(daemon.rps),
    fmt.rps(bare.rps),
    fmt.ratio(ratio),
    `${fmt.ms(daemon.p50)} / ${fmt.ms(daemon.p99)}`,
    `${fmt.ms(bare.p50)} / ${fmt.ms(bare.p99)}`,
    fmt.errors(daemon),
    fmt.errors(bare),
  ]);
  report.target(`${tool}: daemon >= ${TARGETS.minThroughputRatio}x bare throughput`, `${fmt.ratio(ratio)} (${fmt.rps(daemon.rps)} vs ${fmt.rps(bare.rps)} calls/s)`, ratio >= TARGETS.minThroughputRatio);
}

async function benchGetTask() {
  const n = CONFIG.getTaskTasks;
  await compareThroughput({
    tool: 'get_task',
    seed: seedGetTaskBoard,
    agentName: 'reader',
    probe: { task_id: 1 },
    // Cycle over the seeded tasks, so each request reads a task with 4 messages, 1 review and 4 activity rows.
    request: (seq) => `{"task_id":${(seq % n) + 1}}`,
    check: (kind, dbPath, result) => {
      const db = new Database(dbPath, { readonly: true });
      const audits = db.prepare("SELECT COUNT(*) FROM audit_log WHERE tool = 'get_task'").pluck().get();
      db.close();
      if (audits < result.totalOk) report.note(`get_task via ${kind}: ${audits} audit rows for ${result.totalOk} successful calls`);
    },
  });
}

async function benchClaimTask() {
  await compareThroughput({
    tool: 'claim_task',
    seed: seedClaimBoard,
    agentName: 'claimer',
    probe: { task_id: CONFIG.claimTasks }, // the last seeded task, which the load below never reaches
    // Every request claims a different open task; all must succeed (a 404 here means the seed ran out).
    request: (seq) => `{"task_id":${seq + 1}}`,
    check: (kind, dbPath, result) => {
      const db = new Database(dbPath, { readonly: true });
      const claimed = db.prepare("SELECT COUNT(*) FROM tasks WHERE status = 'claimed'").pluck().get();
      const rows = db.prepare("SELECT COUNT(*) FROM activity WHERE action = 'claimed'").pluck().get();
      db.close();
      const expected = result.totalOk + 1; // + the probe
      if (claimed !== expected || rows !== expected) {
        report.note(`claim_task via ${kind}: ${expected} successful claims but ${claimed} claimed tasks, ${rows} claim activity rows`);
      }
      if (result.sent >= CONFIG.claimTasks) report.note(`claim_task via ${kind}: ran out of seeded open tasks (${result.sent} requests)`);
    },
  });
}

async function benchListTasks() {
  const dir = makeTempDir();
  const { path: agentsPath, agents } = writeAgents(dir);
  const dbPath = join(dir, 'list.db');
  const t0 = performance.now();
  const counts = seedListBoard(dbPath);
  copyDurably(dbPath, join(dir, 'list-served.db')); // flushed before measuring, like the throughput copies
  rmSync(dbPath);
  const seedMs = performance.now() - t0;
  const deepId = Math.floor(CONFIG.listTasks * 0.9);
  const queries = [
    { label: 'no filter, first page', args: {} },
    { label: 'status=open, first page', args: { status: 'open' } },
    { label: 'claimable_by_me (worker, 3 skills), first page', args: { claimable_by_me: true } },
    { label: `no filter, deep page (cursor after id ${deepId})`, args: { cursor: encodeCursor(deepId) } },
    { label: `status=open, deep page (cursor after id ${deepId})`, args: { status: 'open', cursor: encodeCursor(deepId) } },
    { label: 'status=done, limit=100, first page', args: { status: 'done', limit: 100 } },
  ];
  report.table(
    'list_tasks',
    `list_tasks at ${CONFIG.listTasks.toLocaleString('en-US')} tasks (${Object.entries(counts).map(([s, n]) => `${s} ${n}`).join(', ')}; seeded in ${(seedMs / 1000).toFixed(1)} s), ` +
      `sequential through the daemon's API, ${CONFIG.listWarmup} warm-up + ${CONFIG.listIterations} measured calls each`,
    ['query (default limit 50 unless given)', 'tasks returned', 'p50 ms', 'p99 ms', 'mean ms'],
  );
  const server = await startDaemon(join(dir, 'list-served.db'), agentsPath);
  const agent = newAgent(1);
  let worstP50 = 0;
  try {
    const token = agents.lister.token;
    for (const q of queries) {
      const body = JSON.stringify(q.args);
      const first = await callTool(agent, server.port, token, 'list_tasks', q.args);
      if (q.args.claimable_by_me && first.tasks.some((t) => t.status !== 'open')) throw new Error('claimable_by_me returned a task that is not open');
      globalThis.gc?.();
      const samples = [];
      for (let i = 0; i < CONFIG.listWarmup + CONFIG.listIterations; i++) {
        const t = performance.now();
        const res = await post(agent, server.port, '/api/v1/tools/list_tasks', token, body);
        const ms = performance.now() - t;
        if (res.status !== 200) throw new Error(`list_tasks ${body}: HTTP ${res.status} ${res.error ?? ''}`);
        if (i >= CONFIG.listWarmup) samples.push(ms);
      }
      const p = percentiles(samples);
      worstP50 = Math.max(worstP50, p.p50);
      report.row('list_tasks', [q.label, first.tasks.length, fmt.ms(p.p50), fmt.ms(p.p99), fmt.ms(p.mean)]);
    }
  } finally {
    agent.destroy();
    await stopServer(server);
  }
  report.target(`list_tasks p50 < ${TARGETS.maxListP50Ms} ms at ${CONFIG.listTasks.toLocaleString('en-US')} tasks (every query)`, `worst p50 ${fmt.ms(worstP50)} ms`, worstP50 < TARGETS.maxListP50Ms);
}

// ---------------------------------------------------------------------------------------------------------------
// Bridge sections: the stdio bridge (bridge/bin/roundtable-bridge.js) against a bare MCP SDK stdio server
// (bench/bare-stdio-server.mjs), the daemon's own /mcp (MCP SDK StreamableHTTPClientTransport) and mcp-remote
// (an exact root devDependency) proxying /mcp over stdio. Every child gets only PATH, HOME (a temp dir) and
// ROUNDTABLE_TOKEN; the daemon gets PATH and HOME plus its ROUNDTABLE_* settings.

const BRIDGE_BIN = join(ROOT, 'bridge/bin/roundtable-bridge.js');

// The bridge sets its own V8 heap flags when its bin starts; BENCH_BRIDGE_NODE_ARGS adds node flags on top.
const BRIDGE_FLAGS = CONFIG.bridgeNodeArgs;
const BARE_STDIO_SERVER = join(ROOT, 'bench/bare-stdio-server.mjs');
const UNBUNDLED_BRIDGE = join(ROOT, 'bench/bridge-unbundled.mjs');

/** mcp-remote's proxy bin and version from node_modules, or { error } if it is not installed. */
function findMcpRemote() {
  try {
    const dir = join(ROOT, 'node_modules/mcp-remote');
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const bin = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin?.['mcp-remote'];
    if (!bin) return { error: 'node_modules/mcp-remote/package.json names no mcp-remote bin' };
    return { bin: join(dir, bin), version: pkg.version };
  } catch (error) {
    return { error: `mcp-remote is not installed (${error.code ?? error.message}); run npm install` };
  }
}

/** Done tasks 1..bridgeReadTasks (4 messages, 1 review, 4 activity rows each) for get_task, then open tasks to claim. */
function seedBridgeBoard(path, openTasks) {
  const rand = prng(4);
  const base = Date.parse('2025-01-01T00:00:00Z');
  createBoardDb(path, (w) => {
    for (let id = 1; id <= CONFIG.bridgeReadTasks + openTasks; id++) {
      const at = isoAt(base, id * 60_000);
      const done = id <= CONFIG.bridgeReadTasks;
      w.task({
        id,
        title: `Task ${id}: ${words(rand, 5)}`,
        description: words(rand, 40),
        skills: ['typescript'],
        status: done ? 'done' : 'open',
        assignee: done ? 'reader' : null,
        result: done ? words(rand, 20) : null,
        createdAt: at,
        updatedAt: done ? isoAt(base, id * 60_000 + 3_600_000) : at,
      });
      if (!done) continue;
      const kinds = ['progress', 'help_request', 'reply', 'progress'];
      for (const [i, kind] of kinds.entries()) {
        w.message(id, kind === 'reply' ? 'lead' : 'reader', kind, words(rand, 30), isoAt(base, id * 60_000 + (i + 1) * 600_000));
      }
    }
  });
}

/**
 * A seeded board served by a fresh daemon, a temp HOME for the children, and how to spawn each stdio server:
 * { name, label, args, env } for the bridge, the bare SDK server and (if installed) mcp-remote. Runs fn, then stops
 * the daemon and checks it exited cleanly.
 */
async function withBridgeBoard(openTasks, fn) {
  const dir = makeTempDir();
  const home = join(dir, 'home');
  mkdirSync(home);
  const { path: agentsPath, agents } = writeAgents(dir);
  const dbPath = join(dir, 'bridge.db');
  seedBridgeBoard(join(dir, 'seed.db'), openTasks);
  copyDurably(join(dir, 'seed.db'), dbPath);
  const daemon = await startDaemon(dbPath, agentsPath, { PATH: process.env.PATH, HOME: home });
  const token = agents.claimer.token;
  const env = childEnv(home, { ROUNDTABLE_TOKEN: token });
  const remote = findMcpRemote();
  const kinds = [
    { name: 'bridge', label: 'roundtable-bridge (stdio -> JSON API)', args: [...BRIDGE_FLAGS, BRIDGE_BIN, '--url', `http://127.0.0.1:${daemon.port}`], env },
    { name: 'bare', label: 'bare MCP SDK stdio server (1 tool, no network)', args: [BARE_STDIO_SERVER], env },
  ];
  if (remote.error) report.note(`mcp-remote column skipped: ${remote.error}`);
  else {
    // The header's ${ROUNDTABLE_TOKEN} is expanded by mcp-remote from its environment, so the token is not in argv.
    // http:// to 127.0.0.1 needs no --allow-http; --silent drops its per-message stderr logging (its fastest setting).
    kinds.push({
      name: 'mcp-remote',
      label: `mcp-remote ${remote.version} (stdio -> /mcp)`,
      args: [remote.bin, `http://127.0.0.1:${daemon.port}/mcp`, '--header', 'Authorization: Bearer ${ROUNDTABLE_TOKEN}', '--transport', 'http-only', '--silent'],
      env,
    });
  }
  try {
    return await fn({ dir, home, dbPath, daemon, token, kinds: Object.fromEntries(kinds.map((k) => [k.name, k])) });
  } finally {
    await stopServer(daemon);
    if (daemon.child.exitCode !== 0) report.note(`daemon (bridge sections) exited with ${daemon.child.exitCode ?? daemon.child.signalCode}: ${daemon.stderrTail().slice(-500)}`);
  }
}

const trackChild = (child) => {
  children.add(child);
  child.once('exit', () => children.delete(child));
};

/** Tarball and unpacked size of the bridge and daemon packages, as `npm pack --dry-run` reports them. */
function packedSizes() {
  return ['bridge', 'daemon']
    .map((w) => {
      const [pkg] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '-w', w], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
      return `${pkg.name} ${(pkg.size / 1024).toFixed(0)} KB packed, ${(pkg.unpackedSize / 1024).toFixed(0)} KB unpacked, ${pkg.files.length} files`;
    })
    .join('; ');
}

/** The i-th rotation of a list: turn 0 is A B C, turn 1 B C A, turn 2 C A B, ... */
const rotation = (list, i) => list.map((_, j) => list[(i + j) % list.length]);

async function benchBridgeStart() {
  await withBridgeBoard(0, async ({ kinds: shared }) => {
    // The same bridge from tsc's unbundled output, to show what the bundle (scripts/bundle.mjs) saves.
    const unbundled = {
      name: 'bridge-unbundled',
      label: 'roundtable-bridge unbundled (bridge/dist, tsc output)',
      args: shared.bridge.args.map((a) => (a === BRIDGE_BIN ? UNBUNDLED_BRIDGE : a)),
      env: shared.bridge.env,
    };
    const kinds = { bridge: shared.bridge, 'bridge-unbundled': unbundled, ...shared };
    const names = Object.keys(kinds);
    const samples = Object.fromEntries(names.map((n) => [n, { init: [], list: [], tools: new Set() }]));
    // One unmeasured start each (page cache, V8 code cache), then N measured starts each, taking turns.
    for (const name of names) await coldStart({ ...kinds[name], track: trackChild });
    for (let i = 0; i < CONFIG.coldStarts; i++) {
      for (const name of rotation(names, i)) {
        globalThis.gc?.();
        const r = await coldStart({ ...kinds[name], track: trackChild });
        samples[name].init.push(r.initMs);
        samples[name].list.push(r.listMs);
        samples[name].tools.add(r.tools);
      }
    }
    const p = Object.fromEntries(names.map((n) => [n, { init: percentiles(samples[n].init), list: percentiles(samples[n].list) }]));
    const max = (xs) => Math.max(...xs);
    const min = (xs) => Math.min(...xs);
    report.table(
      'bridge_start',
      `Cold start: spawn -> initialize -> tools/list answered, raw JSON-RPC over stdio, 1 unmeasured + ${CONFIG.coldStarts} measured starts each, taking turns`,
      ['server', 'tools', 'initialize p50 ms', 'tools/list p50 ms', 'min ms', 'max ms', 'p50 vs bare'],
    );
    for (const name of names) {
      report.row('bridge_start', [
        kinds[name].label,
        [...samples[name].tools].join('/'),
        fmt.ms(p[name].init.p50),
        fmt.ms(p[name].list.p50),
        fmt.ms(min(samples[name].list)),
        fmt.ms(max(samples[name].list)),
        fmt.ratio(p[name].list.p50 / p.bare.list.p50),
      ]);
    }
    const ratio = p.bridge.list.p50 / p.bare.list.p50;
    report.target(
      `bridge cold start <= ${TARGETS.maxBridgeStartRatio}x bare SDK stdio server (p50 to tools/list)`,
      `${fmt.ratio(ratio)} (${fmt.ms(p.bridge.list.p50)} vs ${fmt.ms(p.bare.list.p50)} ms)`,
      ratio <= TARGETS.maxBridgeStartRatio,
    );
    report.note(`bridge_start: the bundled bridge reached tools/list in ${fmt.ratio(p.bridge.list.p50 / p['bridge-unbundled'].list.p50)} the time of the unbundled one (p50 ${fmt.ms(p.bridge.list.p50)} vs ${fmt.ms(p['bridge-unbundled'].list.p50)} ms)`);
    report.note(`packed sizes (npm pack --dry-run): ${packedSizes()}`);
    if (p['mcp-remote']) {
      report.target(
        'bridge cold start faster than mcp-remote (p50 to tools/list)',
        `${fmt.ms(p.bridge.list.p50)} vs ${fmt.ms(p['mcp-remote'].list.p50)} ms`,
        p.bridge.list.p50 < p['mcp-remote'].list.p50,
      );
    } else report.target('bridge cold start faster than mcp-remote (p50 to tools/list)', 'mcp-remote not run', null);
  });
}

async function benchBridgeCalls() {
  const perClient = CONFIG.bridgeWarmup + CONFIG.bridgeCalls;
  // Open tasks for claim_task: one per call on each of the four paths (bridge, direct, mcp-remote, JSON API).
  await withBridgeBoard(4 * perClient, async ({ daemon, token, kinds, dbPath }) => {
    const clients = {};
    const closers = [];
    const labels = {
      bridge: 'bridge (stdio -> JSON API)',
      direct: 'direct (Streamable HTTP /mcp)',
      'mcp-remote': 'mcp-remote (stdio -> /mcp)',
      api: 'reference: JSON API, plain HTTP POST, no MCP',
      bare: 'reference: bare SDK stdio server, echo tool, no daemon',
    };
    try {
      clients.bridge = await stdioClient({ ...kinds.bridge, track: trackChild });
      clients.direct = await httpClient({ url: `http://127.0.0.1:${daemon.port}/mcp`, token });
      if (kinds['mcp-remote']) clients['mcp-remote'] = await stdioClient({ ...kinds['mcp-remote'], track: trackChild });
      clients.bare = await stdioClient({ ...kinds.bare, track: trackChild });
      const paths = ['bridge', 'direct', 'mcp-remote'].filter((n) => clients[n]);
      const memoryAtStart = {};
      for (const n of ['bridge', 'mcp-remote', 'bare']) {
        if (!clients[n]) continue;
        await clients[n].client.listTools();
        memoryAtStart[n] = residentMemory(clients[n].pid);
      }

      // The same tools and the same get_task answer on every path; children see only PATH, HOME, ROUNDTABLE_TOKEN.
      const toolNames = {};
      for (const n of paths) toolNames[n] = (await clients[n].client.listTools()).tools.map((t) => t.name).sort().join(',');
      for (const n of paths) if (toolNames[n] !== toolNames.direct) report.note(`bridge_calls: ${n} lists other tools than /mcp: ${toolNames[n]}`);
      const answers = {};
      for (const n of paths) answers[n] = JSON.stringify(await mcpCall(clients[n].client, 'get_task', { task_id: 1 }));
      for (const n of paths) if (answers[n] !== answers.direct) report.note(`bridge_calls: get_task via ${n} differs from /mcp (${answers[n].length} vs ${answers.direct.length} chars)`);
      for (const n of ['bridge', 'mcp-remote', 'bare']) {
        if (!clients[n]) continue;
        const keys = environKeys(clients[n].pid).join(' ');
        if (keys !== 'HOME PATH ROUNDTABLE_TOKEN') report.note(`bridge_calls: ${n} was started with environment ${keys}`);
      }

      // Sequential calls, one client at a time, in turns of bridgeBlock calls in rotating order. 'api' is the daemon's
      // JSON API called with the bench's own node:http client (no MCP): the request the bridge makes for each call.
      const apiAgent = newAgent(1);
      closers.push(() => apiAgent.destroy());
      const call = async (n, tool, args) => {
        if (n === 'api') {
          const res = await post(apiAgent, daemon.port, `/api/v1/tools/${tool}`, token, JSON.stringify(args), true);
          if (res.status !== 200) throw new Error(`${tool} via the JSON API: HTTP ${res.status} ${res.error ?? res.body}`);
          return JSON.parse(res.body);
        }
        return mcpCall(clients[n].client, tool, args);
      };
      let nextClaim = CONFIG.bridgeReadTasks + 1;
      let claims = 0;
      const ops = [
        {
          tool: 'get_task',
          paths: [...paths, 'api', 'bare'],
          call: (n, i) => (n === 'bare' ? call(n, 'echo', { text: 'x' }) : call(n, 'get_task', { task_id: (i % CONFIG.bridgeReadTasks) + 1 })),
        },
        {
          tool: 'claim_task',
          paths: [...paths, 'api'],
          call: async (n) => {
            const out = await call(n, 'claim_task', { task_id: nextClaim++ });
            if (out.task?.status !== 'claimed') throw new Error(`claim_task via ${n}: ${JSON.stringify(out).slice(0, 200)}`);
            claims++;
          },
        },
      ];
      report.table(
        'bridge_calls',
        `Per-call latency: sequential MCP SDK client calls, ${CONFIG.bridgeWarmup} warm-up + ${CONFIG.bridgeCalls} measured per path, in turns of ${CONFIG.bridgeBlock} calls in rotating order`,
        ['tool', 'path', 'p50 ms', 'p99 ms', 'mean ms', 'added p50 vs direct ms'],
      );
      const results = {};
      for (const op of ops) {
        const samples = Object.fromEntries(op.paths.map((n) => [n, []]));
        for (const n of op.paths) for (let i = 0; i < CONFIG.bridgeWarmup; i++) await op.call(n, i);
        const turns = Math.ceil(CONFIG.bridgeCalls / CONFIG.bridgeBlock);
        for (let turn = 0; turn < turns; turn++) {
          for (const n of rotation(op.paths, turn)) {
            globalThis.gc?.();
            const count = Math.min(CONFIG.bridgeBlock, CONFIG.bridgeCalls - samples[n].length);
            for (let i = 0; i < count; i++) {
              const t = performance.now();
              await op.call(n, turn * CONFIG.bridgeBlock + i);
              samples[n].push(performance.now() - t);
            }
          }
        }
        const p = Object.fromEntries(op.paths.map((n) => [n, percentiles(samples[n])]));
        results[op.tool] = p;
        for (const n of op.paths) {
          const added = !['bridge', 'mcp-remote'].includes(n) ? '' : `${p[n].p50 - p.direct.p50 >= 0 ? '+' : ''}${fmt.ms(p[n].p50 - p.direct.p50)}`;
          report.row('bridge_calls', [n === 'bare' ? 'echo' : op.tool, labels[n], fmt.ms(p[n].p50), fmt.ms(p[n].p99), fmt.ms(p[n].mean), added]);
        }
      }

      // Resident memory after the call run.
      report.table(
        'bridge_memory',
        'Resident memory (/proc/PID/status, MB): after initialize + tools/list, and after the per-call run (RssAnon: the private part of VmRSS; VmHWM: peak VmRSS)',
        ['process', 'calls served', 'VmRSS at start', 'VmRSS after', 'RssAnon after', 'VmHWM after'],
      );
      const memory = {};
      const served = { bridge: 2 * perClient + 1, 'mcp-remote': 2 * perClient + 1, bare: perClient }; // tools/call requests, probe included
      for (const n of ['bridge', 'mcp-remote', 'bare']) {
        if (!clients[n]) continue;
        memory[n] = residentMemory(clients[n].pid);
        const mb = (x) => x.toFixed(1);
        report.row('bridge_memory', [kinds[n].label, served[n], mb(memoryAtStart[n].rssMb), mb(memory[n].rssMb), mb(memory[n].anonMb), mb(memory[n].hwmMb)]);
      }

      for (const tool of Object.keys(results)) {
        const p = results[tool];
        const added = p.bridge.p50 - p.direct.p50;
        report.target(
          `bridge adds <= ${TARGETS.maxBridgeAddedP50Ms} ms p50 per ${tool} call over direct /mcp`,
          `${added >= 0 ? '+' : ''}${fmt.ms(added)} ms (${fmt.ms(p.bridge.p50)} vs ${fmt.ms(p.direct.p50)})`,
          added <= TARGETS.maxBridgeAddedP50Ms,
        );
        if (p['mcp-remote']) {
          report.target(`bridge ${tool} p50 below mcp-remote's`, `${fmt.ms(p.bridge.p50)} vs ${fmt.ms(p['mcp-remote'].p50)} ms`, p.bridge.p50 < p['mcp-remote'].p50);
        } else report.target(`bridge ${tool} p50 below mcp-remote's`, 'mcp-remote not run', null);
      }
      report.target(`bridge resident < ${TARGETS.maxBridgeRssMb} MB after the call run`, `${memory.bridge.rssMb.toFixed(1)} MB (peak ${memory.bridge.hwmMb.toFixed(1)})`, memory.bridge.rssMb < TARGETS.maxBridgeRssMb);

      const db = new Database(dbPath, { readonly: true });
      const claimed = db.prepare("SELECT COUNT(*) FROM tasks WHERE status = 'claimed'").pluck().get();
      db.close();
      if (claimed !== claims) report.note(`bridge_calls: ${claims} successful claims but ${claimed} claimed tasks`);
    } finally {
      for (const close of closers) close();
      for (const [n, c] of Object.entries(clients)) {
        await c.close();
        if (c.child && c.child.exitCode !== null && c.child.exitCode !== 0) report.note(`${n} exited with ${c.child.exitCode}: ${c.stderrTail().slice(-500)}`);
      }
    }
  });
}

const liveHelpers = () => ({ report, makeTempDir, writeAgents, startDaemon, stopServer, percentiles, fmt, TARGETS, ROOT, seedTasks: seedListBoard });

const SECTIONS = [
  { name: 'get_task', run: benchGetTask },
  { name: 'claim_task', run: benchClaimTask },
  { name: 'list_tasks', run: benchListTasks },
  { name: 'bridge_start', run: benchBridgeStart },
  { name: 'bridge_calls', run: benchBridgeCalls },
  { name: 'wakeup', run: () => benchWakeup(liveHelpers(), { rounds: 200, seedPollS: 10 }) },
  { name: 'idle_waiters', run: () => benchIdleWaiters(liveHelpers(), { count: 1000, idleMs: 5000 }) },
  { name: 'event_streams', run: () => benchEventStreams(liveHelpers(), { streams: CONFIG.eventStreams, calls: CONFIG.eventStreamCalls, rounds: 4 }) },
  { name: 'lease_renewal', run: () => benchLeaseRenewal(liveHelpers(), { rounds: 1500, block: 50 }) },
  { name: 'lease_sweep', run: () => benchLeaseSweep(liveHelpers(), { tasks: 100_000, leases: 1000, spreadMs: 5000 }) },
  { name: 'hook_stop', run: () => benchHookStop(liveHelpers(), { runs: 50 }) },
  { name: 'ready_set', run: () => benchReadySet(liveHelpers(), { tasks: CONFIG.listTasks, edges: CONFIG.listTasks, iterations: CONFIG.listIterations, warmup: CONFIG.listWarmup }) },
  { name: 'unblock_wake', run: () => benchUnblockWake(liveHelpers(), { rounds: 200 }) },
  { name: 'reservations', run: () => benchReservations(liveHelpers(), { holders: 200, perTask: 50, rounds: 500 }) },
  { name: 'tool_list', run: () => benchToolList(liveHelpers()) },
  { name: 'pg_claims', run: () => benchPgClaims(liveHelpers(), { concurrency: 24, seed: 100_000, warmupMs: 1000, measureMs: 5000 }) },
  { name: 'pg_wake', run: () => benchPgWake(liveHelpers(), { rounds: 200 }) },
];

// ---------------------------------------------------------------------------------------------------------------

/** The commit being measured, and whether the tree has uncommitted changes (bench/ and docs/ excepted). */
function gitRevision() {
  try {
    const git = (...args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = git('status', '--porcelain', '--untracked-files=no', '--', '.', ':!bench', ':!docs') !== '';
    return `git ${git('rev-parse', '--short', 'HEAD')}${dirty ? ' + uncommitted changes' : ''}`;
  } catch {
    return 'git revision unknown';
  }
}

async function main() {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((w) => !SECTIONS.some((s) => s.name === w));
  if (unknown.length) throw new Error(`unknown section ${unknown.join(', ')}; sections: ${SECTIONS.map((s) => s.name).join(', ')}`);
  const sections = wanted.length ? SECTIONS.filter((s) => wanted.includes(s.name)) : SECTIONS;
  const deadline = setTimeout(() => {
    process.stderr.write(`bench: exceeded ${CONFIG.totalTimeoutMs / 1000} s, giving up\n`);
    process.exit(1);
  }, CONFIG.totalTimeoutMs);
  deadline.unref();

  process.stdout.write(
    `Roundtable bench: node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), ${process.platform}/${process.arch}, temp dir ${tmpdir()}\n`,
  );
  process.stdout.write(`Code: ${gitRevision()}; schema: ${MIGRATIONS.map((m) => m.file).join(', ')}\n`);
  process.stdout.write(`Disk: ${fmt.rps(probeDiskCommits())} synchronous SQLite commits/s in the temp dir (WAL, synchronous=FULL, 1 s probe)\n`);
  const loadText = () => loadavg().map((x) => x.toFixed(2)).join(' ');
  const startLoad = loadText(); // 1, 5 and 15 min: anything else running on the VM shows here
  const started = performance.now();
  for (const section of sections) {
    const t = performance.now();
    process.stderr.write(`bench: ${section.name}...\n`);
    await section.run();
    process.stderr.write(`bench: ${section.name} done in ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
  }
  for (const { title, headers, rows } of report.tables.values()) printTable(title, headers, rows);
  printTable('Targets', ['target', 'measured', 'result'], report.targets);
  for (const note of report.notes) process.stdout.write(`note: ${note}\n`);
  process.stdout.write(`\nTotal bench time ${((performance.now() - started) / 1000).toFixed(1)} s; load average at start ${startLoad}, at end ${loadText()}\n`);
}

main()
  .catch((error) => {
    process.stderr.write(`bench failed: ${error.stack ?? error}\n`);
    process.exitCode = 1;
  })
  .finally(cleanupSync);
