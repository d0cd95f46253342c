// Bench sections for the live layer: wake-up latency of wait_for_activity, the idle cost of many waiters, and what
// open live-page event streams cost a tool call.
// They use run.mjs's helpers, passed in, so the report, process hygiene and daemon start-up stay in one place.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { postTool, cpuMs } from './harness.mjs';

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
  // One agent parks at most WAITS_PER_AGENT waits at once: the waits are spread over that many workers of their own.
  const { path: agentsPath, agents } = h.writeAgents(dir, { waiters: Math.ceil(count / h.WAITS_PER_AGENT) });
  const daemon = await h.startDaemon(join(dir, 'idle.db'), agentsPath);
  const pid = daemon.child.pid;
  const agent = new http.Agent({ keepAlive: true, maxSockets: count + 8 });
  const waiters = agents.waiters;
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

/** The agents file for the event-stream section: a leader and `observers` observers, tokens hashed as the daemon wants. */
function writeObserverAgents(path, observers) {
  const sha256 = (text) => createHash('sha256').update(text, 'utf8').digest('hex');
  const tokens = { lead: `rt_${randomBytes(32).toString('base64url')}` };
  const file = { agents: [{ name: 'lead', role: 'leader', skills: [], token_sha256: sha256(tokens.lead) }] };
  for (let i = 0; i < observers; i++) {
    const name = `watcher-${i}`;
    tokens[name] = `rt_${randomBytes(32).toString('base64url')}`;
    file.agents.push({ name, role: 'observer', skills: [], token_sha256: sha256(tokens[name]) });
  }
  writeFileSync(path, JSON.stringify(file));
  return tokens;
}

/**
 * Signs a browser in; resolves the session id. localAddress picks the loopback address the request comes from: sign-in
 * is limited to 10 a minute per client address, so the bench spreads its sign-ins over 127.0.0.2, 127.0.0.3, ...
 */
function signIn(port, token, localAddress) {
  const body = JSON.stringify({ token });
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: '/session', method: 'POST', localAddress, agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        const cookie = /rt_session=([^;]+)/.exec(String(res.headers['set-cookie'] ?? ''));
        if (res.statusCode !== 200 || !cookie) reject(new Error(`sign-in: HTTP ${res.statusCode}`));
        else resolve(cookie[1]);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Opens GET /events; resolves once `ready` arrived. `taskEvents` counts the task events the stream has received. */
function openEventStream(port, session) {
  return new Promise((resolve, reject) => {
    const stream = { taskEvents: 0, ready: false, close: () => req.destroy() };
    let buffer = '';
    const req = http.get({ host: '127.0.0.1', port, path: '/events', agent: false, headers: { cookie: `rt_session=${session}` } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`GET /events: HTTP ${res.statusCode}`));
        return;
      }
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        buffer += chunk;
        const end = buffer.lastIndexOf('\n\n');
        if (end === -1) return;
        const blocks = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        stream.taskEvents += blocks.split('event: task\n').length - 1;
        if (!stream.ready && blocks.includes('event: ready\n')) {
          stream.ready = true;
          resolve(stream);
        }
      });
      res.on('error', () => undefined);
    });
    req.on('error', (error) => (stream.ready ? undefined : reject(error)));
  });
}

/** Sequential create_task calls by the leader: their latencies, end to end, and the daemon's CPU time over them. */
async function timeCreates(agent, daemon, token, count, label) {
  const samples = [];
  const cpuStart = cpuMs(daemon.child.pid);
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await postTool(agent, daemon.port, token, 'create_task', { title: `${label} ${i}` });
    samples.push(performance.now() - start);
  }
  samples.cpuPerCallMs = (cpuMs(daemon.child.pid) - cpuStart) / count;
  return samples;
}

/** openEventStream, tried again while the daemon has not yet freed the slots of streams just closed. */
async function openWhenFree(port, session) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await openEventStream(port, session);
    } catch (error) {
      if (attempt >= 50 || !/HTTP 429/.test(error.message)) throw error;
      await sleep(100);
    }
  }
}

/**
 * create_task latency with no event streams open and with `streams` open (the board's default cap): 4 per session
 * and 8 per agent, so streams/8 observer agents with streams/4 sessions among them. The two alternate in `rounds`
 * rounds (none, then all streams opened, calls, every stream checked to have every event, streams closed), so a
 * change in the disk's speed during the run lands on both.
 */
export async function benchEventStreams(h, { streams, calls, rounds }) {
  const perSession = 4;
  const perAgent = 8;
  const perRound = Math.ceil(calls / rounds);
  const dir = h.makeTempDir();
  const agentsPath = join(dir, 'agents.json');
  const observers = Math.ceil(streams / perAgent);
  const tokens = writeObserverAgents(agentsPath, observers);
  const daemon = await h.startDaemon(join(dir, 'streams.db'), agentsPath);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let open = [];
  try {
    await timeCreates(agent, daemon, tokens.lead, 30, 'warm-up');
    const sessions = [];
    for (let i = 0; i < streams / perSession; i++) {
      const address = `127.0.0.${2 + Math.floor(i / 10)}`; // 10 sign-ins per address, the per-address limit
      sessions.push(await signIn(daemon.port, tokens[`watcher-${Math.floor((i * perSession) / perAgent)}`], address));
    }
    const none = [];
    const watched = [];
    const cpu = { none: 0, watched: 0 };
    let complete = 0;
    let slowestDeliveryMs = 0;
    for (let round = 0; round < rounds; round++) {
      const quiet = await timeCreates(agent, daemon, tokens.lead, perRound, `none ${round}`);
      none.push(...quiet);
      cpu.none += quiet.cpuPerCallMs / rounds;

      for (let i = 0; i < streams; i += 100) {
        const batch = [];
        for (let j = i; j < Math.min(i + 100, streams); j++) batch.push(openWhenFree(daemon.port, sessions[Math.floor(j / perSession)]));
        open.push(...(await Promise.all(batch)));
      }
      await sleep(300);
      const busy = await timeCreates(agent, daemon, tokens.lead, perRound, `watched ${round}`);
      watched.push(...busy);
      cpu.watched += busy.cpuPerCallMs / rounds;
      // Every stream must have every event: the fan-out is off the request path, not lossy.
      const sentAt = performance.now();
      const deadline = sentAt + 30_000;
      while (open.some((s) => s.taskEvents < perRound) && performance.now() < deadline) await sleep(10);
      slowestDeliveryMs = Math.max(slowestDeliveryMs, performance.now() - sentAt);
      complete += open.filter((s) => s.taskEvents === perRound).length;
      for (const stream of open) stream.close();
      open = [];
      await sleep(300);
    }

    const p0 = h.percentiles(none);
    const p1 = h.percentiles(watched);
    h.report.table(
      'event_streams',
      `create_task latency with live-page event streams open (JSON API, sequential calls, ${rounds} alternating rounds of ${perRound} calls each way after 30 warm-up; ${streams} streams = ${observers} observers x ${perAgent}, ${streams / perSession} sessions x ${perSession})`,
      ['open event streams', 'calls', 'p50 ms', 'p99 ms', 'mean ms', 'daemon CPU ms per call'],
    );
    h.report.row('event_streams', ['none', none.length, h.fmt.ms(p0.p50), h.fmt.ms(p0.p99), h.fmt.ms(p0.mean), cpu.none.toFixed(2)]);
    h.report.row('event_streams', [streams.toLocaleString('en-US'), watched.length, h.fmt.ms(p1.p50), h.fmt.ms(p1.p99), h.fmt.ms(p1.mean), cpu.watched.toFixed(2)]);
    h.report.note(
      `event_streams: ${complete} of ${streams * rounds} stream-rounds received every task event of their round; the last arrived at most ${slowestDeliveryMs.toFixed(0)} ms after the round's last call`,
    );
    const ratio = p1.p50 / p0.p50;
    h.report.target(
      `create_task p50 with ${streams.toLocaleString('en-US')} event streams open <= ${h.TARGETS.maxStreamsP50Ratio}x with none`,
      `${h.fmt.ratio(ratio)} (${h.fmt.ms(p1.p50)} vs ${h.fmt.ms(p0.p50)} ms)`,
      ratio <= h.TARGETS.maxStreamsP50Ratio,
    );
  } finally {
    for (const stream of open) stream.close();
    agent.destroy();
    await h.stopServer(daemon);
  }
}
