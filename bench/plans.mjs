// Bench sections for plans as graphs: the ready set and claimable_by_me on a board of 100,000 tasks with 100,000
// dependency edges, and how soon approving a blocker wakes a waiting worker (against a new task's wake-up, same run).
// They use run.mjs's helpers, passed in, so the report, process hygiene and daemon start-up stay in one place.
import http from 'node:http';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { postTool } from './harness.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The list_tasks board (run.mjs's seed: 100,000 tasks, mostly done) plus `edges` dependency edges: each task after the
 * first waits on one of the 50 before it, and the rest go to random earlier tasks; priorities are spread over all
 * four. The blocker counts are recounted as the store keeps them. Returns the open, ready and blocked counts.
 */
function seedPlanBoard(h, path, { tasks, edges }) {
  h.seedTasks(path, tasks);
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  let seed = 11;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const insert = db.prepare('INSERT OR IGNORE INTO task_dependencies (task_id, depends_on) VALUES (?, ?)');
  db.transaction(() => {
    let added = 0;
    for (let id = 2; id <= tasks && added < edges; id++) added += insert.run(id, Math.max(1, id - 1 - Math.floor(rand() * 50))).changes;
    while (added < edges) {
      const id = 2 + Math.floor(rand() * (tasks - 1));
      added += insert.run(id, 1 + Math.floor(rand() * (id - 1))).changes;
    }
    db.exec('UPDATE tasks SET priority = (id * 7919) % 4');
    db.exec(`UPDATE tasks SET
      blocker_count = (SELECT COUNT(*) FROM task_dependencies d JOIN tasks b ON b.id = d.depends_on WHERE d.task_id = tasks.id AND b.status != 'done'),
      cancelled_blocker_count = (SELECT COUNT(*) FROM task_dependencies d JOIN tasks b ON b.id = d.depends_on WHERE d.task_id = tasks.id AND b.status = 'cancelled')`);
  })();
  const count = (sql) => db.prepare(sql).pluck().get();
  const figures = {
    edges: count('SELECT COUNT(*) FROM task_dependencies'),
    open: count("SELECT COUNT(*) FROM tasks WHERE status = 'open'"),
    ready: count("SELECT COUNT(*) FROM tasks WHERE status = 'open' AND blocker_count = 0"),
  };
  db.close();
  return figures;
}

/** list_tasks latency, sequential calls: the ready set and claimable_by_me, beside the plain open listing. */
export async function benchReadySet(h, { tasks, edges, iterations, warmup }) {
  const dir = h.makeTempDir();
  const { path: agentsPath, agents } = h.writeAgents(dir);
  const dbPath = join(dir, 'plans.db');
  const figures = seedPlanBoard(h, dbPath, { tasks, edges });
  const daemon = await h.startDaemon(dbPath, agentsPath);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const cases = [
    ['list_tasks {status: "open"} (id order, as before; reference)', agents.lead.token, { status: 'open' }],
    ['list_tasks {ready: true}', agents.lead.token, { ready: true }],
    ['list_tasks {claimable_by_me: true} (a worker with 3 skills)', agents.lister.token, { claimable_by_me: true }],
    ['list_tasks {claimable_by_me: true}, page 2 (cursor)', agents.lister.token, null],
  ];
  const results = [];
  try {
    const first = await postTool(agent, daemon.port, agents.lister.token, 'list_tasks', { claimable_by_me: true });
    if (!first.next_cursor) throw new Error('claimable_by_me: expected more than one page');
    cases[3][2] = { claimable_by_me: true, cursor: first.next_cursor };
    for (const [label, token, args] of cases) {
      const samples = [];
      for (let i = 0; i < warmup + iterations; i++) {
        const started = performance.now();
        const page = await postTool(agent, daemon.port, token, 'list_tasks', args);
        if (i >= warmup) samples.push(performance.now() - started);
        if (page.tasks.length === 0) throw new Error(`${label}: empty page`);
      }
      results.push([label, h.percentiles(samples)]);
    }
  } finally {
    agent.destroy();
    await h.stopServer(daemon);
  }
  h.report.table(
    'ready_set',
    `Ready set at ${tasks.toLocaleString('en-US')} tasks with ${figures.edges.toLocaleString('en-US')} dependency edges (${figures.open} open: ${figures.ready} ready, ${figures.open - figures.ready} blocked); 50 a page, ${iterations} sequential calls after ${warmup} warm-up, JSON API`,
    ['call', 'p50 ms', 'p99 ms', 'mean ms'],
  );
  for (const [label, p] of results) h.report.row('ready_set', [label, h.fmt.ms(p.p50), h.fmt.ms(p.p99), h.fmt.ms(p.mean)]);
  for (const [label, p] of results.slice(1, 3)) {
    h.report.target(`${label} p50 < ${h.TARGETS.maxListP50Ms} ms at 100k tasks / 100k edges`, `p50 ${h.fmt.ms(p.p50)} ms`, p.p50 < h.TARGETS.maxListP50Ms);
  }
}

/**
 * Unblocking wake-up: a worker waits with nothing it may claim; the leader approves the last blocker of a task; the
 * time from sending review_task to the waiter's answer. Each round also times a plain create_task wake-up on the
 * same daemon, the reference. The worker then takes the freed task through to done, so nothing is left pending.
 */
export async function benchUnblockWake(h, { rounds }) {
  const dir = h.makeTempDir();
  const { path: agentsPath, agents } = h.writeAgents(dir);
  const daemon = await h.startDaemon(join(dir, 'unblock.db'), agentsPath);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const call = (who, tool, args) => postTool(agent, daemon.port, agents[who].token, tool, args);
  const wake = async (act, check) => {
    const waiting = call('claimer', 'wait_for_activity', { timeout_s: 20, for: ['tasks'] }).then((answer) => ({ answer, at: performance.now() }));
    await sleep(20); // let the wait reach the daemon and park
    const sent = performance.now();
    const acted = await act();
    const { answer, at } = await waiting;
    if (answer.reason !== 'activity' || answer.claimable_tasks !== 1) throw new Error(`${check}: the waiter answered ${JSON.stringify(answer)}`);
    return { ms: at - sent, acted };
  };
  const finish = async (who, id) => {
    await call(who, 'claim_task', { task_id: id });
    await call(who, 'submit_result', { task_id: id, result: 'done' });
    await call('lead', 'review_task', { task_id: id, verdict: 'approve' });
  };
  const unblock = [];
  const create = [];
  try {
    for (let i = 0; i < rounds + 5; i++) {
      const blocker = (await call('lead', 'create_task', { title: `blocker ${i}`, required_skills: ['python'] })).task.id;
      const freed = (await call('lead', 'create_task', { title: `freed ${i}`, depends_on: [blocker] })).task.id;
      await call('helper', 'claim_task', { task_id: blocker });
      await call('helper', 'submit_result', { task_id: blocker, result: 'done' });
      const approved = await wake(() => call('lead', 'review_task', { task_id: blocker, verdict: 'approve' }), `unblock round ${i}`);
      await finish('claimer', freed);
      const created = await wake(() => call('lead', 'create_task', { title: `new ${i}` }), `create round ${i}`);
      await finish('claimer', created.acted.task.id);
      if (i >= 5) {
        unblock.push(approved.ms);
        create.push(created.ms);
      }
    }
  } finally {
    agent.destroy();
    await h.stopServer(daemon);
  }
  const u = h.percentiles(unblock);
  const c = h.percentiles(create);
  h.report.table(
    'unblock_wake',
    `Unblocking wake-up: the action sent -> the waiting worker's wait_for_activity answer received (JSON API, ${rounds} rounds after 5 warm-up, alternating)`,
    ['what frees work for the worker', 'p50 ms', 'p99 ms', 'mean ms'],
  );
  h.report.row('unblock_wake', ['review_task approve of the last blocker', h.fmt.ms(u.p50), h.fmt.ms(u.p99), h.fmt.ms(u.mean)]);
  h.report.row('unblock_wake', ['create_task of a new task (reference)', h.fmt.ms(c.p50), h.fmt.ms(c.p99), h.fmt.ms(c.mean)]);
  h.report.target('approval -> woken worker answer p99 < 100 ms', `p99 ${h.fmt.ms(u.p99)} ms (p50 ${h.fmt.ms(u.p50)})`, u.p99 < 100);
}
