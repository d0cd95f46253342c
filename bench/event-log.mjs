// Bench sections for the durable event log and change cursors (issue 24):
//   wake_latency       `roundtable-bridge wake --exec` with 0, 1 and 100 claimable items already pending: a new task
//                      sent -> CMD started (p50, p99), SQLite
//   event_log_cost     claim_task throughput with the event row vs the daemon before the event log (built from git,
//                      BENCH_EVENT_LOG_BASE_REV, default ad29347), alternating rounds in one run, SQLite
//   listen_replay      PostgreSQL: daemon A's link to the database cut for 10 s while 10,000 changes are written
//                      through daemon B; A reads them from the log once its listener is back (needs a PostgreSQL cluster)
import http from 'node:http';
import net from 'node:net';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import pg from 'pg';
import { children, CONFIG, createLoad, inRounds, postToolAnswer, ROOT, schemaVersionAt, seedClaimBoard } from './harness.mjs';
import { createBenchDatabase, PG_ADMIN_URL } from './pg-database.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const BRIDGE_BIN = join(ROOT, 'bridge/bin/roundtable-bridge.js');
const BASE_REV = process.env.BENCH_EVENT_LOG_BASE_REV ?? 'ad29347';

async function tool(agent, port, token, name, args) {
  const res = await postToolAnswer(agent, port, token, name, args, 70_000);
  if (res.status !== 200) throw new Error(`${name}: HTTP ${res.status} ${res.body}`);
  return JSON.parse(res.body);
}

/** wake --exec with k claimable tasks pending first; each round makes one more and times CMD's start from the send. */
export async function benchWakeLatency(h, { pending = [0, 1, 100], rounds = 30 } = {}) {
  const dir = h.makeTempDir();
  const { path: agentsPath, agents } = h.writeAgents(dir);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  h.report.table('wake_latency', `wake --exec: a new claimable task sent -> CMD started, with items already pending (SQLite; --debounce 0; ${rounds} rounds each)`, [
    'pending before',
    'p50 ms',
    'p99 ms',
    'mean ms',
  ]);
  try {
    for (const k of pending) {
      const daemon = await h.startDaemon(join(dir, `wake-${k}.db`), agentsPath, undefined);
      const out = join(dir, `wake-out-${k}`);
      mkdirSync(out);
      let wake;
      try {
        for (let i = 0; i < k; i++) await tool(agent, daemon.port, agents.lead.token, 'create_task', { title: `pending ${i}` });
        const record = 'date +%s%N > "$WAKE_OUT/.t" && mv "$WAKE_OUT/.t" "$WAKE_OUT/run-$ROUNDTABLE_WAKE_BATCH"';
        wake = spawn(process.execPath, [BRIDGE_BIN, 'wake', '--url', `http://127.0.0.1:${daemon.port}`, '--exec', record, '--for', 'tasks', '--debounce', '0'], {
          env: { ...process.env, ROUNDTABLE_TOKEN: agents.claimer.token, WAKE_OUT: out, ROUNDTABLE_STATE_DIR: join(dir, `state-${k}`), ROUNDTABLE_LOG_LEVEL: 'warn' },
          stdio: ['ignore', 'ignore', 'ignore'],
        });
        children.add(wake);
        let batch = 0;
        const runOf = async (n, deadlineMs = 10_000) => {
          const file = join(out, `run-${n}`);
          const until = performance.now() + deadlineMs;
          while (!existsSync(file)) {
            if (performance.now() > until) throw new Error(`wake_latency (${k} pending): no run ${n}`);
            await sleep(1);
          }
          return Number(BigInt(readFileSync(file, 'utf8').trim()) / 1000n) / 1000; // ms since the epoch
        };
        if (k > 0) await runOf(++batch); // the run for what was pending at the start
        const samples = [];
        for (let i = 0; i < rounds + 3; i++) {
          await sleep(150); // parked again (it long-polls within milliseconds of a run)
          const sent = Date.now();
          await tool(agent, daemon.port, agents.lead.token, 'create_task', { title: `new ${i}` });
          const started = await runOf(++batch);
          if (i >= 3) samples.push(started - sent);
        }
        const p = h.percentiles(samples);
        h.report.row('wake_latency', [String(k), h.fmt.ms(p.p50), h.fmt.ms(p.p99), h.fmt.ms(p.mean)]);
        h.report.target(`wake p50 < 50 ms with ${k} pending`, `p50 ${h.fmt.ms(p.p50)} ms`, p.p50 < 50);
      } finally {
        wake?.kill('SIGTERM');
        await h.stopServer(daemon);
      }
    }
  } finally {
    agent.destroy();
  }
}

/** The event row's cost on a write: claim_task calls/s, before the event log (from git) and now, alternating rounds. */
export async function benchEventLogCost(h, { rounds = 4 } = {}) {
  const dir = h.makeTempDir();
  const { path: agentsPath, agents } = h.writeAgents(dir);
  const baseline = h.buildDaemonAt(BASE_REV, dir, 'event-log-base');
  const servers = {};
  const loads = {};
  try {
    for (const kind of ['before', 'after']) {
      const path = join(dir, `${kind}.db`);
      // The daemon before refuses a schema newer than its own: its board stops at its last migration.
      seedClaimBoard(path, kind === 'before' ? { upTo: schemaVersionAt(BASE_REV) } : {});
      servers[kind] = await h.startDaemon(path, agentsPath, undefined, kind === 'before' ? { bin: baseline.bin } : {});
      loads[kind] = createLoad({ port: servers[kind].port, path: '/api/v1/tools/claim_task', token: agents.claimer.token, body: (seq) => `{"task_id":${seq + 1}}` });
    }
    for (const kind of ['before', 'after']) await loads[kind].run(CONFIG.warmupMs, false);
    await inRounds(rounds, ['before', 'after'], (kind) => loads[kind].run(CONFIG.durationMs / 2, true));
    const result = Object.fromEntries(Object.entries(loads).map(([kind, load]) => [kind, load.result()]));
    h.report.table('event_log_cost', `claim_task calls/s with the event row (now) and before the event log (${BASE_REV}), ${CONFIG.concurrency} clients, ${rounds} alternating rounds of ${CONFIG.durationMs / 2000} s, SQLite synchronous=FULL`, [
      'daemon',
      'calls/s',
      'p50 ms',
      'p99 ms',
      'errors',
    ]);
    for (const [kind, r] of Object.entries(result)) h.report.row('event_log_cost', [kind, h.fmt.rps(r.rps), h.fmt.ms(r.p50), h.fmt.ms(r.p99), String(r.errors)]);
    const ratio = h.against(result.after.rps, result.before.rps, { atLeast: 0.9 });
    h.report.target('the event row costs < 10% of claim throughput', `${ratio.text} of before (${h.fmt.rps(result.after.rps)} vs ${h.fmt.rps(result.before.rps)} calls/s)`, ratio.holds);
  } finally {
    for (const load of Object.values(loads)) load.close();
    await Promise.all(Object.values(servers).map((s) => h.stopServer(s)));
    baseline.remove();
  }
}

/** A TCP relay in front of PostgreSQL for one daemon: cut() ends its connections and refuses new ones until restore(). */
async function relayTo(port) {
  const sockets = new Set();
  let open = true;
  const server = net.createServer((client) => {
    if (!open) return client.destroy();
    const upstream = net.connect(port, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    cut() {
      open = false;
      for (const s of sockets) s.destroy();
    },
    restore() {
      open = true;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** A 10 s outage of daemon A's database link, 10,000 changes written through B meanwhile, and A's replay after it. */
export async function benchListenReplay(h, { events = 10_000, outageMs = 10_000 } = {}) {
  if (!PG_ADMIN_URL) return h.report.note('listen_replay: skipped, no PostgreSQL (set ROUNDTABLE_BENCH_PG_URL, e.g. from `eval "$(scripts/pg-cluster.sh start)"`)');
  const dir = h.makeTempDir();
  const { path: agentsPath, agents } = h.writeAgents(dir);
  const url = await createBenchDatabase('replay');
  const relay = await relayTo(Number(new URL(url).port));
  const relayed = new URL(url);
  relayed.port = String(relay.port);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const daemons = [];
  try {
    daemons.push(await h.startDaemon(join(dir, 'a.db'), agentsPath, undefined, { env: { ROUNDTABLE_DATABASE_URL: relayed.toString(), ROUNDTABLE_LOG_LEVEL: 'warn' } }));
    daemons.push(await h.startDaemon(join(dir, 'b.db'), agentsPath, undefined, { env: { ROUNDTABLE_DATABASE_URL: url } }));
    const [a, b] = daemons;
    const cutAt = performance.now();
    relay.cut();
    // 10,000 changes through B: room messages, each one event row, from 16 writers.
    let written = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (written < events) {
          written++;
          await tool(agent, b.port, agents.lead.token, 'post', { to: 'all', text: 'x' });
        }
      }),
    );
    const writeMs = performance.now() - cutAt;
    await sleep(Math.max(0, outageMs - writeMs));
    const restored = performance.now();
    relay.restore();
    const replayed = () => {
      const text = a.stderrTail().split('\n').find((l) => l.includes('were read from the event log'));
      return text && [null, /"events":(\d+)/.exec(text)?.[1], /"ms":(\d+)/.exec(text)?.[1]];
    };
    let line;
    while (!(line = replayed())) {
      if (performance.now() - restored > 60_000) throw new Error(`listen_replay: no replay logged\n${a.stderrTail()}`);
      await sleep(5);
    }
    const seen = performance.now() - restored;
    h.report.table('listen_replay', `PostgreSQL: daemon A's link cut for ${outageMs / 1000} s while ${events} changes are written through daemon B (in ${(writeMs / 1000).toFixed(1)} s); A replays its event log once its listener is back`, [
      'events replayed',
      'replay ms',
      'link restored -> replay logged, ms (reconnect backoff included)',
    ]);
    h.report.row('listen_replay', [line[1], line[2], h.fmt.ms(seen)]);
  } finally {
    agent.destroy();
    for (const d of daemons) await h.stopServer(d);
    await relay.close();
  }
}
