// Bench section mcp_connect: how long an MCP client takes from connect() to its first tools/list answer on /mcp, for a
// v2 SDK client (negotiating: server/discover first, initialize if the server does not know it) and a 2025 client
// (initialize, 2025-11-25), against today's daemon and the daemon before the v2 SDK (issue 23), built from git.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { httpClient } from './mcp-clients.mjs';
import { buildDaemonAt, fmt, makeTempDir, percentiles, report, revisionBefore, ROOT, startDaemon, stopServer, writeAgents } from './harness.mjs';

const PROBE = join(ROOT, 'bench/mcp-connect-probe.mjs');
const CLIENTS = {
  v2: { mode: 'auto', label: 'v2 SDK client (server/discover, else initialize)' },
  legacy: { mode: 'legacy', label: '2025 client (initialize, 2025-11-25; v2 SDK in its default mode)' },
};

/** One connect in a fresh node process (the SDK client loaded, nothing else warmed): its times from connect(). */
function coldConnect(url, mode, token) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [PROBE, url, mode], { env: { PATH: process.env.PATH, ROUNDTABLE_TOKEN: token }, timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`connect probe (${mode}) failed: ${error.message}\n${stderr}`));
      resolve(JSON.parse(stdout.trim().split('\n').at(-1)));
    });
  });
}

/** One connect in this (warm) process. */
async function warmConnect(url, mode, token) {
  const t0 = performance.now();
  const { client, close } = await httpClient({ url, token, mode });
  await client.listTools();
  const listMs = performance.now() - t0;
  const era = client.getProtocolEra();
  await close();
  return { listMs, era };
}

export async function benchMcpConnect() {
  const dir = makeTempDir();
  const { path: agentsPath, agents } = writeAgents(dir);
  const rev = process.env.BENCH_MCP_BASELINE_REV ?? revisionBefore('daemon/src/mcp-plain-call.ts');
  const baseline = buildDaemonAt(rev, dir, 'mcp-baseline');
  const servers = {};
  try {
    servers.before = await startDaemon(join(dir, 'before.db'), agentsPath, undefined, { bin: baseline.bin });
    servers.today = await startDaemon(join(dir, 'today.db'), agentsPath, undefined);
    const token = agents.reader.token;
    const combos = ['before', 'today'].flatMap((daemon) => Object.keys(CLIENTS).map((client) => ({ daemon, client, key: `${daemon}/${client}` })));
    const url = (daemon) => `http://127.0.0.1:${servers[daemon].port}/mcp`;
    const cold = Object.fromEntries(combos.map((c) => [c.key, []]));
    const warm = Object.fromEntries(combos.map((c) => [c.key, []]));
    const eras = Object.fromEntries(combos.map((c) => [c.key, new Set()]));
    const coldRuns = Number(process.env.BENCH_MCP_COLD_CONNECTS ?? 9);
    const warmRuns = Number(process.env.BENCH_MCP_WARM_CONNECTS ?? 50);
    // One unmeasured connect each (page cache, the daemons' JIT), then the measured ones, taking turns.
    for (const c of combos) await coldConnect(url(c.daemon), CLIENTS[c.client].mode, token);
    for (let i = 0; i < coldRuns; i++) {
      for (const c of i % 2 ? [...combos].reverse() : combos) {
        const r = await coldConnect(url(c.daemon), CLIENTS[c.client].mode, token);
        cold[c.key].push(r.listMs);
        eras[c.key].add(r.era);
      }
    }
    for (const c of combos) for (let i = 0; i < 5; i++) await warmConnect(url(c.daemon), CLIENTS[c.client].mode, token);
    for (let i = 0; i < warmRuns; i++) {
      for (const c of i % 2 ? [...combos].reverse() : combos) {
        const r = await warmConnect(url(c.daemon), CLIENTS[c.client].mode, token);
        warm[c.key].push(r.listMs);
        eras[c.key].add(r.era);
      }
    }
    const p = Object.fromEntries(combos.map((c) => [c.key, { cold: percentiles(cold[c.key]), warm: percentiles(warm[c.key]) }]));
    report.table(
      'mcp_connect',
      `connect() to the first tools/list answer on /mcp: ${coldRuns} connects each in a fresh process (cold) and ${warmRuns} in the bench's own (warm), taking turns; before = ${rev}`,
      ['daemon', 'client', 'revision it landed on', 'cold p50 ms', 'cold max ms', 'warm p50 ms', 'warm p99 ms'],
    );
    for (const c of combos) {
      report.row('mcp_connect', [
        c.daemon,
        CLIENTS[c.client].label,
        [...eras[c.key]].join('/'),
        fmt.ms(p[c.key].cold.p50),
        fmt.ms(Math.max(...cold[c.key])),
        fmt.ms(p[c.key].warm.p50),
        fmt.ms(p[c.key].warm.p99),
      ]);
    }
    for (const kind of ['cold', 'warm']) {
      const ratio = p['today/v2'][kind].p50 / p['before/v2'][kind].p50;
      report.target(
        `v2 client connects to tools/list in < 0.5x the fallback before (${kind} p50)`,
        `${fmt.ratio(ratio)} (${fmt.ms(p['today/v2'][kind].p50)} vs ${fmt.ms(p['before/v2'][kind].p50)} ms)`,
        ratio < 0.5,
      );
    }
    const legacyRatio = p['today/legacy'].warm.p50 / p['before/legacy'].warm.p50;
    report.note(`mcp_connect: a 2025 client's warm connect today is ${fmt.ratio(legacyRatio)} of before (${fmt.ms(p['today/legacy'].warm.p50)} vs ${fmt.ms(p['before/legacy'].warm.p50)} ms)`);
    if (!eras['today/v2'].has('modern') || eras['today/v2'].size !== 1) report.note(`mcp_connect: the v2 client landed on ${[...eras['today/v2']].join('/')} today, not modern`);
  } finally {
    await Promise.all(Object.values(servers).map((s) => stopServer(s)));
    baseline.remove();
  }
}
