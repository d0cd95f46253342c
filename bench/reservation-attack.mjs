// Bench section for issue 22's path-pattern attack: the daemon before the linear overlap and the index (built from
// git in this run) beside this one, under the attack the issue made (one worker, 4 x 50 patterns of "*b" x 147, then
// lookups by "*a" x 149) and under 10,000 reservations written by 20 adversarial workers to be the worst this index
// meets, with the worst check_paths and list_reservations an agent can send; and another agent's whoami meanwhile.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { LIMITS } from '../shared/dist/index.js';
import { buildDaemonAt, newAgent, postToolAnswer, revisionBefore, sha256, sleep } from './harness.mjs';

/** agents.json with a leader, a victim worker, an observer that times whoami, and `adversaries` workers. */
function writeAttackAgents(dir, adversaries) {
  const defs = [
    { name: 'lead', role: 'leader' },
    { name: 'victim', role: 'worker' },
    { name: 'watcher', role: 'observer' },
    ...Array.from({ length: adversaries }, (_, k) => ({ name: `adv${k}`, role: 'worker' })),
  ];
  const tokens = {};
  const agents = defs.map((d) => {
    tokens[d.name] = `rt_${randomBytes(32).toString('base64url')}`;
    return { name: d.name, role: d.role, skills: [], token_sha256: sha256(tokens[d.name]) };
  });
  const path = join(dir, 'attack-agents.json');
  writeFileSync(path, JSON.stringify({ agents }));
  return { path, tokens };
}

const N = (n) => 'n'.repeat(n);
const DEEP = `deep/${'d/'.repeat(60)}`;

/**
 * The reservations of adversary k: 500 a worker may hold, each agent's disjoint from the others' (so the rules let
 * them all stand, exclusive ones included), built to be met far into the index by the names asked below: prefix
 * globs with a 200-character common start, suffix globs with a 150-character common end, a 60-folder chain, and
 * plain folders beside them.
 */
function adversaryPatterns(k, count) {
  return Array.from({ length: count }, (_, i) => {
    switch (i % 5) {
      case 0:
        return { pattern: `src/${N(200)}k${k}p${i}*`, exclusive: true };
      case 1:
        return { pattern: `docs/*${'m'.repeat(150)}k${k}s${i}`, exclusive: true };
      case 2:
        return { pattern: `${DEEP}k${k}/f${i}.ts`, exclusive: true };
      case 3:
        return { pattern: `src/lib/k${k}/m${i}/**`, exclusive: false };
      default:
        return { pattern: `pkg/k${k}x${i}*`, exclusive: false };
    }
  });
}

/** check_paths as an agent can send it at worst: as many characters as a call takes, of names that walk the index far. */
function worstCheck() {
  const paths = [];
  let chars = 0;
  for (let i = 0; ; i++) {
    const path = [`src/${N(200)}k${i % 20}p${i}q.ts`, `docs/x${'m'.repeat(150)}k${i % 20}s${i}`, `${DEEP}k${i % 20}/f${i}.ts`, `src/lib/k${i % 20}/m${i}/a/b/c.ts`][i % 4];
    if (chars + path.length > LIMITS.checkPathsChars || paths.length === LIMITS.checkPaths) return paths;
    paths.push(path);
    chars += path.length;
  }
}

const ORDINARY = Array.from({ length: 500 }, (_, i) => (i % 10 === 0 ? `${DEEP}k${i % 20}/f${i % 500}.ts` : `src/module${i % 50}/file${i}.ts`));
const LISTS = [
  { path: 'src/*', limit: 500 }, // every reservation under src/ meets it: thousands, a page of 500
  { path: `docs/*${'m'.repeat(150)}k1s1`, limit: 100 },
  { path: `${DEEP}*`, limit: 500 },
  { path: `src/${N(200)}*`, limit: 100 },
];
const starPatterns = (call) => Array.from({ length: 50 }, (_, i) => `${'*b'.repeat(147)}${String.fromCharCode(97 + call)}${i}d`);
const STAR_PATH = `${'*a'.repeat(149)}c`;

/**
 * The watcher's whoami, sent every `everyMs` for `ms` whatever the earlier ones do (an open loop), each timed from when
 * it was due: a stall then delays every call due during it, as it would delay every agent, where calls sent one after
 * another would see it once (coordinated omission).
 */
async function probeWhoami(call, ms, everyMs = 5) {
  const samples = [];
  const calls = [];
  const start = performance.now();
  for (let i = 0; i * everyMs <= ms; i++) {
    const due = start + i * everyMs;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    calls.push(
      call('watcher', 'whoami', {}).then(({ status }) => {
        if (status !== 200) throw new Error(`whoami answered ${status}`);
        samples.push(performance.now() - due);
      }),
    );
  }
  await Promise.all(calls);
  return samples;
}

/** Each attacker sends `next(k, round)` once a second (the default rate limit of 60 calls a minute) until stopped. */
function attack(call, attackers, next) {
  let running = true;
  const loops = attackers.map(async (name, k) => {
    await sleep((1000 * k) / attackers.length); // spread over the second, as independent agents would be
    for (let round = 0; running; round++) {
      const started = performance.now();
      const { tool, args } = next(k, round);
      await call(name, tool, args);
      await sleep(Math.max(0, 1000 - (performance.now() - started)));
    }
  });
  return async () => {
    running = false;
    await Promise.all(loops);
  };
}

/** Runs `fn` up to `count` times or until `budgetMs` has passed; returns the durations (ms) and the statuses seen. */
async function timed(count, budgetMs, fn) {
  const samples = [];
  const statuses = new Set();
  const until = performance.now() + budgetMs;
  for (let i = 0; i < count && (i < 3 || performance.now() < until); i++) {
    const t0 = performance.now();
    statuses.add(await fn(i));
    samples.push(performance.now() - t0);
  }
  return { samples, statuses: [...statuses].sort() };
}

/** The key the daemon before the index kept in the prefix column (its overlap.ts literalPrefix). */
function oldPrefix(pattern) {
  let prefix = '';
  for (const segment of pattern.normalize('NFC').toLowerCase().split('/')) {
    if (segment === '**' || segment.includes('*') || segment.includes('?')) break;
    prefix += `${segment}/`;
  }
  return prefix;
}

/**
 * Writes a claim's reservations straight into the database, as its reserve_paths would have. For the daemon before
 * the index only: there each of these reserve_paths compares its 50 patterns with the thousands already held at the
 * same prefix, in ms a pair, so making the board through it would take hours.
 */
function insertReservations(dbPath, rows) {
  const db = new Database(dbPath);
  try {
    db.pragma('busy_timeout = 10000');
    const insert = db.prepare(
      `INSERT INTO reservations (task_id, claim_id, agent, scope, pattern, prefix, exclusive, reason, created_at) VALUES (@task_id, @claim_id, @agent, '', @pattern, @prefix, @exclusive, NULL, @at)`,
    );
    const at = new Date().toISOString();
    db.transaction(() => {
      for (const r of rows) insert.run({ ...r, prefix: oldPrefix(r.pattern), exclusive: r.exclusive ? 1 : 0, at });
    })();
  } finally {
    db.close();
  }
}

async function runOn(h, { label, bin, dir, agentsPath, tokens, adversaries, perAgent, samples, probeMs, budgetMs, direct }) {
  const dbPath = join(dir, `${label}.db`);
  const daemon = await h.startDaemon(dbPath, agentsPath, undefined, { ...(bin && { bin }), env: { ROUNDTABLE_LEASE_TTL: '1h' } });
  const agent = newAgent(adversaries + 4);
  const call = async (name, tool, args) => postToolAnswer(agent, daemon.port, tokens[name], tool, args);
  const ok = async (name, tool, args) => {
    const answer = await call(name, tool, args);
    if (answer.status !== 200) throw new Error(`${label}: ${tool} by ${name}: HTTP ${answer.status} ${answer.body.slice(0, 300)}`);
    return JSON.parse(answer.body);
  };
  const claimed = async (name) => {
    const id = (await ok('lead', 'create_task', { title: `work of ${name}` })).task.id;
    return (await ok(name, 'claim_task', { task_id: id })).task;
  };
  const out = {};
  try {
    await probeWhoami(call, 500); // warm-up
    out.idle = await probeWhoami(call, probeMs);

    // The issue's attack: one worker, 4 x reserve_paths of 50 "*b" patterns, then lookups by "*a" x 149.
    const attackTask = (await claimed('adv0')).id;
    out.issueReserve = await timed(4, budgetMs, async (i) => (await call('adv0', 'reserve_paths', { task_id: attackTask, paths: starPatterns(i) })).status);
    out.issueList = await timed(samples, budgetMs, async () => (await call('victim', 'list_reservations', { path: STAR_PATH })).status);
    out.issueCheck = await timed(samples, budgetMs, async () => (await call('victim', 'check_paths', { paths: [STAR_PATH, `${'*a'.repeat(148)}*c`] })).status);
    const stopIssue = attack(call, ['adv0'], () => ({ tool: 'list_reservations', args: { path: STAR_PATH } }));
    out.issueWhoami = await probeWhoami(call, probeMs);
    await stopIssue();
    await ok('adv0', 'release_paths', { task_id: attackTask });

    // 10,000 reservations of 20 adversaries, each as many as a worker may hold (three claims of up to 200).
    for (let k = 0; k < adversaries; k++) {
      const wanted = adversaryPatterns(k, perAgent);
      for (let claim = 0; claim * 200 < wanted.length; claim++) {
        const task = await claimed(`adv${k}`);
        const mine = wanted.slice(claim * 200, claim * 200 + 200);
        if (direct) {
          insertReservations(dbPath, mine.map((w) => ({ ...w, task_id: task.id, claim_id: task.claim_id, agent: `adv${k}` })));
          continue;
        }
        for (const exclusive of [true, false]) {
          const paths = mine.filter((w) => w.exclusive === exclusive).map((w) => w.pattern);
          for (let at = 0; at < paths.length; at += 50) await ok(`adv${k}`, 'reserve_paths', { task_id: task.id, paths: paths.slice(at, at + 50), exclusive });
        }
      }
    }
    const live = (await ok('victim', 'list_reservations', { limit: 1 })).reservations.length;
    if (live !== 1) throw new Error(`${label}: the reservations were not made`);
    // Before, the whole call takes minutes (each docs/ name is compared with 2,000 globs at about 0.4 ms a pair):
    // there it is 8 of the same names, 2 of each kind.
    const check = direct ? worstCheck().slice(0, 8) : worstCheck();
    // The four kinds take turns (A B C D, D C B A, ...) after a warm-up of each, so the garbage the 10,000 reservations
    // left, and any slow spell of the machine, lands on all of them alike.
    const kinds = {
      check: async () => (await call('victim', 'check_paths', { paths: check })).status,
      ordinary: async () => (await call('victim', 'check_paths', { paths: ORDINARY })).status,
      list: async (i) => (await call('victim', 'list_reservations', LISTS[i % LISTS.length])).status,
      page: async () => (await call('victim', 'list_reservations', { limit: 500 })).status,
    };
    for (const [name, fn] of Object.entries(kinds)) out[name] = { samples: [], statuses: new Set(), spentMs: 0 };
    const names = Object.keys(kinds);
    const warmup = direct ? 1 : 20; // before, one call of each can take seconds
    for (let round = 0; round < samples + warmup; round++) {
      for (const name of round % 2 === 0 ? names : [...names].reverse()) {
        const slot = out[name];
        if (slot.spentMs > budgetMs && slot.samples.length >= 3) continue; // before: a call may take seconds
        const t0 = performance.now();
        const status = await kinds[name](round);
        const ms = performance.now() - t0;
        slot.spentMs += ms;
        if (round < warmup) continue;
        slot.samples.push(ms);
        slot.statuses.add(status);
      }
    }
    for (const name of names) out[name].statuses = [...out[name].statuses].sort();
    out.checkChars = check.reduce((n, p) => n + p.length, 0);
    out.checkPaths = check.length;
    // One adversary at its rate limit, then all of them at theirs, each in turn sending the worst check_paths, the
    // worst list_reservations and the guard's 500 paths.
    const worst = (k, round) =>
      [
        { tool: 'check_paths', args: { paths: check } },
        { tool: 'list_reservations', args: LISTS[(k + round) % LISTS.length] },
        { tool: 'check_paths', args: { paths: ORDINARY } },
      ][(k + round) % 3];
    let stop = attack(call, ['adv1'], worst);
    out.oneWhoami = await probeWhoami(call, probeMs);
    await stop();
    stop = attack(call, Array.from({ length: adversaries }, (_, k) => `adv${k}`), worst);
    out.allWhoami = await probeWhoami(call, probeMs);
    await stop();
  } finally {
    agent.destroy();
    await h.stopServer(daemon);
  }
  return out;
}

export async function benchReservationAttack(h, { adversaries, perAgent, samples, probeMs, budgetMs }) {
  const dir = h.makeTempDir();
  const { path: agentsPath, tokens } = writeAttackAgents(dir, adversaries);
  const rev = process.env.BENCH_BASELINE_REV ?? revisionBefore('daemon/src/board/scope-index.ts');
  const baseline = buildDaemonAt(rev, dir, 'before-index');
  const shared = { dir, agentsPath, tokens, adversaries, perAgent, samples, probeMs, budgetMs };
  let before;
  let after;
  try {
    before = await runOn(h, { ...shared, label: 'before', bin: baseline.bin, direct: true });
    after = await runOn(h, { ...shared, label: 'after' });
  } finally {
    baseline.remove();
  }
  const total = (adversaries * perAgent).toLocaleString('en-US');
  h.report.table('reservation_attack', `Path-pattern attack (issue 22): p50 / p99 ms, before (git ${rev}, the general glob walk and prefix keys) and after, ${samples} calls each (fewer before where a call takes seconds)`, [
    'call',
    'before',
    'after',
  ]);
  const cell = (t) => {
    if (!t) return '-';
    const p = h.percentiles(t.samples ?? t);
    const statuses = t.statuses ? ` (HTTP ${t.statuses.join(', ')}, ${t.samples.length} calls)` : '';
    return `${h.fmt.ms(p.p50)} / ${h.fmt.ms(p.p99)}${statuses}`;
  };
  const rows = [
    ['the issue\'s attack: reserve_paths of 50 "*b" x 147 patterns, by one worker', before.issueReserve, after.issueReserve],
    ['list_reservations by "*a" x 149 over those', before.issueList, after.issueList],
    ['check_paths of 2 such paths', before.issueCheck, after.issueCheck],
    ['whoami of another agent, idle (sent every 5 ms, timed from when due)', before.idle, after.idle],
    ['whoami while that worker repeats the lookup at its rate limit (1/s)', before.issueWhoami, after.issueWhoami],
    [
      `check_paths at worst (${after.checkPaths} paths, ${after.checkChars.toLocaleString('en-US')} characters of names the index meets far; before: ${before.checkPaths} of them) over ${total} adversarial reservations`,
      before.check,
      after.check,
    ],
    [`check_paths, the guard's 500 ordinary paths, over the ${total}`, before.ordinary, after.ordinary],
    [`list_reservations at worst (src/* meeting thousands, a page of 500; long globs; a 60-folder chain) over the ${total}`, before.list, after.list],
    ['list_reservations, a page of 500 with no path (for scale: the cost of a page that size)', before.page, after.page],
    ['whoami while one of them sends those, in turn, at its rate limit (1/s)', before.oneWhoami, after.oneWhoami],
    [`whoami while all ${adversaries} do (1/s each: ${adversaries} of those calls a second)`, before.allWhoami, after.allWhoami],
  ];
  for (const [what, b, a] of rows) h.report.row('reservation_attack', [what, cell(b), cell(a)]);
  const p99 = (t) => h.percentiles(t.samples ?? t).p99;
  h.report.target(`check_paths at worst over ${total} adversarial reservations: p99 < 5 ms`, `${h.fmt.ms(p99(after.check))} ms`, p99(after.check) < 5);
  h.report.target(`list_reservations at worst over ${total} adversarial reservations: p99 < 5 ms`, `${h.fmt.ms(p99(after.list))} ms`, p99(after.list) < 5);
  for (const [what, under] of [
    ["the issue's attack (one worker, 1/s)", after.issueWhoami],
    [`one adversary sending the worst calls over ${total} at its rate limit`, after.oneWhoami],
  ]) {
    const ratio = p99(under) / p99(after.idle);
    h.report.target(`whoami p99 under ${what} <= 2x its idle p99`, `${h.fmt.ms(p99(under))} ms vs ${h.fmt.ms(p99(after.idle))} ms idle (${h.fmt.ratio(ratio)})`, ratio <= 2);
  }
}
