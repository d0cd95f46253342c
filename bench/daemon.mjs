// Bench sections for the daemon's JSON API: get_task and claim_task throughput against the bare server, list_tasks at scale.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { encodeCursor } from '../daemon/dist/board/cursor.js';
import {
  CONFIG,
  TARGETS,
  callTool,
  copyDurably,
  createLoad,
  fmt,
  makeTempDir,
  newAgent,
  percentiles,
  post,
  report,
  seedClaimBoard,
  seedGetTaskBoard,
  seedListBoard,
  startBare,
  startDaemon,
  stopServer,
  writeAgents,
} from './harness.mjs';


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

export async function benchGetTask() {
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

export async function benchClaimTask() {
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

export async function benchListTasks() {
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
