// Bench section minimal_route (issues 27 and 37): durable claim_task at 50 clients and get_task at 10 clients, through
// the daemon now, the daemon before issue 37 (built from git), the bare route (bench/bare-server.mjs: the daemon's own
// schema and SQL, no framework) and the minimal route (bench/minimal-server.mjs: three tables, no triggers, one
// transaction per call; its reads write no audit row). Interleaved rounds; each round gives each server the same closed-loop load for the same
// time and reads the server process's CPU time (/proc) before and after, so CPU per call is CPU time over the calls
// it answered in that time. Medians with their spread (min-max) over the rounds, both ratios side by side.
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CONFIG,
  ROOT,
  buildDaemonAt,
  schemaVersionAt,
  copyDurably,
  cpuMs,
  createLoad,
  envInt,
  fmt,
  makeTempDir,
  median,
  report,
  seedClaimBoard,
  seedGetTaskBoard,
  startBare,
  startDaemon,
  startServer,
  stopServer,
  writeAgents,
} from './harness.mjs';

/** main's commit just before issue 37: what "the daemon before" is built from (BENCH_MINIMAL_BEFORE_REV picks another). */
const BEFORE_REV = process.env.BENCH_MINIMAL_BEFORE_REV ?? '2440ed8';
/** Issue 37's targets: calls/s against the minimal route, and CPU per call (ms). */
export const MINIMAL_TARGETS = { claim_task: { ratio: 1.3, cpuMs: 0.6 }, get_task: { ratio: 0.5, cpuMs: 0.5 } };
const ROUNDS = envInt('BENCH_MINIMAL_ROUNDS', 5);
const ROUND_MS = envInt('BENCH_MINIMAL_ROUND_MS', 2000);
const MINIMAL_SCHEMA = readFileSync(join(ROOT, 'bench/minimal-schema.sql'), 'utf8');

/** The minimal route's board: `claims` open tasks, or 1,000 done tasks with 4 activity rows each (get_task). */
export function seedMinimal(path, kind) {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.exec(MINIMAL_SCHEMA);
  const task = db.prepare("INSERT INTO tasks (id, title, description, status, assignee, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'lead', ?, ?)");
  const activity = db.prepare('INSERT INTO activity (task_id, agent, action, from_status, to_status, created_at) VALUES (?, ?, ?, ?, ?, ?)');
  const at = '2025-01-01T00:00:00.000Z';
  const description = 'a task description of about forty words, '.repeat(6);
  db.transaction(() => {
    if (kind === 'claim') {
      for (let id = 1; id <= CONFIG.claimTasks; id++) {
        task.run(id, `Task ${id}: claim me`, description, 'open', null, at, at);
        activity.run(id, 'lead', 'created', null, 'open', at);
      }
    } else {
      for (let id = 1; id <= CONFIG.getTaskTasks; id++) {
        task.run(id, `Task ${id}: read me`, description, 'done', 'reader', at, at);
        for (const [from, to, action] of [[null, 'open', 'created'], ['open', 'claimed', 'claimed'], ['claimed', 'submitted', 'submitted'], ['submitted', 'done', 'approved']]) {
          activity.run(id, 'reader', action, from, to, at);
        }
      }
    }
  })();
  db.close();
}

export const startMinimal = (dbPath, agentName) => startServer('minimal', [join(ROOT, 'bench/minimal-server.mjs')], { MINIMAL_DB_PATH: dbPath, MINIMAL_AGENT: agentName });

const spread = (xs, f) => `${f(median(xs))} (${f(Math.min(...xs))}-${f(Math.max(...xs))})`;

export async function benchMinimalRoute() {
  const dir = makeTempDir();
  const { path: agentsPath, agents } = writeAgents(dir);
  process.stderr.write(`bench: minimal_route: building the daemon at ${BEFORE_REV}...\n`);
  const before = buildDaemonAt(BEFORE_REV, dir, 'before');
  const names = ['daemon now', 'daemon before', 'bare', 'minimal'];
  const table = report.table(
    'minimal_route',
    `Durable calls beside two baselines, ${ROUNDS} interleaved rounds of ${ROUND_MS} ms each (after a ${CONFIG.warmupMs} ms warm-up): the daemon now, the daemon at ${BEFORE_REV} (before issue 37), the bare route (the daemon's schema and SQL, no framework) and the minimal route (tasks, activity and audit tables only; a claim commits its audit row, a get_task is a read transaction with no audit row); median (min-max) over the rounds; CPU per call is the server process's user + system time (/proc) over the calls it answered`,
    ['call', 'server', 'calls/s', 'CPU ms per call', 'vs bare', 'vs minimal'],
  );
  try {
    for (const [tool, clients, agentName] of [
      ['claim_task', 50, 'claimer'],
      ['get_task', 10, 'reader'],
    ]) {
      const seedPath = join(dir, `${tool}-seed.db`);
      const minimalSeed = join(dir, `${tool}-minimal-seed.db`);
      const beforeSeed = join(dir, `${tool}-before-seed.db`);
      (tool === 'claim_task' ? seedClaimBoard : seedGetTaskBoard)(seedPath);
      // The daemon before refuses a schema newer than its own: its copy stops at its last migration.
      (tool === 'claim_task' ? seedClaimBoard : seedGetTaskBoard)(beforeSeed, { upTo: schemaVersionAt(BEFORE_REV) });
      seedMinimal(minimalSeed, tool === 'claim_task' ? 'claim' : 'get');
      const db = (name) => {
        const path = join(dir, `${tool}-${name.replace(/\W+/g, '_')}.db`);
        copyDurably(name === 'minimal' ? minimalSeed : name === 'daemon before' ? beforeSeed : seedPath, path);
        return path;
      };
      const servers = {};
      const loads = {};
      try {
        // At the daemon's default log level (info), a line per request and per tool call: what a user runs.
        servers['daemon now'] = await startDaemon(db('daemon now'), agentsPath, undefined, { logLevel: 'info' });
        servers['daemon before'] = await startDaemon(db('daemon before'), agentsPath, undefined, { bin: before.bin, logLevel: 'info' });
        servers.bare = await startBare(db('bare'), agentName, { synchronous: 'FULL' });
        servers.minimal = await startMinimal(db('minimal'), agentName);
        // Each server claims its own next open task; get_task cycles over the 1,000 seeded tasks.
        for (const name of names) {
          let next = 1;
          const body = tool === 'claim_task' ? () => `{"task_id":${next++}}` : (seq) => `{"task_id":${(seq % CONFIG.getTaskTasks) + 1}}`;
          const token = name.startsWith('daemon') ? agents[agentName].token : undefined;
          loads[name] = createLoad({ port: servers[name].port, path: `/api/v1/tools/${tool}`, token, body, concurrency: clients });
          await loads[name].run(CONFIG.warmupMs, false);
        }
        const rps = Object.fromEntries(names.map((n) => [n, []]));
        const cpu = Object.fromEntries(names.map((n) => [n, []]));
        for (let round = 0; round < ROUNDS; round++) {
          const order = round % 2 === 0 ? names : [...names].reverse();
          for (const name of order) {
            const load = loads[name];
            const pid = servers[name].child.pid;
            const okBefore = load.result().totalOk;
            const cpuBefore = cpuMs(pid);
            const t = performance.now();
            await load.run(ROUND_MS, false);
            const seconds = (performance.now() - t) / 1000;
            const calls = load.result().totalOk - okBefore;
            rps[name].push(calls / seconds);
            cpu[name].push((cpuMs(pid) - cpuBefore) / calls);
          }
        }
        for (const name of names) {
          const r = load(loads, name);
          if (r.sent > r.totalOk) report.note(`minimal_route ${tool} via ${name}: ${r.sent - r.totalOk} of ${r.sent} calls not answered 2xx`);
        }
        const m = (n) => median(rps[n]);
        for (const name of names) {
          table.rows.push([
            `${tool} c=${clients}`,
            name,
            spread(rps[name], fmt.rps),
            spread(cpu[name], (x) => x.toFixed(3)),
            name === 'bare' ? '' : fmt.ratio(m(name) / m('bare')),
            name === 'minimal' ? '' : fmt.ratio(m(name) / m('minimal')),
          ]);
        }
        const { ratio: target, cpuMs: cpuTarget } = MINIMAL_TARGETS[tool];
        const ratio = m('daemon now') / m('minimal');
        const perRound = rps['daemon now'].map((x, i) => x / rps.minimal[i]);
        report.target(
          `${tool} at ${clients} clients >= ${target.toFixed(1)}x the minimal route${tool === 'get_task' ? ' (its read writes no audit row; ours is durable before the answer)' : ''}`,
          `${fmt.ratio(ratio)} (per round ${fmt.ratio(Math.min(...perRound))}-${fmt.ratio(Math.max(...perRound))}; ${fmt.rps(m('daemon now'))} vs ${fmt.rps(m('minimal'))} calls/s; before ${fmt.ratio(m('daemon before') / m('minimal'))})`,
          ratio >= target,
        );
        report.target(
          `${tool} CPU per call <= ${cpuTarget} ms`,
          `${spread(cpu['daemon now'], (x) => x.toFixed(3))} ms (before, ${BEFORE_REV}: ${median(cpu['daemon before']).toFixed(3)} ms)`,
          median(cpu['daemon now']) <= cpuTarget,
        );
      } finally {
        for (const l of Object.values(loads)) l.close();
        await Promise.all(Object.values(servers).map((s) => stopServer(s)));
      }
    }
  } finally {
    before.remove();
  }
}

const load = (loads, name) => loads[name].result();
