// Bench sections for claim leases: what renewal adds to a tool call, against the daemon as it was before leases
// (built from git in a temp folder), and how soon the sweep reopens lapsed claims on a large board.
// They use run.mjs's helpers, passed in, so the report, process hygiene and daemon start-up stay in one place.
import http from 'node:http';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { postTool, buildDaemonAt, revisionBefore, cpuMs } from './harness.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Renewal on the hot path: the sequence claim_task -> get_task -> whoami by the claiming worker, on today's daemon
 * (default lease 10 min; and a 1 s lease, where renewal writes every 100 ms) and on the daemon before leases, in
 * alternating blocks so a slow spell of the machine lands on all of them.
 */
export async function benchLeaseRenewal(h, { rounds, block }) {
  const dir = h.makeTempDir();
  const { path: agentsPath, agents } = h.writeAgents(dir);
  const rev = process.env.BENCH_BASELINE_REV ?? revisionBefore('daemon/migrations/005_leases.sql');
  const baseline = buildDaemonAt(rev, dir);
  const servers = {};
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const lead = agents.lead.token;
  const worker = agents.claimer.token;
  try {
    servers['before leases'] = await h.startDaemon(join(dir, 'before.db'), agentsPath, undefined, { bin: baseline.bin });
    servers['leases, TTL 10m'] = await h.startDaemon(join(dir, 'ttl10m.db'), agentsPath, undefined, { env: { ROUNDTABLE_LEASE_TTL: '10m' } });
    servers['leases, TTL 1s'] = await h.startDaemon(join(dir, 'ttl1s.db'), agentsPath, undefined, { env: { ROUNDTABLE_LEASE_TTL: '1s' } });
    const samples = Object.fromEntries(Object.keys(servers).map((name) => [name, { claim_task: [], get_task: [], whoami: [], sequence: [] }]));
    const names = Object.keys(servers);
    const sequence = async (name, measured) => {
      const { port } = servers[name];
      const { task } = await postTool(agent, port, lead, 'create_task', { title: 'lease bench' });
      const t0 = performance.now();
      await postTool(agent, port, worker, 'claim_task', { task_id: task.id });
      const t1 = performance.now();
      await postTool(agent, port, worker, 'get_task', { task_id: task.id });
      const t2 = performance.now();
      await postTool(agent, port, worker, 'whoami', {});
      const t3 = performance.now();
      if (!measured) return;
      const s = samples[name];
      s.claim_task.push(t1 - t0);
      s.get_task.push(t2 - t1);
      s.whoami.push(t3 - t2);
      s.sequence.push(t3 - t0);
    };
    for (const name of names) for (let i = 0; i < 30; i++) await sequence(name, false);
    for (let done = 0, turn = 0; done < rounds; done += block, turn++) {
      // Rotate the order each turn, so no server always runs first.
      const order = names.map((_, i) => names[(i + turn) % names.length]);
      for (const name of order) for (let i = 0; i < block; i++) await sequence(name, true);
    }
    h.report.table(
      'lease_renewal',
      `Renewal on the hot path: claim_task -> get_task -> whoami by the claimer, ${rounds} sequences per daemon in alternating blocks of ${block} (JSON API, p50 ms; baseline: ${rev} built in a temp folder)`,
      ['daemon', 'claim_task', 'get_task', 'whoami', 'whole sequence', 'sequence vs before leases'],
    );
    const base = h.percentiles(samples['before leases'].sequence).p50;
    for (const name of names) {
      const s = samples[name];
      const p = (k) => h.percentiles(s[k]).p50;
      h.report.row('lease_renewal', [name, h.fmt.ms(p('claim_task')), h.fmt.ms(p('get_task')), h.fmt.ms(p('whoami')), h.fmt.ms(p('sequence')), h.fmt.ratio(p('sequence') / base)]);
    }
    const calls = (name) => h.percentiles([...samples[name].get_task, ...samples[name].whoami]).p50;
    const added = calls('leases, TTL 10m') / calls('before leases') - 1;
    h.report.target(
      'renewal adds < 5 % to a tool call (get_task and whoami by a holder, p50, default lease vs before leases)',
      `${(added * 100).toFixed(1)} % (${h.fmt.ms(calls('leases, TTL 10m'))} vs ${h.fmt.ms(calls('before leases'))} ms)`,
      added < 0.05,
    );
  } finally {
    agent.destroy();
    for (const server of Object.values(servers)) await h.stopServer(server);
    baseline.remove();
  }
}

/**
 * The sweep at scale: a board of `tasks` tasks with `leases` live claims whose leases lapse over a few seconds;
 * how long after its expiry each one is reopened (from the database afterwards), and the daemon's CPU meanwhile.
 */
export async function benchLeaseSweep(h, { tasks, leases, spreadMs }) {
  const dir = h.makeTempDir();
  const { path: agentsPath } = h.writeAgents(dir);
  const dbPath = join(dir, 'sweep.db');
  h.seedTasks(dbPath, tasks);
  // Turn `leases` open tasks into live claims lapsing between 4 s and 4 s + spreadMs from now.
  const firstLapse = Date.now() + 4000;
  const db = new Database(dbPath);
  const open = db.prepare("SELECT id FROM tasks WHERE status = 'open' ORDER BY id DESC LIMIT ?").pluck().all(leases);
  if (open.length < leases) throw new Error(`only ${open.length} open tasks to claim, need ${leases}`);
  const insertClaim = db.prepare('INSERT INTO claims (task_id, agent, claimed_at) VALUES (?, ?, ?)');
  const claimTask = db.prepare("UPDATE tasks SET status = 'claimed', assignee = 'claimer', claim_id = ?, lease_expires_at = ? WHERE id = ?");
  db.transaction(() => {
    open.forEach((id, i) => {
      const claimId = Number(insertClaim.run(id, 'claimer', new Date().toISOString()).lastInsertRowid);
      claimTask.run(claimId, new Date(firstLapse + Math.floor((i * spreadMs) / leases)).toISOString(), id);
    });
  })();
  db.close();
  const daemon = await h.startDaemon(dbPath, agentsPath);
  try {
    const cpuStart = cpuMs(daemon.child.pid);
    const reader = new Database(dbPath, { readonly: true });
    const lapsed = reader.prepare("SELECT COUNT(*) FROM activity WHERE action = 'lease_expired'").pluck();
    const deadline = firstLapse + spreadMs + 10_000;
    while (lapsed.get() < leases && Date.now() < deadline) await sleep(100);
    const cpu = cpuMs(daemon.child.pid) - cpuStart;
    const lags = reader
      .prepare("SELECT a.created_at AS reopened, c.lapsed_at AS expired FROM activity a JOIN claims c ON c.id = a.claim_id WHERE a.action = 'lease_expired'")
      .all()
      .map((r) => Date.parse(r.reopened) - Date.parse(r.expired));
    reader.close();
    const p = h.percentiles(lags);
    const max = Math.max(...lags);
    h.report.table('lease_sweep', `The sweep: ${tasks.toLocaleString('en-US')} tasks, ${leases} live leases lapsing over ${spreadMs / 1000} s; reopened - lease expiry, per lease`, ['measure', 'value']);
    h.report.row('lease_sweep', ['leases reopened', `${lags.length} of ${leases}`]);
    h.report.row('lease_sweep', ['delay after expiry p50 / p99 / max, ms', `${h.fmt.ms(p.p50)} / ${h.fmt.ms(p.p99)} / ${h.fmt.ms(max)}`]);
    h.report.row('lease_sweep', [`daemon CPU from start of the window to the last reopen, ms`, String(cpu)]);
    h.report.target(`a lapsed lease is reopened within 1 s of its expiry (${tasks.toLocaleString('en-US')} tasks, ${leases} leases)`, `max ${h.fmt.ms(max)} ms, ${lags.length}/${leases} reopened`, lags.length === leases && max < 1000);
  } finally {
    await h.stopServer(daemon);
  }
}
