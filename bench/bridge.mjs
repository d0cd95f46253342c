// Bench sections for the bridge: cold start against other stdio servers and mcp-remote, per-call latency, memory.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { callTool as mcpCall, childEnv, coldStart, environKeys, httpClient, residentMemory, stdioClient } from './mcp-clients.mjs';
import {
  CONFIG,
  ROOT,
  TARGETS,
  buildDaemonAt,
  children,
  copyDurably,
  createBoardDb,
  fmt,
  isoAt,
  makeTempDir,
  newAgent,
  percentiles,
  post,
  prng,
  report,
  revisionBefore,
  startDaemon,
  stopServer,
  words,
  writeAgents,
} from './harness.mjs';


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
    { name: 'bare', label: 'bare MCP SDK (v2) stdio server (serveStdio, 1 tool, no network)', args: [BARE_STDIO_SERVER], env },
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

export async function benchBridgeStart() {
  // The bridge before the v2 MCP SDK (issue 23), built from git, to show what the SDK's second major line costs at start.
  const rev = process.env.BENCH_MCP_BASELINE_REV ?? revisionBefore('daemon/src/mcp-plain-call.ts');
  const baseline = buildDaemonAt(rev, makeTempDir(), 'bridge-baseline', { bundles: ['bridge'] });
  try {
    await bridgeStart(rev, baseline.bridgeBin);
  } finally {
    baseline.remove();
  }
}

async function bridgeStart(rev, beforeBin) {
  await withBridgeBoard(0, async ({ kinds: shared }) => {
    // The same bridge from tsc's unbundled output, to show what the bundle (scripts/bundle.mjs) saves.
    const unbundled = {
      name: 'bridge-unbundled',
      label: 'roundtable-bridge unbundled (bridge/dist, tsc output)',
      args: shared.bridge.args.map((a) => (a === BRIDGE_BIN ? UNBUNDLED_BRIDGE : a)),
      env: shared.bridge.env,
    };
    const before = {
      name: 'bridge-before',
      label: `roundtable-bridge before the v2 SDK (${rev.slice(0, 12)}, MCP SDK 1.32.2)`,
      args: shared.bridge.args.map((a) => (a === BRIDGE_BIN ? beforeBin : a)),
      env: shared.bridge.env,
    };
    const kinds = { bridge: shared.bridge, 'bridge-unbundled': unbundled, 'bridge-before': before, ...shared };
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
    report.note(`bridge_start: the bridge reached tools/list in ${fmt.ratio(p.bridge.list.p50 / p['bridge-before'].list.p50)} the time of the bridge before the v2 SDK (p50 ${fmt.ms(p.bridge.list.p50)} vs ${fmt.ms(p['bridge-before'].list.p50)} ms)`);
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

export async function benchBridgeCalls() {
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
      // The bridge lists every tool until whoami tells it the role (then it sends list_changed), so whoami comes first.
      for (const n of paths) await mcpCall(clients[n].client, 'whoami', {});
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

