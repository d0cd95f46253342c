// Bench sections for the live layer: wake-up latency of wait_for_activity, and the idle cost of many waiters.
// They use run.mjs's helpers, passed in, so the report, process hygiene and daemon start-up stay in one place.
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A POST that may be held open (wait_for_activity): no client-side timeout below the daemon's own. */
function postTool(agent, port, token, tool, args) {
  const body = JSON.stringify(args);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: `/api/v1/tools/${tool}`,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${token}` },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200) reject(new Error(`${tool}: HTTP ${res.statusCode} ${text}`));
          else resolve(JSON.parse(text));
        });
      },
    );
    req.setTimeout(70_000, () => req.destroy(new Error(`${tool}: no answer in 70 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** CPU time (user + system) of a process in ms, from /proc/PID/stat (clock ticks of 10 ms). */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)[1]) / 1024;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Wake-up latency: a worker waits; the leader creates a task it may claim; the time from sending create_task to the
 * waiter's answer arriving. The worker then claims the task, so nothing is pending for the next round.
 */
export async function benchWakeup(h, { rounds, seedPollS }) {
  const dir = h.makeTempDir();
  const { path: agentsPath, agents } = h.writeAgents(dir);
  const daemon = await h.startDaemon(join(dir, 'wakeup.db'), agentsPath);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const lead = agents.lead.token;
  const worker = agents.claimer.token;
  const samples = [];
  try {
    for (let i = 0; i < rounds + 5; i++) {
      const waiting = postTool(agent, daemon.port, worker, 'wait_for_activity', { timeout_s: 20 }).then((answer) => ({ answer, at: performance.now() }));
      await sleep(20); // let the wait reach the daemon and park
      const sent = performance.now();
      const created = await postTool(agent, daemon.port, lead, 'create_task', { title: `wake ${i}` });
      const { answer, at } = await waiting;
      if (answer.reason !== 'activity' || answer.claimable_tasks !== 1) throw new Error(`round ${i}: the waiter answered ${JSON.stringify(answer)}`);
      if (i >= 5) samples.push(at - sent); // the first rounds warm up
      await postTool(agent, daemon.port, worker, 'claim_task', { task_id: created.task.id });
    }
  } finally {
    agent.destroy();
    await h.stopServer(daemon);
  }
  const p = h.percentiles(samples);
  h.report.table(
    'wakeup',
    `Wake-up latency: create_task sent -> the waiting worker's wait_for_activity answer received (JSON API, ${rounds} rounds after 5 warm-up)`,
    ['how the worker learns of the task', 'p50 ms', 'p99 ms', 'mean ms'],
  );
  h.report.row('wakeup', ['wait_for_activity (measured)', h.fmt.ms(p.p50), h.fmt.ms(p.p99), h.fmt.ms(p.mean)]);
  // Polling every N seconds finds a task after a uniformly distributed delay in [0, N): not measured, by construction.
  h.report.row('wakeup', [`seed worker: poll every ${seedPollS} s (by construction, not measured)`, h.fmt.ms((seedPollS * 1000) / 2), h.fmt.ms(seedPollS * 1000 * 0.99), h.fmt.ms((seedPollS * 1000) / 2)]);
  h.report.target(`wake-up p99 < ${h.TARGETS.maxWakeP99Ms} ms from create_task to the waiter's answer`, `p99 ${h.fmt.ms(p.p99)} ms (p50 ${h.fmt.ms(p.p50)})`, p.p99 < h.TARGETS.maxWakeP99Ms);
}

/** Idle cost: the daemon's CPU and memory with `count` waiters parked, then how long waking them all takes. */
export async function benchIdleWaiters(h, { count, idleMs }) {
  const dir = h.makeTempDir();
  const { path: agentsPath, agents } = h.writeAgents(dir);
  const daemon = await h.startDaemon(join(dir, 'idle.db'), agentsPath);
  const pid = daemon.child.pid;
  const agent = new http.Agent({ keepAlive: true, maxSockets: count + 8 });
  const waiters = ['reader', 'claimer', 'lister'].map((n) => agents[n].token);
  try {
    // Warm the daemon up, then take its resting figures.
    for (let i = 0; i < 50; i++) await postTool(agent, daemon.port, waiters[i % waiters.length], 'whoami', {});
    await sleep(1000);
    const rssBefore = rssMb(pid);
    const cpuRestStart = cpuMs(pid);
    await sleep(idleMs);
    const cpuRest = cpuMs(pid) - cpuRestStart;
    const pending = Array.from({ length: count }, (_, i) => postTool(agent, daemon.port, waiters[i % waiters.length], 'wait_for_activity', { timeout_s: 50 }));
    await sleep(3000); // every request parked
    const rssParked = rssMb(pid);
    // CPU per second, so a one-off (e.g. a garbage collection after parking the requests) shows as such.
    const perSecond = [];
    for (let t = 0; t < idleMs; t += 1000) {
      const start = cpuMs(pid);
      await sleep(1000);
      perSecond.push(cpuMs(pid) - start);
    }
    const cpuIdle = perSecond.reduce((a, b) => a + b, 0);
    const rssIdle = rssMb(pid);
    const wakeStart = performance.now();
    await postTool(agent, daemon.port, agents.lead.token, 'create_task', { title: 'for every waiter' });
    const answers = await Promise.all(pending);
    const wakeAllMs = performance.now() - wakeStart;
    const woken = answers.filter((a) => a.reason === 'activity').length;
    h.report.table('idle_waiters', `Idle cost of ${count} parked wait_for_activity calls (JSON API; daemon process, /proc/PID)`, ['measure', 'value']);
    const rows = [
      ['daemon VmRSS at rest, MB', rssBefore.toFixed(1)],
      [`daemon VmRSS with ${count} waiters parked, MB`, `${rssParked.toFixed(1)} (after ${idleMs / 1000} s idle: ${rssIdle.toFixed(1)})`],
      ['extra memory for the waiters, MB', (rssIdle - rssBefore).toFixed(1)],
      [`daemon CPU over ${idleMs / 1000} s at rest, ms`, String(cpuRest)],
      [`daemon CPU over ${idleMs / 1000} s with ${count} waiters idle, ms`, `${cpuIdle} (${((cpuIdle / idleMs) * 100).toFixed(2)}% of a core; per second: ${perSecond.join(', ')})`],
      [`one create_task -> all ${count} waiters answered, ms`, `${wakeAllMs.toFixed(1)} (${woken} woke with activity)`],
    ];
    for (const r of rows) h.report.row('idle_waiters', r);
    h.report.target(`${count} idle waiters: < ${h.TARGETS.maxIdleWaitersMb} MB extra daemon memory`, `${(rssIdle - rssBefore).toFixed(1)} MB`, rssIdle - rssBefore < h.TARGETS.maxIdleWaitersMb);
    h.report.target(`${count} idle waiters: no measurable daemon CPU while idle`, `${cpuIdle} ms over ${idleMs / 1000} s (at rest: ${cpuRest} ms)`, cpuIdle <= cpuRest + 20);
    if (woken !== count) h.report.note(`idle_waiters: only ${woken} of ${count} waiters woke with activity`);
  } finally {
    agent.destroy();
    await h.stopServer(daemon);
  }
}
