// Bench section for parked waits per agent (issue 22, item 8): one observer token parks as many wait_for_activity
// calls as it can and one post wakes them, while another agent calls whoami. The daemon from before the cap (built
// from git in this run) beside today's; and today's with the same number of waits spread over enough agents.
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';

/** The commit before issue 22 capped waits per agent (daemon/src/board/presence.ts WAITS_PER_AGENT). */
const WAIT_CAP_BASELINE_REV = '91460d2';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function rssMb(pid) {
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
}

function openFds(pid) {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** Sequential whoami calls until `done()`; each call's time from sent to answered, in ms. */
async function probeWhoami(h, port, token, done) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const samples = [];
  try {
    while (!done()) {
      const t = performance.now();
      await h.postToolAnswer(agent, port, token, 'whoami', {}, 60_000);
      samples.push(performance.now() - t);
    }
  } finally {
    agent.destroy();
  }
  return samples;
}

/**
 * Parks `count` waits (tokens[i % tokens.length]) at once, then one post to everyone; returns what it cost: how many
 * were parked and refused, the daemon's memory and descriptors with them parked, the time from the post to the last
 * answer, and another agent's whoami during that time.
 */
async function parkAndWake(h, daemon, agents, tokens, count) {
  const pid = daemon.child.pid;
  const { port } = daemon;
  const idle = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const idleSamples = [];
  for (let i = 0; i < 220; i++) {
    const t = performance.now();
    await h.postToolAnswer(idle, port, agents.reader.token, 'whoami', {});
    if (i >= 20) idleSamples.push(performance.now() - t);
  }
  idle.destroy();
  const rssBefore = rssMb(pid);
  const fdsBefore = openFds(pid);
  // No keep-alive: a refused wait's socket closes with its answer, as an attacker's would not have to.
  const waits = new http.Agent({ keepAlive: false, maxSockets: count + 8 });
  const answers = Array.from({ length: count }, (_, i) =>
    h.postToolAnswer(waits, port, tokens[i % tokens.length], 'wait_for_activity', { timeout_s: 50, for: ['messages'] }).then((res) => ({ ...res, at: performance.now() })),
  );
  let settled = 0;
  for (const answer of answers) void answer.then(() => settled++);
  // Every call has reached the daemon once its answers stop coming (refusals come at once, parked waits not at all).
  const started = performance.now();
  for (let last = -1, quietSince = performance.now(); performance.now() - started < 60_000; await sleep(100)) {
    if (settled !== last) [last, quietSince] = [settled, performance.now()];
    else if (performance.now() - quietSince > 1500 && performance.now() - started > 2000) break;
  }
  const refused = settled;
  const rssParked = rssMb(pid);
  const fdsParked = openFds(pid);
  let allAnswered = false;
  const probing = probeWhoami(h, port, agents.reader.token, () => allAnswered);
  await sleep(200);
  const lead = new http.Agent({ keepAlive: false });
  const t0 = performance.now();
  await h.postToolAnswer(lead, port, agents.lead.token, 'post', { to: 'all', text: 'wake up' });
  const done = await Promise.all(answers);
  const lastMs = Math.max(...done.map((d) => d.at)) - t0;
  allAnswered = true;
  const during = await probing;
  lead.destroy();
  waits.destroy();
  const statuses = {};
  for (const d of done) statuses[d.status] = (statuses[d.status] ?? 0) + 1;
  return {
    parked: count - refused,
    refused,
    statuses,
    extraMb: rssParked - rssBefore,
    extraFds: fdsParked - fdsBefore,
    lastMs,
    idle: h.percentiles(idleSamples),
    during: { ...h.percentiles(during), max: Math.max(...during), n: during.length },
  };
}

export async function benchWaitCap(h, { count = 4000 } = {}) {
  const dir = h.makeTempDir();
  const { path: agentsPath, agents } = h.writeAgents(dir, { watchers: Math.ceil(count / h.WAITS_PER_AGENT) });
  const attacker = [agents.watchers[0]];
  const baseline = h.buildDaemonAt(WAIT_CAP_BASELINE_REV, dir, 'wait-cap-baseline');
  const results = {};
  try {
    const runs = [
      ['before the cap: one observer token', { bin: baseline.bin }, attacker],
      ['now: one observer token', {}, attacker],
      [`now: ${agents.watchers.length} observers, ${h.WAITS_PER_AGENT} waits each`, {}, agents.watchers],
    ];
    for (const [i, [label, options, tokens]] of runs.entries()) {
      const daemon = await h.startDaemon(join(dir, `waits-${i}.db`), agentsPath, undefined, options);
      try {
        results[label] = await parkAndWake(h, daemon, agents, tokens, count);
      } finally {
        await h.stopServer(daemon);
      }
    }
  } finally {
    baseline.remove();
  }
  h.report.table(
    'wait_cap',
    `${count} wait_for_activity calls sent at once, then one post to everyone; another agent's whoami (sequential) meanwhile (JSON API, SQLite)`,
    ['daemon and who waits', 'parked / refused', 'extra RSS MB, fds', 'post -> last answer ms', 'whoami idle p99 ms', 'whoami during wake p99 / max ms'],
  );
  for (const [label, r] of Object.entries(results)) {
    h.report.row('wait_cap', [
      label,
      `${r.parked} / ${r.refused} (${Object.entries(r.statuses).map(([s, n]) => `${n}x${s}`).join(', ')})`,
      `${r.extraMb.toFixed(1)}, ${r.extraFds}`,
      h.fmt.ms(r.lastMs),
      h.fmt.ms(r.idle.p99),
      `${h.fmt.ms(r.during.p99)} / ${h.fmt.ms(r.during.max)} (${r.during.n} calls)`,
    ]);
  }
  const now = results['now: one observer token'];
  h.report.target(
    `one token parks at most ${h.WAITS_PER_AGENT} waits; the rest are refused at once`,
    `${now.parked} parked, ${now.refused} refused`,
    now.parked === h.WAITS_PER_AGENT && now.refused === count - h.WAITS_PER_AGENT,
  );
  const before = results['before the cap: one observer token'];
  const held = h.against(now.during.max, before.during.max, { atMost: 0.1 });
  h.report.target(
    "one token's waits woken by a post hold another agent's whoami at most a tenth as long as before the cap",
    `longest whoami ${h.fmt.ms(now.during.max)} ms vs ${h.fmt.ms(before.during.max)} ms before (${held.text})`,
    held.holds,
  );
}
