// Bench sections for durable writes and what a call costs (issue 15): throughput beside bare routes at synchronous=FULL
// and NORMAL, get_task beside a bare SELECT, CPU per call with a profile summary, a lone write beside the daemon before
// group commit (built from git), /mcp beside the JSON API, and waking 1,000 waiters beside a long-poll server.
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import {
  CONFIG,
  ROOT,
  against,
  buildDaemonAt,
  copyDurably,
  cpuMs,
  createLoad,
  fmt,
  inRounds,
  makeTempDir,
  median,
  percentiles,
  post,
  report,
  revisionBefore,
  schemaVersionAt,
  seedClaimBoard,
  seedGetTaskBoard,
  startBare,
  startDaemon,
  startServer,
  stopServer,
  WAITS_PER_AGENT,
  writeAgents,
} from './harness.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const SLICE_MS = 500;

/** Servers side by side, each on its own copy of one seeded database; `make` starts them by name. */
async function withServers(seed, make, fn) {
  const dir = makeTempDir();
  const { path: agentsPath, agents } = writeAgents(dir);
  const seedPath = join(dir, 'seed.db');
  seed(seedPath);
  const servers = {};
  try {
    for (const [name, start] of Object.entries(make)) {
      const dbPath = join(dir, `${name.replace(/\W+/g, '_')}.db`);
      copyDurably(seedPath, dbPath);
      servers[name] = await start({ dbPath, agentsPath, dir });
    }
    return await fn({ servers, agents, dir });
  } finally {
    await Promise.all(Object.values(servers).map((s) => stopServer(s)));
  }
}

/**
 * Drives every server with the same closed-loop load (`clients` requests in flight), a warm-up each, then alternating
 * slices until each has had durationMs; body(name, seq) gives a request's JSON. Returns name -> the load's result.
 */
async function sideBySideLoad({ servers, path, token, body, clients }) {
  const names = Object.keys(servers);
  const loads = {};
  try {
    for (const name of names) {
      loads[name] = createLoad({ port: servers[name].port, path, token: token(name), body: (seq) => body(name, seq), concurrency: clients });
      await loads[name].run(CONFIG.warmupMs, false);
    }
    const slices = Math.max(1, Math.round(CONFIG.durationMs / SLICE_MS));
    for (let i = 0; i < slices; i++) {
      const order = i % 2 === 0 ? names : [...names].reverse();
      for (const name of order) await loads[name].run(CONFIG.durationMs / slices, true);
    }
  } finally {
    for (const load of Object.values(loads)) load.close();
  }
  const results = Object.fromEntries(names.map((n) => [n, loads[n].result()]));
  for (const [n, r] of Object.entries(results)) if (r.errors > 0) report.note(`${path} via ${n}: ${r.errors} errors, first: ${r.firstError}`);
  return results;
}

const daemonStart = (env) => ({ dbPath, agentsPath }) => startDaemon(dbPath, agentsPath, undefined, env ? { env } : {});
const bareStart = (agentName, options) => ({ dbPath }) => startBare(dbPath, agentName, options);

export async function benchDurableWrites() {
  const table = report.table(
    'durable_writes',
    `Durable writes: calls/s with N clients in flight, the daemon (group commit, synchronous=FULL) beside a bare Hono + better-sqlite3 route doing the same SQL in one transaction per call, at FULL and at NORMAL (${CONFIG.warmupMs} ms warm-up, ${CONFIG.durationMs} ms measured each, ${SLICE_MS} ms alternating slices)`,
    ['tool', 'clients', 'daemon calls/s', 'bare FULL', 'bare NORMAL', 'daemon / FULL', 'daemon / NORMAL', 'p50 ms daemon / FULL / NORMAL'],
  );
  for (const tool of ['claim_task', 'create_task']) {
    const agentName = tool === 'claim_task' ? 'claimer' : 'lead';
    await withServers(
      seedClaimBoard,
      { daemon: daemonStart(), 'bare FULL': bareStart(agentName, { synchronous: 'FULL' }), 'bare NORMAL': bareStart(agentName, { synchronous: 'NORMAL' }) },
      async ({ servers, agents }) => {
        // Each server claims its own next open task across both client counts, so no claim is refused.
        const next = Object.fromEntries(Object.keys(servers).map((n) => [n, 1]));
        for (const clients of [10, 50]) {
          const r = await sideBySideLoad({
            servers,
            path: `/api/v1/tools/${tool}`,
            token: (n) => (n === 'daemon' ? agents[agentName].token : undefined),
            body: (n) => (tool === 'claim_task' ? `{"task_id":${next[n]++}}` : `{"title":"bench task ${next[n]++}"}`),
            clients,
          });
          const full = against(r.daemon.rps, r['bare FULL'].rps, clients === 50 ? { atLeast: 1.2 } : undefined);
          const normal = against(r.daemon.rps, r['bare NORMAL'].rps, clients === 50 ? { atLeast: 0.7 } : undefined);
          table.rows.push([
            tool,
            clients,
            fmt.rps(r.daemon.rps),
            fmt.rps(r['bare FULL'].rps),
            fmt.rps(r['bare NORMAL'].rps),
            full.text,
            normal.text,
            `${fmt.ms(r.daemon.p50)} / ${fmt.ms(r['bare FULL'].p50)} / ${fmt.ms(r['bare NORMAL'].p50)}`,
          ]);
          if (clients === 50) {
            report.target(`${tool} at 50 clients >= 1.2x the bare FULL route`, `${full.text} (${fmt.rps(r.daemon.rps)} vs ${fmt.rps(r['bare FULL'].rps)} calls/s)`, full.holds);
            report.target(`${tool} at 50 clients >= 0.7x the bare NORMAL route`, `${normal.text} (vs ${fmt.rps(r['bare NORMAL'].rps)} calls/s)`, normal.holds);
          }
        }
      },
    );
  }
}

export async function benchGetTask10() {
  const n = 1000;
  await withServers(seedGetTaskBoard, { daemon: daemonStart(), 'bare, no audit': bareStart('reader', { readAudit: false }) }, async ({ servers, agents }) => {
    const r = await sideBySideLoad({
      servers,
      path: '/api/v1/tools/get_task',
      token: (name) => (name === 'daemon' ? agents.reader.token : undefined),
      body: (_name, seq) => `{"task_id":${(seq % n) + 1}}`,
      clients: 10,
    });
    const ratio = against(r.daemon.rps, r['bare, no audit'].rps, { atLeast: 0.4 });
    report.table('get_task_10', 'get_task at 10 clients: the daemon (audit row per call, group-committed) beside a bare route doing the same SELECT with no audit', [
      'server',
      'calls/s',
      'p50 ms',
      'p99 ms',
    ]);
    for (const [name, res] of Object.entries(r)) report.row('get_task_10', [name, fmt.rps(res.rps), fmt.ms(res.p50), fmt.ms(res.p99)]);
    report.row('get_task_10', ['daemon / bare', ratio.text, '', '']);
    report.target('get_task at 10 clients >= 0.4x a bare SELECT with no audit', `${ratio.text} (${fmt.rps(r.daemon.rps)} vs ${fmt.rps(r['bare, no audit'].rps)} calls/s)`, ratio.holds);
  });
}

/** CPU per call: a fixed number of calls with 10 in flight, the server's /proc CPU time before and after. */
async function cpuPerCall(server, { path, token, body, calls, headers }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 10 });
  let seq = 0;
  const send = () => (headers ? postWithHeaders(agent, server.port, path, { ...headers, ...(token && { authorization: `Bearer ${token}` }) }, body(seq++)) : post(agent, server.port, path, token, body(seq++)));
  try {
    for (let i = 0; i < 200; i++) await send(); // warm-up
    globalThis.gc?.();
    const before = cpuMs(server.child.pid);
    let failed = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (seq < 200 + calls) if ((await send()).status !== 200) failed++;
      }),
    );
    if (failed) report.note(`${path}: ${failed} of ${calls} calls failed while measuring CPU`);
    return (cpuMs(server.child.pid) - before) / calls;
  } finally {
    agent.destroy();
  }
}

function postWithHeaders(agent, port, path, headers, body) {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', (error) => resolve({ status: 0, error }));
    req.end(body);
  });
}

/** Self time per category and the heaviest functions of a .cpuprofile (V8's sampling profile). */
function summarizeProfile(file) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const deltas = profile.timeDeltas ?? [];
  const self = new Map();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (deltas[i] ?? 0)));
  const category = (frame) => {
    const url = frame.url ?? '';
    if (frame.functionName === '(garbage collector)') return 'garbage collection';
    if (frame.functionName === '(idle)' || frame.functionName === '(program)') return frame.functionName;
    if (url.includes('better-sqlite3') || frame.functionName.startsWith('sqlite')) return 'better-sqlite3 (SQL)';
    if (url.includes('/hono/') || url.includes('@hono')) return 'hono + node-server';
    if (url.includes('@modelcontextprotocol')) return 'MCP SDK';
    if (url.includes('/zod/')) return 'zod';
    if (url.includes('/pino') || url.includes('sonic-boom')) return 'logging (pino)';
    if (url.includes('roundtable') || url.includes('/bundle/')) return 'roundtable (daemon + shared)';
    if (url.startsWith('node:') || url === '') return 'node internals (http, streams, native)';
    return 'other modules';
  };
  const cats = new Map();
  const fns = new Map();
  let busy = 0;
  for (const [id, us] of self) {
    const frame = byId.get(id).callFrame;
    const cat = category(frame);
    if (cat === '(idle)') continue;
    busy += us;
    cats.set(cat, (cats.get(cat) ?? 0) + us);
    const key = `${frame.functionName || '(anonymous)'} ${frame.url.split('/').slice(-2).join('/')}`;
    fns.set(key, (fns.get(key) ?? 0) + us);
  }
  const share = (us) => `${((us / busy) * 100).toFixed(0)}%`;
  return {
    categories: [...cats].sort((a, b) => b[1] - a[1]).map(([c, us]) => `${c} ${share(us)}`).join(', '),
    top: [...fns].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([f, us]) => `${f} ${share(us)}`).join('; '),
  };
}

export async function benchCpuPerCall() {
  const calls = 3000;
  const table = report.table('cpu_per_call', `CPU per call (user + system of the server process, /proc, over ${calls} calls with 10 in flight)`, ['call', 'daemon ms', 'bare ms', 'daemon / bare']);
  const profiles = [];
  for (const [tool, agentName, seed, bareOptions] of [
    ['claim_task', 'claimer', seedClaimBoard, { synchronous: 'FULL' }],
    ['get_task', 'reader', seedGetTaskBoard, { readAudit: false }],
  ]) {
    // Each server claims its own next open task across the rounds; get_task cycles over the 1,000 seeded tasks.
    const next = { daemon: 1, bare: 1, profiled: 1 };
    const body = (name) => () => (tool === 'claim_task' ? `{"task_id":${next[name]++}}` : `{"task_id":${(next[name]++ % 1000) + 1}}`);
    await withServers(seed, { daemon: daemonStart(), bare: bareStart(agentName, bareOptions) }, async ({ servers, agents }) => {
      const measured = await inRounds(3, ['daemon', 'bare'], (name) =>
        cpuPerCall(servers[name], { path: `/api/v1/tools/${tool}`, token: name === 'daemon' ? agents[agentName].token : undefined, body: body(name), calls }),
      );
      const d = median(measured.daemon);
      const b = median(measured.bare);
      table.rows.push([tool, d.toFixed(3), b.toFixed(3), against(d, b).text]);
    });
    // The profile: the same load on a daemon started with --cpu-prof, summarized when it exits.
    const dir = makeTempDir();
    const { path: agentsPath, agents } = writeAgents(dir);
    const dbPath = join(dir, 'profiled.db');
    seed(dbPath);
    const profDir = join(dir, 'prof');
    const server = await startDaemon(dbPath, agentsPath, undefined, { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profDir}`] });
    try {
      await cpuPerCall(server, { path: `/api/v1/tools/${tool}`, token: agents[agentName].token, body: body('profiled'), calls });
    } finally {
      await stopServer(server);
    }
    const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
    if (file) profiles.push([tool, summarizeProfile(join(profDir, file))]);
  }
  report.table('cpu_profile', 'Where the daemon spends its CPU (V8 sampling profile over the same load, self time by module; then the heaviest functions)', ['call', 'by module', 'heaviest functions']);
  for (const [tool, p] of profiles) report.row('cpu_profile', [tool, p.categories, p.top]);
}

/** main's commit just before issue 37, whose reads' audit rows committed with the fsync on the event loop. */
const LONE_READ_BEFORE_REV = process.env.BENCH_LONE_READ_BEFORE_REV ?? '2440ed8';

/**
 * A lone read (issue 37): get_task with one client, the daemon now (its audit row durable before the answer, the
 * group's fsync off the event loop) beside the daemon before issue 37 and a bare route doing the same SELECT with no
 * audit row; 1,000 calls each in alternating blocks of 50.
 */
export async function benchLoneRead() {
  const dir = makeTempDir();
  const { path: agentsPath, agents } = writeAgents(dir);
  const baseline = buildDaemonAt(LONE_READ_BEFORE_REV, dir, 'before-lone-read');
  const servers = {};
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const seedPath = join(dir, 'seed.db');
    seedGetTaskBoard(seedPath);
    const beforeSeed = join(dir, 'before-seed.db');
    seedGetTaskBoard(beforeSeed, { upTo: schemaVersionAt(LONE_READ_BEFORE_REV) });
    const copy = (from, name) => {
      const path = join(dir, `${name}.db`);
      copyDurably(from, path);
      return path;
    };
    servers.now = await startDaemon(copy(seedPath, 'now'), agentsPath, undefined, { logLevel: 'info' });
    servers.before = await startDaemon(copy(beforeSeed, 'before'), agentsPath, undefined, { bin: baseline.bin, logLevel: 'info' });
    servers['bare, no audit'] = await startBare(copy(seedPath, 'bare'), 'reader', { readAudit: false });
    const block = async (name) => {
      const samples = [];
      for (let i = 0; i < 50; i++) {
        const t = performance.now();
        const res = await post(agent, servers[name].port, '/api/v1/tools/get_task', name === 'bare, no audit' ? undefined : agents.reader.token, `{"task_id":${(i * 37) % 1000 + 1}}`);
        if (res.status !== 200) throw new Error(`get_task via ${name}: HTTP ${res.status}`);
        samples.push(performance.now() - t);
      }
      return samples;
    };
    const names = ['now', 'before', 'bare, no audit'];
    await inRounds(2, names, block); // warm-up
    const measured = await inRounds(20, names, block);
    const p = Object.fromEntries(Object.entries(measured).map(([n, blocks]) => [n, percentiles(blocks.flat())]));
    report.table('lone_read', `A lone read: get_task with one client, 1,000 calls each in alternating blocks of 50: the daemon now, the daemon before issue 37 (${LONE_READ_BEFORE_REV}), and a bare route with no audit row`, ['server', 'p50 ms', 'p99 ms', 'mean ms']);
    for (const [n, q] of Object.entries(p)) report.row('lone_read', [n, fmt.ms(q.p50), fmt.ms(q.p99), fmt.ms(q.mean)]);
    const ratio = against(p.now.p50, p.before.p50, { atMost: 1.1 });
    report.target(`a lone get_task, its audit row durable first, no worse than 1.1x before issue 37 (p50)`, `${ratio.text} (${fmt.ms(p.now.p50)} vs ${fmt.ms(p.before.p50)} ms; no audit ${fmt.ms(p['bare, no audit'].p50)} ms)`, ratio.holds);
  } finally {
    agent.destroy();
    await Promise.all(Object.values(servers).map((s) => stopServer(s)));
    baseline.remove();
  }
}

export async function benchLoneWrite() {
  const dir = makeTempDir();
  const { path: agentsPath, agents } = writeAgents(dir);
  const rev = process.env.BENCH_BASELINE_REV ?? revisionBefore('daemon/src/store/group-commit.ts');
  const baseline = buildDaemonAt(rev, dir);
  const servers = {};
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    servers.before = await startDaemon(join(dir, 'before.db'), agentsPath, undefined, { bin: baseline.bin });
    servers.today = await startDaemon(join(dir, 'today.db'), agentsPath, undefined);
    const token = agents.lead.token;
    const block = async (name) => {
      const samples = [];
      for (let i = 0; i < 50; i++) {
        const t = performance.now();
        const res = await post(agent, servers[name].port, '/api/v1/tools/create_task', token, `{"title":"lone ${i}"}`);
        if (res.status !== 200) throw new Error(`create_task via ${name}: HTTP ${res.status}`);
        samples.push(performance.now() - t);
      }
      return samples;
    };
    await inRounds(2, ['before', 'today'], block); // warm-up
    const measured = await inRounds(20, ['before', 'today'], block);
    const p = Object.fromEntries(Object.entries(measured).map(([n, blocks]) => [n, percentiles(blocks.flat())]));
    const ratio = against(p.today.p50, p.before.p50, { atMost: 1.1 });
    report.table('lone_write', `A lone write: create_task with one client, 1,000 calls each in alternating blocks of 50, today beside the daemon before group commit (${rev})`, [
      'daemon',
      'p50 ms',
      'p99 ms',
      'mean ms',
    ]);
    for (const [n, q] of Object.entries(p)) report.row('lone_write', [n, fmt.ms(q.p50), fmt.ms(q.p99), fmt.ms(q.mean)]);
    report.target('a lone write no worse than 1.1x before group commit (p50)', `${ratio.text} (${fmt.ms(p.today.p50)} vs ${fmt.ms(p.before.p50)} ms)`, ratio.holds);
  } finally {
    agent.destroy();
    await Promise.all(Object.values(servers).map((s) => stopServer(s)));
    baseline.remove();
  }
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
/** What a 2026-07-28 client sends with a tools/call: the revision, the method and the tool's name as headers too. */
const MODERN_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'get_task' };
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'roundtable-bench', version: '0.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

export async function benchMcpCost() {
  const calls = 3000;
  await withServers(seedGetTaskBoard, { daemon: daemonStart() }, async ({ servers, agents }) => {
    const daemon = servers.daemon;
    const token = agents.reader.token;
    const args = (seq) => ({ task_id: (seq % 1000) + 1 });
    const faces = {
      'JSON API': { path: '/api/v1/tools/get_task', token, body: (seq) => JSON.stringify(args(seq)) },
      '/mcp tools/call, 2026-07-28': {
        path: '/mcp',
        token,
        headers: MODERN_HEADERS,
        body: (seq) => JSON.stringify({ jsonrpc: '2.0', id: seq, method: 'tools/call', params: { name: 'get_task', arguments: args(seq), _meta: ENVELOPE } }),
      },
      '/mcp tools/call, 2025-06-18': {
        path: '/mcp',
        token,
        headers: MCP_HEADERS,
        body: (seq) => JSON.stringify({ jsonrpc: '2.0', id: seq, method: 'tools/call', params: { name: 'get_task', arguments: args(seq) } }),
      },
      // Not the plainest shape (a progressToken in _meta): what the same call costs through the SDK's server.
      'reference: /mcp tools/call through the SDK, 2026-07-28': {
        path: '/mcp',
        token,
        headers: MODERN_HEADERS,
        body: (seq) => JSON.stringify({ jsonrpc: '2.0', id: seq, method: 'tools/call', params: { name: 'get_task', arguments: args(seq), _meta: { ...ENVELOPE, progressToken: seq } } }),
      },
    };
    const measured = await inRounds(3, Object.keys(faces), (name) => cpuPerCall(daemon, { ...faces[name], calls }));
    const api = median(measured['JSON API']);
    report.table('mcp_cost', `CPU per get_task call on the daemon's two faces (median of 3 rounds of ${calls} calls, 10 in flight)`, ['face', 'CPU ms per call', 'vs JSON API']);
    for (const name of Object.keys(faces)) {
      const cpu = median(measured[name]);
      report.row('mcp_cost', [name, cpu.toFixed(3), name === 'JSON API' ? '' : against(cpu, api).text]);
    }
    for (const name of ['/mcp tools/call, 2026-07-28', '/mcp tools/call, 2025-06-18']) {
      const ratio = against(median(measured[name]), api, { atMost: 1.1 });
      report.target(`${name.slice(5)} CPU <= 1.1x the JSON API`, ratio.text, ratio.holds);
    }
  });
}

/** Parks `count` long-poll requests, fires `wake`, and returns each request's latency from the wake to its answer. */
async function wakeRound({ port, count, park, wake, settleMs }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: count + 4 });
  try {
    const answers = Array.from({ length: count }, (_, i) => park(agent, i).then((res) => ({ res, at: performance.now() })));
    await sleep(settleMs);
    const t0 = performance.now();
    await wake(agent);
    const done = await Promise.all(answers);
    const bad = done.filter((d) => d.res.status !== 200).length;
    if (bad) report.note(`wake_1000 on port ${port}: ${bad} waits did not answer 200`);
    return done.map((d) => d.at - t0);
  } finally {
    agent.destroy();
  }
}

export async function benchWake1000() {
  const count = 1000;
  const dir = makeTempDir();
  // One agent parks at most WAITS_PER_AGENT waits at once: the waits are spread over that many workers of their own.
  const { path: agentsPath, agents } = writeAgents(dir, { waiters: Math.ceil(count / WAITS_PER_AGENT) });
  const servers = {};
  try {
    servers.daemon = await startDaemon(join(dir, 'wake.db'), agentsPath);
    servers.longpoll = await startServer('longpoll', [join(ROOT, 'bench/longpoll-server.mjs')], {});
    const waiters = agents.waiters;
    const lead = agents.lead.token;
    const rounds = {
      daemon: () =>
        wakeRound({
          port: servers.daemon.port,
          count,
          settleMs: 1500,
          park: (agent, i) => post(agent, servers.daemon.port, '/api/v1/tools/wait_for_activity', waiters[i % waiters.length], '{"timeout_s":50}'),
          wake: async (agent) => {
            const res = await post(agent, servers.daemon.port, '/api/v1/tools/create_task', lead, '{"title":"for every waiter"}', true);
            rounds.last = JSON.parse(res.body).task.id;
          },
        }).finally(async () => {
          // Cancelled, so the next round's waits park instead of answering at once.
          const agent = new http.Agent({ keepAlive: false });
          await post(agent, servers.daemon.port, '/api/v1/tools/cancel_task', lead, JSON.stringify({ task_id: rounds.last, reason: 'bench round over' }));
          agent.destroy();
        }),
      longpoll: () =>
        wakeRound({
          port: servers.longpoll.port,
          count,
          settleMs: 1500,
          park: (agent) => post(agent, servers.longpoll.port, '/wait', undefined, '{}'),
          wake: (agent) => post(agent, servers.longpoll.port, '/wake', undefined, '{}'),
        }),
    };
    const measured = await inRounds(5, ['daemon', 'longpoll'], (name) => rounds[name]());
    const p = Object.fromEntries(Object.entries(measured).map(([n, r]) => [n, { ...percentiles(r.flat()), all: median(r.map((one) => Math.max(...one))) }]));
    const ratio = against(p.daemon.p50, p.longpoll.p50, { atMost: 2 });
    report.table('wake_1000', `Waking ${count} parked waiters with one event (5 rounds each, alternating): per-waiter time from the wake to its answer`, [
      'server',
      'p50 ms',
      'p99 ms',
      'last answer, median of rounds, ms',
    ]);
    report.row('wake_1000', ['daemon (create_task wakes 1,000 wait_for_activity)', fmt.ms(p.daemon.p50), fmt.ms(p.daemon.p99), fmt.ms(p.daemon.all)]);
    report.row('wake_1000', ['long-poll server, no database', fmt.ms(p.longpoll.p50), fmt.ms(p.longpoll.p99), fmt.ms(p.longpoll.all)]);
    report.target(`waking ${count} waiters p50 <= 2x a long-poll server with no database`, `${ratio.text} (${fmt.ms(p.daemon.p50)} vs ${fmt.ms(p.longpoll.p50)} ms)`, ratio.holds);
  } finally {
    await Promise.all(Object.values(servers).map((s) => stopServer(s)));
  }
}
