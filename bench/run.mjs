// Roundtable benchmarks: `npm run bench` (= npm run build && node --expose-gc bench/run.mjs) runs every section;
// `npm run bench -- NAME [NAME...]` runs only those: a section's name, or a file's name for all of its sections.
//
// One file per concern, over the shared harness (bench/harness.mjs: configuration, process hygiene, seeded boards,
// servers, the load generator, rounds, medians and the side-by-side report):
//   daemon.mjs        get_task, claim_task  calls/s through the daemon's JSON API vs a bare Hono + better-sqlite3 route
//                                           (bench/bare-server.mjs), each request on its own task
//                     list_tasks            latency (p50/p99) at 100,000 tasks, sequential
//   durability.mjs    durable_writes        claim_task and create_task at 10 and 50 clients vs the bare route at
//                                           synchronous=FULL and at NORMAL (group commit)
//                     get_task_10           get_task at 10 clients vs a bare route doing the same SELECT with no audit
//                     cpu_per_call          CPU per call (claim_task, get_task) vs the bare routes, with a profile summary
//                     lone_write            a lone create_task (1 client) today vs the daemon before group commit (from git)
//                     lone_read             a lone get_task (1 client) now vs before issue 37 (from git) vs no audit row
//                     mcp_cost              CPU per tools/call on /mcp (2026-07-28 and 2025) vs the same call on the JSON API
//                     wake_1000             1,000 parked waiters woken by one event vs a long-poll server with no database
//   scale.mjs         scale                 the hot calls at 1,000,000 tasks vs the same at 10,000
//   bridge.mjs        bridge_start          cold start of the stdio bridge (bundled, unbundled), a bare MCP SDK stdio
//                                           server and mcp-remote; packed sizes
//                     bridge_calls          per-call latency through the bridge, straight to /mcp and through mcp-remote
//   live.mjs          event_streams, wakeup, idle_waiters   the live layer
//   leases.mjs        lease_renewal, lease_sweep
//   hooks.mjs         hook_stop
//   plans.mjs         ready_set, unblock_wake
//   reservations.mjs  reservations
//   waits.mjs         wait_cap              4,000 waits from one token and one post waking them, before the per-agent
//                                           cap (from git) and now; another agent's whoami meanwhile
//   owner.mjs         owner_action          an owner's page action (a new task) to the woken worker's answer, through
//                                           Chromium and as the page's HTTP request, vs the leader's create_task
//   reservation-attack.mjs  reservation_attack   issue 22's path-pattern attack and 10,000 adversarial reservations,
//                                           before (the glob walk, built from git) and after
//   tool-list.mjs     tool_list             tools/list tokens per role on /mcp, now and before (shared/ built from git)
//   mcp-revisions.mjs mcp_connect           connect() to the first tools/list on /mcp for a v2 SDK client (2026-07-28,
//                                           else initialize) and a 2025 client, today and before the v2 SDK (from git)
//   apps.mjs          agent_apps            the real agent apps (scripts/install-apps.sh): launch to the first board tool
//                                           result per app; Claude Code's logged connect time for setup's entry, the
//                                           HTTP transport and the npx form (BENCH_APP_RUNS, 10)
//   minimal.mjs       minimal_route         durable claim_task (50 clients) and get_task (10) through the daemon now, the
//                                           daemon before issue 37 (from git), the bare route and a minimal route (Hono +
//                                           better-sqlite3, tasks/activity/audit only): calls/s and CPU per call, both
//                                           ratios, 5 interleaved rounds (BENCH_MINIMAL_ROUNDS, BENCH_MINIMAL_ROUND_MS)
//   webhooks.mjs      webhook_latency       submit_result to a loopback receiver's 200 (p50/p99), one json webhook
//                     webhook_cost          claim_task and help-request posts per second without and with one webhook,
//                                           two copies of one board in alternating rounds
//   postgres.mjs      pg_claims, pg_wake    durable claims/s with 1-3 daemons on PostgreSQL beside one on SQLite; the
//                                           cross-daemon wake-up (need ROUNDTABLE_TEST_PG_URL or a local cluster)
//                     pg_cost               CPU per durable claim (daemon, and the cluster with ROUNDTABLE_TEST_PG_DIR) on
//                                           SQLite and PostgreSQL, now and before issue 27; round trips per claim/get_task
//   event-log.mjs     wake_latency          wake --exec: new task -> CMD with 0, 1 and 100 items already pending
//                     event_log_cost        claim_task calls/s with the event row vs before the event log (from git)
//                     listen_replay         PostgreSQL: replay after a 10 s LISTEN outage with 10,000 events meanwhile
//   projects.mjs      projects              issue 33: one daemon of 100 projects (10 agents, 1,000 tasks each) against
//                                           one of them alone: durable claim_task (50 clients) and get_task (10), both
//                                           paths, interleaved rounds; GET /overview for a person in 20 projects
//                                           (BENCH_PROJECTS, BENCH_PROJECTS_ROUNDS, BENCH_PROJECTS_ROUND_MS, ...)
//   work.mjs          work_record           issue 35: submit_result through the bridge from no repository, a few lines and
//                                           a 1 MiB patch; the same record straight over HTTP (BENCH_WORK_ROUNDS, 15)
//   review-page.mjs   review_page           issue 35: the page's time to show a 5,000-line diff in Chromium (ROUNDS, LINES)
//   search.mjs        search                issue 36: search over 100,000 tasks and 1,000,000 messages, one and three words,
//                                           p50/p99, vs a LIKE scan; PostgreSQL too with ROUNDTABLE_BENCH_PG_URL
//   console.mjs       console               issue 36: GET /view/needs and /view/progress on 100,000 tasks over 60 days
//   activity.mjs      activity              issue 36: the Activity view's first page and filters, and the Audit view, over a
//                                           1,000,000-row event log and audit log; PostgreSQL with ROUNDTABLE_BENCH_PG_URL
//   oauth.mjs         oauth                 issue 34: an app's whole OAuth sign-in through the MCP SDK v2 client (dynamic
//                                           registration, the consent over HTTP, the token, the first tools/call), by
//                                           step; then get_task and whoami on /p/SLUG/mcp with an OAuth access token vs
//                                           the agent's own token, 10 clients, interleaved rounds, SQLite and (with
//                                           ROUNDTABLE_BENCH_PG_URL) PostgreSQL (BENCH_OAUTH_FLOWS, BENCH_OAUTH_ROUNDS, ...)
// Each section is one async function that starts its own servers on 127.0.0.1 over its own seeded database copy,
// measures, stops them, and adds rows to the shared report; adding a section means adding it to SECTIONS below.
//
// Knobs (environment): BENCH_CONCURRENCY (16), BENCH_WARMUP_MS (1000), BENCH_DURATION_MS (5000),
// BENCH_LIST_TASKS (100000), BENCH_LIST_ITERATIONS (300), BENCH_RATE_LIMIT (100000, the daemon's maximum),
// BENCH_DAEMON_NODE_ARGS / BENCH_BARE_NODE_ARGS / BENCH_BRIDGE_NODE_ARGS (extra node flags for the daemon / the bare
// server / the bridge, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to see where a server spends its time),
// BENCH_COLD_STARTS (15), BENCH_BRIDGE_CALLS (300), BENCH_EVENT_STREAMS (1000), BENCH_EVENT_STREAM_CALLS (200),
// BENCH_SCALE_TASKS (1000000), BENCH_BASELINE_REV (the revision lone_write compares with), BENCH_TIMEOUT_S (1800, the whole run).
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchBridgeCalls, benchBridgeStart } from './bridge.mjs';
import { benchClaimTask, benchGetTask, benchListTasks } from './daemon.mjs';
import { benchCpuPerCall, benchDurableWrites, benchGetTask10, benchLoneRead, benchLoneWrite, benchMcpCost, benchWake1000 } from './durability.mjs';
import {
  against,
  CONFIG,
  cpuMs,
  createLoad,
  envInt,
  MIGRATIONS,
  inRounds,
  buildDaemonAt,
  ROOT,
  TARGETS,
  cleanupSync,
  fmt,
  makeTempDir,
  percentiles,
  printTable,
  probeDiskCommits,
  report,
  seedListBoard,
  startDaemon,
  stopServer,
  postToolAnswer,
  WAITS_PER_AGENT,
  writeAgents,
} from './harness.mjs';
import { benchAgentApps } from './apps.mjs';
import { benchHookStop } from './hooks.mjs';
import { benchLeaseRenewal, benchLeaseSweep } from './leases.mjs';
import { benchEventStreams, benchIdleWaiters, benchWakeup } from './live.mjs';
import { benchReadySet, benchUnblockWake } from './plans.mjs';
import { benchOwnerAction } from './owner.mjs';
import { benchReservationAttack } from './reservation-attack.mjs';
import { benchReservations } from './reservations.mjs';
import { benchScale } from './scale.mjs';
import { benchToolList } from './tool-list.mjs';
import { benchWaitCap } from './waits.mjs';
import { benchMcpConnect } from './mcp-revisions.mjs';
import { benchPgClaims, benchPgCost, benchPgWake } from './postgres.mjs';
import { benchMinimalRoute } from './minimal.mjs';
import { benchWebhookCost, benchWebhookLatency } from './webhooks.mjs';
import { benchEventLogCost, benchListenReplay, benchWakeLatency } from './event-log.mjs';
import { benchProjects } from './projects.mjs';
import { benchOAuth } from './oauth.mjs';
import { benchWorkRecord } from './work.mjs';

const liveHelpers = () => ({ CONFIG, cpuMs, createLoad, report, makeTempDir, writeAgents, startDaemon, stopServer, percentiles, fmt, TARGETS, ROOT, seedTasks: seedListBoard, buildDaemonAt, WAITS_PER_AGENT, postToolAnswer, against });

const SECTIONS = [
  { file: 'daemon', name: 'get_task', run: benchGetTask },
  { file: 'daemon', name: 'claim_task', run: benchClaimTask },
  { file: 'daemon', name: 'list_tasks', run: benchListTasks },
  { file: 'bridge', name: 'bridge_start', run: benchBridgeStart },
  { file: 'bridge', name: 'bridge_calls', run: benchBridgeCalls },
  { file: 'live', name: 'wakeup', run: () => benchWakeup(liveHelpers(), { rounds: 200, seedPollS: 10 }) },
  { file: 'live', name: 'idle_waiters', run: () => benchIdleWaiters(liveHelpers(), { count: 1000, idleMs: 5000 }) },
  { file: 'live', name: 'event_streams', run: () => benchEventStreams(liveHelpers(), { streams: CONFIG.eventStreams, calls: CONFIG.eventStreamCalls, rounds: 4 }) },
  { file: 'leases', name: 'lease_renewal', run: () => benchLeaseRenewal(liveHelpers(), { rounds: 1500, block: 50 }) },
  { file: 'leases', name: 'lease_sweep', run: () => benchLeaseSweep(liveHelpers(), { tasks: 100_000, leases: 1000, spreadMs: 5000 }) },
  { file: 'hooks', name: 'hook_stop', run: () => benchHookStop(liveHelpers(), { runs: 50 }) },
  { file: 'plans', name: 'ready_set', run: () => benchReadySet(liveHelpers(), { tasks: CONFIG.listTasks, edges: CONFIG.listTasks, iterations: CONFIG.listIterations, warmup: CONFIG.listWarmup }) },
  { file: 'plans', name: 'unblock_wake', run: () => benchUnblockWake(liveHelpers(), { rounds: 200 }) },
  { file: 'waits', name: 'wait_cap', run: () => benchWaitCap(liveHelpers(), { count: 4000 }) },
  { file: 'reservations', name: 'reservations', run: () => benchReservations(liveHelpers(), { holders: 200, perTask: 50, rounds: 500 }) },
  {
    file: 'reservation-attack',
    name: 'reservation_attack',
    run: () => benchReservationAttack(liveHelpers(), { adversaries: 20, perAgent: 500, samples: envInt('BENCH_ATTACK_SAMPLES', 300), probeMs: 10_000, budgetMs: 20_000 }),
  },
  { file: 'durability', name: 'durable_writes', run: benchDurableWrites },
  { file: 'durability', name: 'get_task_10', run: benchGetTask10 },
  { file: 'durability', name: 'cpu_per_call', run: benchCpuPerCall },
  { file: 'durability', name: 'lone_write', run: benchLoneWrite },
  { file: 'durability', name: 'lone_read', run: benchLoneRead },
  { file: 'durability', name: 'mcp_cost', run: benchMcpCost },
  { file: 'durability', name: 'wake_1000', run: benchWake1000 },
  { file: 'tool-list', name: 'tool_list', run: () => benchToolList(liveHelpers()) },
  { file: 'owner', name: 'owner_action', run: () => benchOwnerAction(liveHelpers(), { rounds: Number(process.env.BENCH_OWNER_ROUNDS ?? 200) }) },
  { file: 'mcp-revisions', name: 'mcp_connect', run: benchMcpConnect },
  { file: 'scale', name: 'scale', run: benchScale },
  { file: 'apps', name: 'agent_apps', run: () => benchAgentApps({ ...liveHelpers(), inRounds }, { runs: envInt('BENCH_APP_RUNS', 10) }) },
  { file: 'minimal', name: 'minimal_route', run: benchMinimalRoute },
  { file: 'webhooks', name: 'webhook_latency', run: () => benchWebhookLatency(liveHelpers(), { rounds: 300 }) },
  { file: 'webhooks', name: 'webhook_cost', run: () => benchWebhookCost(liveHelpers(), { rounds: 3 }) },
  { file: 'postgres', name: 'pg_claims', run: () => benchPgClaims(liveHelpers(), { concurrency: 24, seed: 100_000, warmupMs: 1000, measureMs: 5000 }) },
  { file: 'postgres', name: 'pg_cost', run: () => benchPgCost(liveHelpers(), { rounds: envInt('BENCH_MINIMAL_ROUNDS', 5), roundMs: envInt('BENCH_MINIMAL_ROUND_MS', 2000), clients: 50, calls: 200 }) },
  { file: 'postgres', name: 'pg_wake', run: () => benchPgWake(liveHelpers(), { rounds: 200 }) },
  { file: 'event-log', name: 'wake_latency', run: () => benchWakeLatency(liveHelpers(), { pending: [0, 1, 100], rounds: 30 }) },
  { file: 'event-log', name: 'event_log_cost', run: () => benchEventLogCost(liveHelpers(), { rounds: 4 }) },
  { file: 'event-log', name: 'listen_replay', run: () => benchListenReplay(liveHelpers(), { events: 10_000, outageMs: 10_000 }) },
  { file: 'projects', name: 'projects', run: benchProjects },
  { file: 'oauth', name: 'oauth', run: benchOAuth },
  { file: 'work', name: 'work_record', run: () => benchWorkRecord(undefined, { rounds: envInt('BENCH_WORK_ROUNDS', 15) }) },
  // A script of its own (Chromium, top-level await): run as a child, its lines printed as they come.
  { file: 'review-page', name: 'review_page', run: () => execFileSync(process.execPath, [join(ROOT, 'bench', 'review-page.mjs')], { stdio: 'inherit' }) },
  // Issue 36, scripts of their own (seeding 1.1 million rows takes minutes): run as children.
  { file: 'search', name: 'search', run: () => execFileSync(process.execPath, [join(ROOT, 'bench', 'search.mjs')], { stdio: 'inherit' }) },
  { file: 'console', name: 'console', run: () => execFileSync(process.execPath, [join(ROOT, 'bench', 'console.mjs')], { stdio: 'inherit' }) },
  { file: 'activity', name: 'activity', run: () => execFileSync(process.execPath, [join(ROOT, 'bench', 'activity.mjs')], { stdio: 'inherit' }) },
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
  const unknown = wanted.filter((w) => !SECTIONS.some((s) => s.name === w || s.file === w));
  if (unknown.length) {
    throw new Error(`unknown section ${unknown.join(', ')}; sections: ${SECTIONS.map((s) => s.name).join(', ')}; files: ${[...new Set(SECTIONS.map((s) => s.file))].join(', ')}`);
  }
  const sections = wanted.length ? SECTIONS.filter((s) => wanted.includes(s.name) || wanted.includes(s.file)) : SECTIONS;
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
