// Bench sections for several daemons on one PostgreSQL board: durable claim_task throughput with one, two and three
// daemons on PostgreSQL beside one daemon on SQLite (synchronous=FULL), in the same run; and cross-daemon wake-up
// latency. They need a PostgreSQL cluster: ROUNDTABLE_BENCH_PG_URL (or ROUNDTABLE_TEST_PG_URL), an admin URL that may
// create databases (scripts/pg-cluster.sh start prints one). Without it the sections say so and measure nothing.
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { postToolAnswer } from './harness.mjs';
import { createBenchDatabase, PG_ADMIN_URL } from './pg-database.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/**
 * The last commit whose PostgreSQL store ran on postgres.js, before node-postgres (issue 22): what a user upgrading
 * compares with. BENCH_PG_BASELINE_REV picks another.
 */
const PG_BASELINE_REV = process.env.BENCH_PG_BASELINE_REV ?? '91460d2';

function skipped(h, section) {
  h.report.note(`${section}: skipped, no PostgreSQL (set ROUNDTABLE_BENCH_PG_URL, e.g. from \`eval "$(scripts/pg-cluster.sh start)"\`)`);
}

/** `count` open tasks anyone may claim, written straight into the board's tables (ids 1..count). */
async function seedOpenTasks(board, count) {
  const at = new Date().toISOString();
  if (board.url) {
    const client = new pg.Client({ connectionString: board.url });
    await client.connect();
    await client.query(
      `INSERT INTO tasks (title, description, required_skills, status, created_by, created_at, updated_at)
      SELECT 'claim me ' || n, '', '[]', 'open', 'lead', $1, $1 FROM generate_series(1, $2::int) AS n`,
      [at, count],
    );
    await client.end();
  } else {
    const db = new Database(board.path);
    db.pragma('busy_timeout = 10000');
    const insert = db.prepare("INSERT INTO tasks (title, description, required_skills, status, created_by, created_at, updated_at) VALUES (?, '', '[]', 'open', 'lead', ?, ?)");
    db.transaction(() => {
      for (let n = 1; n <= count; n++) insert.run(`claim me ${n}`, at, at);
    })();
    db.close();
  }
}

/**
 * Closed loop: `concurrency` callers, spread evenly over the daemons, each claiming the next unclaimed task id.
 * Every claim is one durable transaction (SQLite synchronous=FULL; PostgreSQL fsync and synchronous_commit on).
 */
async function claimLoad(daemons, tokens, { concurrency, warmupMs, measureMs }) {
  const agents = daemons.map(() => new http.Agent({ keepAlive: true, maxSockets: concurrency }));
  let next = 1;
  let ok = 0;
  let errors = 0;
  let firstError;
  let measuring = false;
  const end = performance.now() + warmupMs + measureMs;
  setTimeout(() => (measuring = true), warmupMs).unref();
  const worker = async (i) => {
    const d = i % daemons.length;
    while (performance.now() < end) {
      const id = next++;
      const res = await postToolAnswer(agents[d], daemons[d].port, tokens[i % tokens.length], 'claim_task', { task_id: id }, 30_000);
      if (!measuring || performance.now() > end) continue;
      if (res.status === 200) ok++;
      else {
        errors++;
        firstError ??= `HTTP ${res.status} ${res.body.slice(0, 200)}`;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, i) => worker(i)));
  for (const a of agents) a.destroy();
  return { rps: ok / (measureMs / 1000), ok, errors, firstError };
}

export async function benchPgClaims(h, { concurrency, seed, warmupMs, measureMs }) {
  if (!PG_ADMIN_URL) return skipped(h, 'pg_claims');
  const dir = h.makeTempDir();
  const { path: agentsPath, agents } = h.writeAgents(dir);
  const tokens = ['reader', 'claimer', 'lister', 'helper'].map((n) => agents[n].token);
  h.report.table(
    'pg_claims',
    `Durable claim_task throughput: ${concurrency} callers spread over the daemons, each claim a new task, ${measureMs / 1000} s after ${warmupMs / 1000} s warm-up; everything (daemons, PostgreSQL, load) on this one machine`,
    ['store', 'daemons', 'claims/s', 'errors'],
  );
  const rows = {};
  // The PostgreSQL store on postgres.js, built from git in this run.
  const baseline = h.buildDaemonAt(PG_BASELINE_REV, dir, 'pg-baseline');
  const configs = [
    { label: 'SQLite (WAL, synchronous=FULL)', daemons: 1, pg: false },
    { label: 'PostgreSQL', daemons: 1, pg: true },
    { label: 'PostgreSQL', daemons: 2, pg: true },
    { label: 'PostgreSQL', daemons: 3, pg: true },
    { label: `PostgreSQL on postgres.js (git ${PG_BASELINE_REV})`, daemons: 3, pg: true, bin: baseline.bin, key: 'pg3before' },
  ];
  for (const config of configs) {
    const board = config.pg ? { url: await createBenchDatabase(`claims${config.daemons}`) } : { path: join(dir, 'claims.db') };
    const env = config.pg ? { ROUNDTABLE_DATABASE_URL: board.url } : {};
    const options = { env, ...(config.bin && { bin: config.bin }) };
    const daemons = [];
    try {
      daemons.push(await h.startDaemon(board.path ?? join(dir, 'unused.db'), agentsPath, undefined, options));
      await seedOpenTasks(board, seed);
      for (let i = 1; i < config.daemons; i++) daemons.push(await h.startDaemon(join(dir, `unused${i}.db`), agentsPath, undefined, options));
      const result = await claimLoad(daemons, tokens, { concurrency, warmupMs, measureMs });
      rows[config.key ?? `${config.pg ? 'pg' : 'sqlite'}${config.daemons}`] = result.rps;
      h.report.row('pg_claims', [config.label, config.daemons, h.fmt.rps(result.rps), result.errors]);
      if (result.errors) h.report.note(`pg_claims ${config.label} x${config.daemons}: ${result.errors} errors, first: ${result.firstError}`);
    } finally {
      for (const d of daemons) await h.stopServer(d);
    }
  }
  baseline.remove();
  h.report.note(`pg_claims: three daemons on PostgreSQL gave ${h.fmt.ratio(rows.pg3 / rows.pg3before)} the claims/s of the same three on postgres.js (git ${PG_BASELINE_REV})`);
  h.report.target(
    'three daemons on PostgreSQL sustain more durable claims/s than one daemon on SQLite (synchronous=FULL)',
    `${h.fmt.rps(rows.pg3)} vs ${h.fmt.rps(rows.sqlite1)} claims/s`,
    rows.pg3 > rows.sqlite1,
  );
}

export async function benchPgWake(h, { rounds }) {
  if (!PG_ADMIN_URL) return skipped(h, 'pg_wake');
  const dir = h.makeTempDir();
  const { path: agentsPath, agents } = h.writeAgents(dir);
  const url = await createBenchDatabase('wake');
  const env = { ROUNDTABLE_DATABASE_URL: url };
  const daemons = [];
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const samples = [];
  try {
    for (let i = 0; i < 2; i++) daemons.push(await h.startDaemon(join(dir, `unused${i}.db`), agentsPath, undefined, { env }));
    const [waiterOn, writerOn] = daemons;
    for (let i = 0; i < rounds + 5; i++) {
      const waiting = postToolAnswer(agent, waiterOn.port, agents.claimer.token, 'wait_for_activity', { timeout_s: 20, for: ['tasks'] }, 30_000).then((res) => ({ res, at: performance.now() }));
      // Parked before the task is made (a fixed pause lost that race on a loaded machine): members says so.
      for (let polls = 0; ; polls++) {
        const members = JSON.parse((await postToolAnswer(agent, waiterOn.port, agents.lead.token, 'members', {}, 30_000)).body).members;
        if (members.find((m) => m.name === 'claimer')?.waiting) break;
        if (polls > 500) throw new Error(`round ${i}: the waiter did not park`);
        await sleep(5);
      }
      const sent = performance.now();
      const created = JSON.parse((await postToolAnswer(agent, writerOn.port, agents.lead.token, 'create_task', { title: `wake ${i}` }, 30_000)).body);
      const { res, at } = await waiting;
      const answer = JSON.parse(res.body);
      if (answer.reason !== 'activity') throw new Error(`round ${i}: the waiter answered ${res.body}`);
      if (i >= 5) samples.push(at - sent);
      await postToolAnswer(agent, waiterOn.port, agents.claimer.token, 'claim_task', { task_id: created.task.id }, 30_000);
    }
  } finally {
    agent.destroy();
    for (const d of daemons) await h.stopServer(d);
  }
  const p = h.percentiles(samples);
  h.report.table(
    'pg_wake',
    `Cross-daemon wake-up: create_task sent to daemon B -> the answer of a wait_for_activity parked on daemon A (one PostgreSQL board, LISTEN/NOTIFY; ${rounds} rounds after 5 warm-up)`,
    ['measure', 'p50 ms', 'p99 ms', 'mean ms'],
  );
  h.report.row('pg_wake', ['waiter on A, task created through B', h.fmt.ms(p.p50), h.fmt.ms(p.p99), h.fmt.ms(p.mean)]);
  h.report.target(`cross-daemon wake-up p99 < ${h.TARGETS.maxWakeP99Ms} ms`, `p99 ${h.fmt.ms(p.p99)} ms (p50 ${h.fmt.ms(p.p50)})`, p.p99 < h.TARGETS.maxWakeP99Ms);
}

/** A TCP relay to PostgreSQL that counts round trips: a burst of bytes from the daemon after an answer is one. */
async function countingRelay(target) {
  const net = await import('node:net');
  const stats = { roundTrips: 0 };
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    let answered = true;
    client.on('data', (chunk) => {
      if (answered) stats.roundTrips++;
      answered = false;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      answered = true;
      client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: server.address().port, stats, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** CPU ms of the PostgreSQL cluster's processes (the postmaster's children), or undefined when its folder is unknown. */
function clusterCpuMs(h) {
  const dir = process.env.ROUNDTABLE_BENCH_PG_DIR ?? process.env.ROUNDTABLE_TEST_PG_DIR;
  if (!dir) return undefined;
  let postmaster;
  try {
    postmaster = Number(readFileSync(join(dir, 'data/postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ');
      if (Number(fields[1]) === postmaster || Number(entry) === postmaster) total += h.cpuMs(Number(entry));
    } catch {
      // a backend that ended meanwhile
    }
  }
  return total;
}

/**
 * Issue 27: what a durable claim costs on each store. CPU per claim of the daemon (and of the PostgreSQL cluster's
 * processes, beside it) at 50 clients in interleaved rounds, SQLite and PostgreSQL, today and before issue 27 (built
 * from git); and round trips per claim and per get_task on PostgreSQL, counted by a relay between the daemon and the
 * cluster with one client (so no two calls share a burst), background work (lease and presence timers) included.
 */
export async function benchPgCost(h, { rounds, roundMs, clients, calls }) {
  if (!PG_ADMIN_URL) return skipped(h, 'pg_cost');
  const rev = process.env.BENCH_MINIMAL_BEFORE_REV ?? 'ad29347';
  const dir = h.makeTempDir();
  const { path: agentsPath, agents } = h.writeAgents(dir);
  const before = h.buildDaemonAt(rev, dir, 'pg-cost-before');
  const relay = await countingRelay(new URL(PG_ADMIN_URL));
  const configs = [
    { name: 'SQLite, now', pg: false },
    { name: 'SQLite, before', pg: false, bin: before.bin },
    { name: 'PostgreSQL, now', pg: true },
    { name: 'PostgreSQL, before', pg: true, bin: before.bin },
  ];
  const daemons = {};
  const loads = {};
  try {
    for (const config of configs) {
      let url;
      if (config.pg) {
        url = new URL(await createBenchDatabase('cost'));
        url.port = String(relay.port);
      }
      const path = join(dir, `${config.name.replace(/\W+/g, '_')}.db`);
      daemons[config.name] = await h.startDaemon(path, agentsPath, undefined, { logLevel: 'info', env: url ? { ROUNDTABLE_DATABASE_URL: url.toString() } : {}, ...(config.bin && { bin: config.bin }) });
      await seedOpenTasks(config.pg ? { url: url.toString() } : { path }, 100_000);
      let next = 1;
      loads[config.name] = h.createLoad({ port: daemons[config.name].port, path: '/api/v1/tools/claim_task', token: agents.claimer.token, body: () => `{"task_id":${next++}}`, concurrency: clients });
      loads[config.name].nextId = () => next++;
      await loads[config.name].run(h.CONFIG.warmupMs, false);
    }
    const cpu = Object.fromEntries(configs.map((c) => [c.name, []]));
    const pgCpu = Object.fromEntries(configs.map((c) => [c.name, []]));
    const rps = Object.fromEntries(configs.map((c) => [c.name, []]));
    for (let round = 0; round < rounds; round++) {
      for (const config of round % 2 ? [...configs].reverse() : configs) {
        const load = loads[config.name];
        const pid = daemons[config.name].child.pid;
        const ok0 = load.result().totalOk;
        const c0 = h.cpuMs(pid);
        const p0 = clusterCpuMs(h);
        const t = performance.now();
        await load.run(roundMs, false);
        const n = load.result().totalOk - ok0;
        rps[config.name].push(n / ((performance.now() - t) / 1000));
        cpu[config.name].push((h.cpuMs(pid) - c0) / n);
        const p1 = clusterCpuMs(h);
        if (p0 !== undefined && p1 !== undefined) pgCpu[config.name].push((p1 - p0) / n);
      }
    }
    // Round trips with one client: claims of fresh tasks, then get_task of those.
    const trips = {};
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    for (const config of configs.filter((c) => c.pg)) {
      const port = daemons[config.name].port;
      const ids = Array.from({ length: calls }, () => loads[config.name].nextId());
      const measure = async (tool, token) => {
        const r0 = relay.stats.roundTrips;
        for (const id of ids) {
          const res = await postToolAnswer(agent, port, token, tool, { task_id: id }, 30_000);
          if (res.status !== 200) throw new Error(`${tool} via ${config.name}: HTTP ${res.status} ${res.body.slice(0, 200)}`);
        }
        return (relay.stats.roundTrips - r0) / calls;
      };
      trips[config.name] = { claim: await measure('claim_task', agents.claimer.token), get: await measure('get_task', agents.claimer.token) };
    }
    agent.destroy();
    const spread = (xs, f) => (xs.length ? `${f(median(xs))} (${f(Math.min(...xs))}-${f(Math.max(...xs))})` : '-');
    h.report.table(
      'pg_cost',
      `What a durable claim costs on each store: ${clients} clients, ${rounds} interleaved rounds of ${roundMs} ms, median (min-max); CPU of the daemon process and of the PostgreSQL cluster's processes (/proc) per claim; round trips daemon <-> PostgreSQL per call over ${calls} calls with one client, counted by a relay (background timers included); "before" is git ${rev}; daemons at log level info`,
      ['store', 'claims/s', 'daemon CPU ms / claim', 'PostgreSQL CPU ms / claim', 'round trips / claim', 'round trips / get_task'],
    );
    for (const config of configs) {
      const t = trips[config.name];
      h.report.row('pg_cost', [
        config.name,
        spread(rps[config.name], h.fmt.rps),
        spread(cpu[config.name], (x) => x.toFixed(3)),
        config.pg ? spread(pgCpu[config.name], (x) => x.toFixed(3)) : '',
        t ? t.claim.toFixed(2) : '',
        t ? t.get.toFixed(2) : '',
      ]);
    }
  } finally {
    for (const l of Object.values(loads)) l.close();
    await Promise.all(Object.values(daemons).map((d) => h.stopServer(d)));
    await relay.close();
    before.remove();
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
