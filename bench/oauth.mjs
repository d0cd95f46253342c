// Bench section oauth (issue 34): an app's whole sign-in (bench/oauth-flow.mjs: the MCP SDK v2 client, dynamic
// registration, the consent over HTTP, the token, the first tools/call), timed end to end and by step, on a SQLite
// daemon; then a tool call on /p/SLUG/mcp with the OAuth access token against the same call with the agent's own token
// (same daemon, same agent), 10 clients, interleaved rounds, calls/s and the daemon's CPU per call, on SQLite and, when
// a cluster is given (ROUNDTABLE_BENCH_PG_URL, bench/pg-database.mjs), on PostgreSQL.
// Knobs: BENCH_OAUTH_FLOWS (20), BENCH_OAUTH_ROUNDS (6), BENCH_OAUTH_ROUND_MS (2000), BENCH_OAUTH_TASKS (200).
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { CONFIG, cpuMs, createLoad, envInt, fmt, makeTempDir, median, post, report, sha256, sleep, startDaemon, stopServer } from './harness.mjs';
import { signInFlow, STEPS } from './oauth-flow.mjs';
import { createBenchDatabase, PG_ADMIN_URL } from './pg-database.mjs';

const FLOWS = envInt('BENCH_OAUTH_FLOWS', 20);
const ROUNDS = envInt('BENCH_OAUTH_ROUNDS', 6);
const ROUND_MS = envInt('BENCH_OAUTH_ROUND_MS', 2000);
const TASKS = envInt('BENCH_OAUTH_TASKS', 200);
const CLIENTS = 10;
const TARGET = 1.1;
const SLUG = 'web';
const AGENT = 'web-w1';

/**
 * The board's sign-ins and registrations share one limiter of 10 a minute per client address (web/index.ts,
 * SIGN_IN_ATTEMPTS_PER_MINUTE; oauth/routes.ts), and each flow takes one of each: the flows wait for the bucket between
 * them, outside their timings. This models the daemon's token bucket, full when the daemon starts.
 */
const SIGN_INS_PER_MINUTE = 10;
class SignInBudget {
  #tokens = SIGN_INS_PER_MINUTE;
  #at = performance.now();
  waitedMs = 0;
  async take(count) {
    const refill = () => {
      const now = performance.now();
      this.#tokens = Math.min(SIGN_INS_PER_MINUTE, this.#tokens + ((now - this.#at) * SIGN_INS_PER_MINUTE) / 60_000);
      this.#at = now;
    };
    refill();
    if (this.#tokens < count) {
      const waitMs = ((count - this.#tokens) * 60_000) / SIGN_INS_PER_MINUTE + 250; // a margin for the two clocks
      this.waitedMs += waitMs;
      await sleep(waitMs);
      refill();
    }
    this.#tokens -= count;
  }
}

const newToken = () => `rt_${randomBytes(32).toString('base64url')}`;
const spread = (xs, f) => `${f(median(xs))} (${f(Math.min(...xs))}-${f(Math.max(...xs))})`;
const loadText = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const progress = (text) => process.stderr.write(`bench: oauth: ${text}\n`);

/** A project `web` with a leader and a worker, and olive, who owns it; written in the catalog's projects spelling. */
function writeCatalog(dir) {
  const tokens = { 'web-lead': newToken(), [AGENT]: newToken(), olive: newToken() };
  const agent = (name, role) => ({ name, role, skills: ['typescript'], token_sha256: sha256(tokens[name]) });
  const path = join(dir, 'agents.json');
  writeFileSync(
    path,
    JSON.stringify({
      projects: [{ slug: SLUG, title: 'Web app', mode: 'role', agents: [agent('web-lead', 'leader'), agent(AGENT, 'worker')] }],
      people: [{ name: 'olive', token_sha256: sha256(tokens.olive), grants: { [SLUG]: 'owner' } }],
    }),
    { mode: 0o600 },
  );
  return { path, tokens };
}

async function startBoard(store) {
  const dir = makeTempDir();
  const catalog = writeCatalog(dir);
  const env = { ROUNDTABLE_OAUTH_REGISTRATION: 'true' };
  if (store === 'postgres') env.ROUNDTABLE_DATABASE_URL = await createBenchDatabase('oauth');
  const server = await startDaemon(join(dir, 'board.db'), catalog.path, undefined, { env });
  return { server, tokens: catalog.tokens, budget: new SignInBudget() };
}

/** TASKS tasks for get_task, created by the leader through the project's JSON API (the same on either store). */
async function seedTasks(board) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (let i = 1; i <= TASKS; i++) {
      const res = await post(agent, board.server.port, `/p/${SLUG}/api/v1/tools/create_task`, board.tokens['web-lead'], JSON.stringify({ title: `Task ${i}: review the parser cache`, description: 'add a test for the retry timeout and document the config', required_skills: ['typescript'] }), true);
      if (res.status !== 200) throw new Error(`oauth: create_task answered ${res.status} ${res.body ?? res.error}`);
    }
  } finally {
    agent.destroy();
  }
}

async function flow(board) {
  await board.budget.take(2);
  return signInFlow({ port: board.server.port, slug: SLUG, personToken: board.tokens.olive, agentName: AGENT });
}

/** 1. The whole sign-in, FLOWS times after one cold flow, one after the other. */
async function measureFlows(board) {
  const cold = await flow(board);
  const runs = [];
  for (let i = 0; i < FLOWS; i++) runs.push(await flow(board));
  const totals = runs.map((r) => r.totalMs);
  const sum = totals.reduce((a, b) => a + b, 0);
  report.note(`oauth flow: the SDK's requests in the last flow (the sign-in, consent page and consent post are the bench's own, between the first attempt and finishAuth): ${runs.at(-1).requests.join('; ')}`);
  for (const step of STEPS) {
    const xs = runs.map((r) => r.ms[step]);
    report.row('oauth_flow', [step, spread(xs, fmt.ms), `${((xs.reduce((a, b) => a + b, 0) / sum) * 100).toFixed(1)} %`]);
  }
  report.row('oauth_flow', ['whole flow', spread(totals, fmt.ms), '100 %']);
  report.row('oauth_flow', ['whole flow, the cold first one (not in the above)', fmt.ms(cold.totalMs), '']);
  report.note(`oauth flows: paced by the board's sign-in limiter (10 sign-ins and registrations a minute per address, 2 per flow); ${(board.budget.waitedMs / 1000).toFixed(0)} s of waiting between flows, outside their timings`);
}

const MCP_ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'roundtable-bench', version: '0.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
/** A stateless tools/call as a 2026-07-28 client sends it (as bench/durability.mjs's mcp_cost). */
const mcpHeaders = (tool) => ({ accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': tool });
const mcpBody = (tool) => (seq) => JSON.stringify({ jsonrpc: '2.0', id: seq, method: 'tools/call', params: { name: tool, arguments: tool === 'get_task' ? { task_id: (seq % TASKS) + 1 } : {}, _meta: MCP_ENVELOPE } });

/** One call, read: a 200 that carries a tool result, not an error (a refused token is a 401; a tool error is still a 200). */
async function checkCall(port, token, tool) {
  const agent = new http.Agent({ keepAlive: false });
  try {
    const res = await post(agent, port, `/p/${SLUG}/mcp`, token, mcpBody(tool)(0), true, mcpHeaders(tool));
    const json = res.status === 200 && JSON.parse(res.body.startsWith('{') ? res.body : /^data: (.*)$/m.exec(res.body)?.[1] ?? '{}');
    const text = json?.result?.content?.[0]?.text;
    if (!text || json.result.isError) throw new Error(`oauth: ${tool} on /p/${SLUG}/mcp answered ${res.status} ${String(res.body ?? res.error).slice(0, 300)}`);
    if (tool === 'whoami' && JSON.parse(text).name !== AGENT) throw new Error(`oauth: whoami answered ${text}`);
  } finally {
    agent.destroy();
  }
}

/** 2. The same tool call with either token, 10 clients each, in interleaved rounds; rows for the table. */
async function measureCalls(board, store, accessToken) {
  const port = board.server.port;
  const pid = board.server.child.pid;
  const tokens = { 'agent token': board.tokens[AGENT], 'OAuth access token': accessToken };
  const kinds = Object.keys(tokens);
  for (const tool of ['get_task', 'whoami']) {
    for (const kind of kinds) await checkCall(port, tokens[kind], tool);
    const loads = Object.fromEntries(kinds.map((kind) => [kind, createLoad({ port, path: `/p/${SLUG}/mcp`, token: tokens[kind], body: mcpBody(tool), concurrency: CLIENTS, headers: mcpHeaders(tool) })]));
    try {
      for (const kind of kinds) await loads[kind].run(CONFIG.warmupMs, false);
      const rps = Object.fromEntries(kinds.map((k) => [k, []]));
      const cpu = Object.fromEntries(kinds.map((k) => [k, []]));
      for (let round = 0; round < ROUNDS; round++) {
        for (const kind of round % 2 === 0 ? kinds : [...kinds].reverse()) {
          const okBefore = loads[kind].result().totalOk;
          const cpuBefore = cpuMs(pid);
          const t = performance.now();
          await loads[kind].run(ROUND_MS, false);
          const calls = loads[kind].result().totalOk - okBefore;
          rps[kind].push(calls / ((performance.now() - t) / 1000));
          cpu[kind].push((cpuMs(pid) - cpuBefore) / calls);
        }
      }
      for (const kind of kinds) {
        const r = loads[kind].result();
        if (r.sent > r.totalOk) report.note(`oauth ${store} ${tool} with the ${kind}: ${r.sent - r.totalOk} of ${r.sent} calls not answered 2xx`);
        await checkCall(port, tokens[kind], tool); // still a tool result after the load, not a rate-limit refusal
      }
      const [agentKind, oauthKind] = kinds;
      const perRound = cpu[oauthKind].map((x, i) => x / cpu[agentKind][i]);
      const cpuRatio = median(cpu[oauthKind]) / median(cpu[agentKind]);
      const rpsRatio = median(rps[oauthKind]) / median(rps[agentKind]);
      for (const kind of kinds) {
        report.row('oauth_calls', [
          store,
          `${tool} c=${CLIENTS}`,
          kind,
          spread(rps[kind], fmt.rps),
          spread(cpu[kind], (x) => x.toFixed(3)),
          kind === oauthKind ? `${fmt.ratio(cpuRatio)} (${fmt.ratio(Math.min(...perRound))}-${fmt.ratio(Math.max(...perRound))})` : '',
          kind === oauthKind ? fmt.ratio(rpsRatio) : '',
        ]);
      }
      report.target(
        `${store}: ${tool} on /p/${SLUG}/mcp with an OAuth access token, CPU per call <= ${TARGET}x the agent token's`,
        `${fmt.ratio(cpuRatio)} (per round ${fmt.ratio(Math.min(...perRound))}-${fmt.ratio(Math.max(...perRound))}; ${median(cpu[oauthKind]).toFixed(3)} vs ${median(cpu[agentKind]).toFixed(3)} ms; calls/s ${fmt.ratio(rpsRatio)})`,
        cpuRatio <= TARGET,
      );
    } finally {
      for (const load of Object.values(loads)) load.close();
    }
  }
}

export async function benchOAuth() {
  const loadAtStart = loadText();
  report.table(
    'oauth_flow',
    `An app's OAuth sign-in on /p/${SLUG}/mcp (issue 34), SQLite: the MCP SDK v2 client with dynamic registration, the consent done over HTTP as a browser would (sign in with the person's token, read the consent page, post it: agent ${AGENT}, allow), finishAuth, connect and the first tools/call; ${FLOWS} flows one after another after one cold flow; median (min-max) ms per step, and each step's share of the ${FLOWS} flows' summed time`,
    ['step', 'ms, median (min-max)', 'share'],
  );
  report.table(
    'oauth_calls',
    `A tool call on /p/${SLUG}/mcp (stateless JSON-RPC tools/call, 2026-07-28) with an OAuth access token granted to ${AGENT} against the same call with ${AGENT}'s own agent token, same daemon; ${CLIENTS} clients, ${ROUNDS} interleaved rounds of ${ROUND_MS} ms per token after a ${CONFIG.warmupMs} ms warm-up; median (min-max) over the rounds; CPU per call is the daemon's user + system time (/proc) over the calls it answered; OAuth ÷ agent token of the CPU per call with its per-round range, and of calls/s`,
    ['store', 'call', 'token', 'calls/s', 'CPU ms per call', 'OAuth ÷ agent, CPU', 'OAuth ÷ agent, calls/s'],
  );
  const stores = PG_ADMIN_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  if (!PG_ADMIN_URL) report.note('oauth: PostgreSQL skipped, no cluster (set ROUNDTABLE_BENCH_PG_URL, e.g. from `eval "$(scripts/pg-cluster.sh start)"`)');
  for (const store of stores) {
    const board = await startBoard(store);
    try {
      if (store === 'sqlite') {
        progress(`${FLOWS + 1} sign-in flows (paced by the sign-in limiter)`);
        await measureFlows(board);
      }
      const { accessToken } = await flow(board);
      await seedTasks(board);
      progress(`${store}: tool calls with either token`);
      await measureCalls(board, store, accessToken);
    } finally {
      await stopServer(board.server);
    }
  }
  report.note(`oauth: load average at the section's start ${loadAtStart}, at its end ${loadText()}`);
}
