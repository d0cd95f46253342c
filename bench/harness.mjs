// The bench's shared harness: configuration, process hygiene, seeded boards, servers, the HTTP load generator,
// rounds and medians, and the report with its side-by-side baselines. Every section file (bench/*.mjs) builds on it.
import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, copyFileSync, existsSync, fsyncSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';


export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DAEMON_BIN = join(ROOT, 'daemon/bin/roundtable.js');
export const BARE_SERVER = join(ROOT, 'bench/bare-server.mjs');
export const MIGRATIONS_DIR = join(ROOT, 'daemon/migrations');
/** The daemon's numbered migrations (001_board.sql, ...), in order, as daemon/src/store/migration-files.ts reads them. */
export const MIGRATIONS = readdirSync(MIGRATIONS_DIR)
  .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
  .sort()
  .map((f) => ({ file: f, version: Number(f.slice(0, 3)), sql: readFileSync(join(MIGRATIONS_DIR, f), 'utf8') }));

export const envInt = (name, fallback) => {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name}=${value}: expected a positive whole number`);
  return n;
};

export const CONFIG = Object.freeze({
  concurrency: envInt('BENCH_CONCURRENCY', 16),
  warmupMs: envInt('BENCH_WARMUP_MS', 1000),
  durationMs: envInt('BENCH_DURATION_MS', 5000),
  listTasks: envInt('BENCH_LIST_TASKS', 100_000),
  listIterations: envInt('BENCH_LIST_ITERATIONS', 300),
  listWarmup: 30,
  // The daemon refuses ROUNDTABLE_RATE_LIMIT_PER_MINUTE above 100,000 (daemon/src/runtime/config.ts). Its token bucket starts
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
  totalTimeoutMs: envInt('BENCH_TIMEOUT_S', 1800) * 1000,
});

export const TARGETS = Object.freeze({
  minThroughputRatio: 0.5,
  maxListP50Ms: 5,
  maxBridgeStartRatio: 0.6,
  maxBridgeAddedP50Ms: 2,
  maxBridgeRssMb: 60,
  maxWakeP99Ms: 50,
  maxIdleWaitersMb: 50,
  maxStreamsP50Ratio: 2,
});

// ---------------------------------------------------------------------------------------------------------------
// Process and temp-dir hygiene: every child is tracked and killed on exit, error or signal; the temp dir is removed.

export const children = new Set();
export const tempDirs = new Set();

export function cleanupSync() {
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

export function makeTempDir() {
  const dir = mkdtempSync(join(tmpdir(), 'roundtable-bench-'));
  tempDirs.add(dir);
  return dir;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Spawns a server process and waits for its "listening on http://127.0.0.1:PORT" line. Its environment is baseEnv
 * (the bench's own unless given) plus env.
 */
export async function startServer(label, args, env, baseEnv = process.env) {
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
    child.stdout.on('data', function listening(chunk) {
      stdout += chunk;
      const match = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(stdout) ?? /listening on http:\/\/127\.0\.0\.1:(\d+)\s/.exec(stdout);
      if (match) {
        // Heard once: the daemon also writes to stdout when it stops, and matching that output again would take off
        // the 'exit' listener stopServer is waiting on (the run then ends silently with the section unfinished).
        child.stdout.off('data', listening);
        child.stdout.resume();
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
export async function stopServer(server, graceMs = 10_000) {
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

export const sha256 = (text) => createHash('sha256').update(text, 'utf8').digest('hex');

/** One leader and a few workers; returns name -> { token, skills } and writes agents.json. */
/**
 * wait_for_activity calls one agent may have open at once (WAITS_PER_AGENT, daemon/src/board/presence.ts): a section
 * that parks more waits spreads them over agents of their own (writeAgents' `waiters` and `watchers`).
 */
export const WAITS_PER_AGENT = 8;

/**
 * The bench's agents file: a leader and four workers, plus `waiters` more workers (waiter1, ...; skills of every task a
 * section creates without skills) and `watchers` observers (watcher1, ...), whose tokens come back as
 * agents.waiters and agents.watchers.
 */
export function writeAgents(dir, { waiters = 0, watchers = 0 } = {}) {
  const defs = [
    { name: 'lead', role: 'leader', skills: [] },
    { name: 'reader', role: 'worker', skills: ['typescript'] },
    { name: 'claimer', role: 'worker', skills: ['typescript', 'sql'] },
    { name: 'lister', role: 'worker', skills: ['typescript', 'sql', 'docs'] },
    { name: 'helper', role: 'worker', skills: ['python', 'ops'] },
    ...Array.from({ length: waiters }, (_, i) => ({ name: `waiter${i + 1}`, role: 'worker', skills: ['typescript', 'sql', 'docs'] })),
    ...Array.from({ length: watchers }, (_, i) => ({ name: `watcher${i + 1}`, role: 'observer', skills: [] })),
  ];
  const agents = {};
  const file = { agents: [] };
  for (const d of defs) {
    const token = `rt_${randomBytes(32).toString('base64url')}`;
    agents[d.name] = { ...d, token };
    file.agents.push({ name: d.name, role: d.role, skills: d.skills, token_sha256: sha256(token) });
  }
  agents.waiters = defs.filter((d) => d.name.startsWith('waiter')).map((d) => agents[d.name].token);
  agents.watchers = defs.filter((d) => d.name.startsWith('watcher')).map((d) => agents[d.name].token);
  const path = join(dir, 'agents.json');
  writeFileSync(path, JSON.stringify(file, null, 2));
  return { path, agents };
}

/** A deterministic PRNG (mulberry32), so every run seeds the same board. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const WORDS = 'add fix refactor migrate document test review deploy parser cache index schema api client worker queue retry timeout config logging metrics auth token bridge daemon board report'.split(' ');
export const SKILL_POOL = ['typescript', 'python', 'sql', 'docs', 'go', 'rust', 'design', 'ops'];

export function words(rand, n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(WORDS[Math.floor(rand() * WORDS.length)]);
  return out.join(' ');
}

/**
 * Creates a board database exactly as the daemon's migrate() would (schema_version, then every migration, each in
 * one transaction with its schema_version row), so the daemon starts without migrating; then calls fill(writer)
 * inside one transaction. The file is closed (WAL checkpointed) before it is copied or served.
 */
export function createBoardDb(path, fill, { upTo = Infinity } = {}) {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF'); // seeding only; the servers open it with synchronous = FULL
  db.pragma('foreign_keys = ON');
  db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
  for (const migration of MIGRATIONS.filter((m) => m.version <= upTo)) {
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
    /** The connection itself, for seeders that insert in bulk with statements of their own (bench/scale.mjs). */
    db,
  };
  db.transaction(() => fill(writer))();
  db.close();
  for (const suffix of ['-wal', '-shm']) {
    if (existsSync(path + suffix)) throw new Error(`${path}${suffix} left behind after close`);
  }
}

/** Copies a file and fsyncs the copy, so its dirty pages are not flushed during a measurement. */
export function copyDurably(from, to) {
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
export function probeDiskCommits(ms = 1000) {
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

export const isoAt = (base, offsetMs) => new Date(base + offsetMs).toISOString();

/** get_task data: done tasks, each with 4 messages, one review and 4 activity rows. */
export function seedGetTaskBoard(path, schema = {}) {
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
  }, schema);
}

/** claim_task data: open tasks needing a skill the claimer has. */
export function seedClaimBoard(path, schema = {}) {
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
  }, schema);
}

/**
 * A board that has been in use for a while: old tasks are mostly done or cancelled with a few stale open ones,
 * the newest 10% are open, claimed or submitted. 0-2 required skills each; a tenth of open tasks are reserved.
 */
export function seedListBoard(path, n = CONFIG.listTasks) {
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

/**
 * options.bin: another daemon build (the lease bench's baseline); options.env: more settings; options.nodeArgs: more
 * node flags; options.logLevel: ROUNDTABLE_LOG_LEVEL (warn unless given; info is the daemon's default).
 */
export function startDaemon(dbPath, agentsPath, baseEnv, options = {}) {
  return startServer(
    'daemon',
    [...CONFIG.daemonNodeArgs, ...(options.nodeArgs ?? []), options.bin ?? DAEMON_BIN, 'run'],
    {
      ...options.env,
      ROUNDTABLE_HOST: '127.0.0.1',
      ROUNDTABLE_PORT: '0',
      ROUNDTABLE_DB_PATH: dbPath,
      ROUNDTABLE_AGENTS_CONFIG: agentsPath,
      ROUNDTABLE_RATE_LIMIT_PER_MINUTE: String(CONFIG.rateLimit),
      ROUNDTABLE_LOG_LEVEL: options.logLevel ?? 'warn',
    },
    baseEnv,
  );
}

/** options.synchronous: FULL (default) or NORMAL; options.readAudit: false for reads that write no audit row. */
export function startBare(dbPath, agentName, options = {}) {
  return startServer('bare', [...CONFIG.bareNodeArgs, BARE_SERVER], {
    BARE_DB_PATH: dbPath,
    BARE_AGENT: agentName,
    BARE_SYNCHRONOUS: options.synchronous ?? 'FULL',
    BARE_READ_AUDIT: options.readAudit === false ? '0' : '1',
  });
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP client and load generator (node:http, keep-alive).

export function newAgent(sockets) {
  return new http.Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets });
}

/**
 * One POST; resolves { status, body } (body only if keepBody), or { status: 0, error } on a network error. headers: more
 * request headers (the Accept and MCP headers a call to /mcp needs).
 */
export function post(agent, port, path, token, body, keepBody = false, headers = undefined) {
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
          ...headers,
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
export async function callTool(agent, port, token, tool, args) {
  const res = await post(agent, port, `/api/v1/tools/${tool}`, token, JSON.stringify(args), true);
  if (res.status < 200 || res.status > 299) throw new Error(`${tool} ${JSON.stringify(args)}: HTTP ${res.status} ${res.error ?? res.body}`);
  return JSON.parse(res.body);
}

/**
 * A closed-loop load generator for one server: `concurrency` requests always in flight, over its own keep-alive
 * connections. run(ms, measured) drives it for ms; only requests that complete inside a measured run count
 * (2xx as ok, anything else as an error), and throughput is those ok completions over the measured time.
 * body(seq) gives the JSON body of request number seq, counted across all runs; headers are sent with each request.
 */
export function createLoad({ port, path, token, body, concurrency = CONFIG.concurrency, headers = undefined }) {
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
          const res = await post(agent, port, path, token, body(seq++), false, headers);
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

export function percentiles(samples) {
  if (samples.length === 0) return { p50: NaN, p99: NaN, mean: NaN };
  const sorted = Float64Array.from(samples).sort();
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { p50: at(0.5), p99: at(0.99), mean: samples.reduce((a, b) => a + b, 0) / samples.length };
}

// ---------------------------------------------------------------------------------------------------------------
// The report: named tables filled by the sections, plus the targets, printed at the end.

export const report = {
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
export function printTable(title, headers, rows) {
  const cells = [headers, ...rows].map((r) => r.map((c) => String(c)));
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const numeric = (s) => /^[-+]?[\d.,]+( ?[a-z%/]+)?$|^[\d.]+ \/ [\d.]+$|^[\d.]+x$/i.test(s);
  const line = (r) => `| ${r.map((c, i) => (numeric(c) && i > 0 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ')} |`;
  const out = [`\n${title}`, line(cells[0]), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.slice(1).map(line)];
  process.stdout.write(`${out.join('\n')}\n`);
}

export const fmt = {
  rps: (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-'),
  ms: (n) => (Number.isFinite(n) ? n.toFixed(2) : '-'),
  ratio: (n) => (Number.isFinite(n) ? `${n.toFixed(2)}x` : '-'),
  errors: (r) => (r.errors === 0 ? '0' : `${r.errors} (${Object.entries(r.statuses).map(([s, n]) => `${s === '0' ? 'net' : s}:${n}`).join(' ')})`),
};

// ---------------------------------------------------------------------------------------------------------------
// Sections.

// ---------------------------------------------------------------------------------------------------------------
// Rounds, medians and side-by-side baselines.

export const median = (samples) => percentiles(samples).p50;

/**
 * Measures every kind `count` times, the kinds taking turns in alternating order (A B C, C B A, ...), so a slow
 * spell of the disk or the VM lands on all of them; returns kind -> the list of what measure(kind, round) returned.
 */
export async function inRounds(count, kinds, measure) {
  const results = Object.fromEntries(kinds.map((k) => [k, []]));
  for (let round = 0; round < count; round++) {
    const order = round % 2 === 0 ? kinds : [...kinds].reverse();
    for (const kind of order) results[kind].push(await measure(kind, round));
  }
  return results;
}

/** A figure beside its baseline: "1.23x" of the baseline, and whether a target ratio holds (lower or higher is better). */
export function against(measured, baseline, target) {
  const ratio = measured / baseline;
  if (!target) return { ratio, text: fmt.ratio(ratio), holds: null };
  const holds = target.atMost !== undefined ? ratio <= target.atMost : ratio >= target.atLeast;
  return { ratio, text: fmt.ratio(ratio), holds };
}

/** CPU time (user + system) of a process in ms, from /proc/PID/stat (clock ticks of 10 ms). */
export function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * The daemon as it was at `rev`, built in a temp folder: a git worktree of that revision whose node_modules link to
 * the repository's packages, except the workspace packages, which point at the worktree's own; built with tsc -b and,
 * where that revision has it, scripts/bundle.mjs (its bins run the bundles): the daemon's, and the bridge's too with
 * options.bundles ['daemon', 'bridge']. Returns its bins and a remover. A revision from before the v2 MCP SDK (issue
 * 23) finds the v1 SDK it imports in the repository's node_modules, where the conformance suite's dependency puts it.
 */
export function buildDaemonAt(rev, tempDir, name = 'baseline', options = {}) {
  const tree = join(tempDir, name);
  execFileSync('git', ['worktree', 'add', '--detach', tree, rev], { cwd: ROOT, stdio: 'ignore' });
  const modules = join(tree, 'node_modules');
  mkdirSync(modules);
  for (const entry of readdirSync(join(ROOT, 'node_modules'))) {
    if (entry.startsWith('roundtable-')) continue;
    symlinkSync(join(ROOT, 'node_modules', entry), join(modules, entry));
  }
  for (const [pkg, dir] of [['roundtable-shared', 'shared'], ['roundtable-daemon', 'daemon'], ['roundtable-bridge', 'bridge']]) {
    if (existsSync(join(tree, dir))) symlinkSync(join(tree, dir), join(modules, pkg));
  }
  // A dependency the baseline had and this tree has not (postgres.js, before node-postgres) is installed for it alone,
  // at the version it pinned.
  const pinned = JSON.parse(readFileSync(join(tree, 'daemon/package.json'), 'utf8')).dependencies ?? {};
  const missing = Object.entries(pinned).filter(([name]) => !existsSync(join(modules, name)));
  if (missing.length > 0) {
    const extra = join(tempDir, `${name}-deps`);
    mkdirSync(extra, { recursive: true });
    execFileSync('npm', ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--ignore-scripts', '--prefix', extra, ...missing.map(([n, v]) => `${n}@${v}`)], { stdio: 'ignore' });
    for (const [dep] of missing) symlinkSync(join(extra, 'node_modules', dep), join(modules, dep));
  }
  execFileSync(join(ROOT, 'node_modules/.bin/tsc'), ['-b'], { cwd: tree, stdio: 'ignore' });
  const bundles = options.bundles ?? ['daemon'];
  if (existsSync(join(tree, 'scripts/bundle.mjs'))) execFileSync(process.execPath, ['scripts/bundle.mjs', ...bundles], { cwd: tree, stdio: 'ignore' });
  return { bin: join(tree, 'daemon/bin/roundtable.js'), bridgeBin: join(tree, 'bridge/bin/roundtable-bridge.js'), remove: () => execFileSync('git', ['worktree', 'remove', '--force', tree], { cwd: ROOT, stdio: 'ignore' }) };
}

/**
 * The newest SQLite schema version a revision knows: a board seeded for a daemon built from it (buildDaemonAt) stops
 * there (`{ upTo }` to the seeders), since a daemon refuses a schema newer than its own.
 */
export function schemaVersionAt(rev) {
  const files = execFileSync('git', ['ls-tree', '--name-only', rev, 'daemon/migrations/'], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n');
  return Math.max(...files.map((f) => Number(f.split('/').at(-1).slice(0, 3))).filter(Number.isFinite));
}

/** The revision just before `path` was added: the parent of the commit that added it. */
export function revisionBefore(path) {
  const added = execFileSync('git', ['log', '--diff-filter=A', '--format=%H', '--', path], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').at(-1);
  if (!added) throw new Error(`cannot find the commit that added ${path}`);
  return `${added}^`;
}

/**
 * One tool call through the JSON API that may be held open (wait_for_activity holds up to 50 s): resolves with its
 * status and body, whatever they are; a network failure or no answer within timeoutMs is status 0, the error as body.
 */
export function postToolAnswer(agent, port, token, tool, args, timeoutMs = 70_000) {
  const body = JSON.stringify(args);
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: `/api/v1/tools/${tool}`,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${token}` },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${tool}: no answer in ${timeoutMs / 1000} s`)));
    req.on('error', (error) => resolve({ status: 0, body: String(error) }));
    req.end(body);
  });
}

/** postToolAnswer's output as parsed JSON; rejects on anything but a 200. */
export async function postTool(agent, port, token, tool, args) {
  const { status, body } = await postToolAnswer(agent, port, token, tool, args);
  if (status !== 200) throw new Error(`${tool}: ${status === 0 ? body : `HTTP ${status} ${body}`}`);
  return JSON.parse(body);
}
