// Bench section for the board's size: the hot calls at 1,000,000 tasks beside the same calls at 10,000, each on a
// board seeded directly with SQLite (synchronous=OFF, one transaction) and served by the daemon from a durable copy.
import http from 'node:http';
import { join } from 'node:path';
import { against, copyDurably, createBoardDb, envInt, fmt, makeTempDir, percentiles, post, report, startDaemon, stopServer, WAITS_PER_AGENT, writeAgents } from './harness.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const THREAD_MESSAGES = 10_000;
const SKILL_SETS = ['[]', '["typescript"]', '["sql"]', '["python"]', '["typescript","sql"]', '["docs"]', '["go"]', '["ops","python"]'];

/**
 * A board of `n` tasks as a long-lived board looks: almost all done, a few percent open (most needing some skill),
 * some submitted, a few held now by the bench's workers, and one task whose thread has 10,000 messages. Each task has
 * its creation row; the counters of migration 008 are kept by its triggers as the rows go in.
 */
function seedScaleBoard(path, n) {
  const at = '2025-01-01T00:00:00.000Z';
  const workers = ['reader', 'claimer', 'lister', 'helper'];
  createBoardDb(path, (w) => {
    const { db } = w;
    const task = db.prepare(
      `INSERT INTO tasks (id, title, description, required_skills, status, assignee, created_by, result, created_at, updated_at)
       VALUES (?, ?, '', ?, ?, ?, 'lead', ?, ?, ?)`,
    );
    const skill = db.prepare('INSERT INTO task_skills (task_id, skill) VALUES (?, ?)');
    const created = db.prepare("INSERT INTO activity (task_id, agent, action, from_status, to_status, created_at) VALUES (?, 'lead', 'created', NULL, 'open', ?)");
    const message = db.prepare("INSERT INTO messages (task_id, author, kind, text, created_at) VALUES (?, 'claimer', 'progress', ?, ?)");
    let held = 0;
    for (let id = 1; id <= n; id++) {
      const r = (id * 2654435761) % 1000; // spread evenly and deterministically
      let status = r < 940 ? 'done' : r < 950 ? 'cancelled' : r < 995 ? 'open' : 'submitted';
      let assignee = status === 'done' || status === 'submitted' ? `former-${id % 50}` : null;
      if (status === 'open' && held < 40 && r % 7 === 0) {
        status = 'claimed';
        assignee = workers[held++ % workers.length];
      }
      const skills = status === 'open' || status === 'claimed' ? SKILL_SETS[id % SKILL_SETS.length] : '[]';
      task.run(id, `Task ${id}`, skills, status, assignee, status === 'done' || status === 'submitted' ? 'result' : null, at, at);
      for (const s of JSON.parse(skills)) skill.run(id, s);
      created.run(id, at);
    }
    for (let i = 1; i <= THREAD_MESSAGES; i++) message.run(n, `message ${i} of a long thread`, at);
  });
}

/** p50 of `iterations` sequential calls of one request (after a warm-up). */
async function latency(send, iterations) {
  for (let i = 0; i < 20; i++) await send();
  const samples = [];
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    const res = await send();
    samples.push(performance.now() - t);
    if (res.status !== 200) throw new Error(`HTTP ${res.status} ${res.body ?? res.error ?? ''}`);
  }
  return percentiles(samples);
}

function getJson(agent, port, path) {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'GET', agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', (error) => resolve({ status: 0, error }));
    req.end();
  });
}

/**
 * Parks 100 waits of observers (at most WAITS_PER_AGENT each, so 13 of them) waiting for messages, then one post to
 * everyone wakes them all: the time in all. Observers, since at this size a worker always has something claimable.
 */
async function wake100(port, agents) {
  const times = [];
  for (let round = 0; round < 5; round++) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 110 });
    try {
      // Read what earlier rounds posted first, so every wait parks instead of answering "pending".
      for (const token of agents.watchers) await post(agent, port, '/api/v1/tools/read_unread', token, '{}');
      const parked = Array.from({ length: 100 }, (_, i) => post(agent, port, '/api/v1/tools/wait_for_activity', agents.watchers[i % agents.watchers.length], '{"timeout_s":50,"for":["messages"]}', true));
      await sleep(1000);
      const t1 = performance.now();
      await post(agent, port, '/api/v1/tools/post', agents.lead.token, JSON.stringify({ to: 'all', text: `round ${round}` }));
      const answers = await Promise.all(parked);
      const t2 = performance.now();
      if (answers.some((a) => a.status !== 200)) throw new Error('a parked wait did not answer 200');
      times.push(t2 - t1);
    } finally {
      agent.destroy();
    }
  }
  return percentiles(times);
}

export async function benchScale() {
  const large = envInt('BENCH_SCALE_TASKS', 1_000_000);
  const sizes = [10_000, large];
  const results = {};
  const seeded = {};
  for (const n of sizes) {
    const dir = makeTempDir();
    const { path: agentsPath, agents } = writeAgents(dir, { watchers: Math.ceil(100 / WAITS_PER_AGENT) });
    const seedPath = join(dir, 'seed.db');
    const t0 = performance.now();
    seedScaleBoard(seedPath, n);
    seeded[n] = performance.now() - t0;
    const dbPath = join(dir, 'served.db');
    copyDurably(seedPath, dbPath);
    const server = await startDaemon(dbPath, agentsPath, undefined, { env: { ROUNDTABLE_STATUS_RATE_LIMIT_PER_MINUTE: '100000' } });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
    try {
      const call = (who, tool, args) => post(agent, server.port, `/api/v1/tools/${tool}`, agents[who].token, JSON.stringify(args), true);
      const iterations = 200;
      results[n] = {
        'wait_for_activity returning at once (claimer)': await latency(() => call('claimer', 'wait_for_activity', { timeout_s: 0 }), iterations),
        members: await latency(() => call('lead', 'members', {}), iterations),
        '/status (no token)': await latency(() => getJson(agent, server.port, '/status'), iterations),
        [`get_task of a task with ${THREAD_MESSAGES.toLocaleString('en-US')} messages (first page)`]: await latency(() => call('reader', 'get_task', { task_id: n }), iterations),
        'waking 100 parked waiters, in all (5 rounds)': await wake100(server.port, agents),
      };
      const size = (await call('reader', 'get_task', { task_id: n })).body.length;
      report.note(`scale: get_task of the ${THREAD_MESSAGES}-message task at ${n.toLocaleString('en-US')} tasks answers ${(size / 1024).toFixed(1)} KB`);
    } finally {
      agent.destroy();
      await stopServer(server);
    }
  }
  const [small, big] = sizes;
  report.table(
    'scale',
    `The hot calls at ${big.toLocaleString('en-US')} tasks beside ${small.toLocaleString('en-US')} (p50 of 200 sequential calls; boards seeded in ${(seeded[small] / 1000).toFixed(1)} s and ${(seeded[big] / 1000).toFixed(1)} s)`,
    ['call', `${small.toLocaleString('en-US')} tasks p50 ms`, `${big.toLocaleString('en-US')} tasks p50 ms`, 'ratio', `p99 ms at ${big.toLocaleString('en-US')}`],
  );
  for (const name of Object.keys(results[small])) {
    const a = results[small][name];
    const b = results[big][name];
    const ratio = against(b.p50, a.p50, { atMost: 1.5 });
    report.row('scale', [name, fmt.ms(a.p50), fmt.ms(b.p50), ratio.text, fmt.ms(b.p99)]);
    const limit = name.startsWith('waking') ? 50 : 5;
    report.target(`${name} at ${big.toLocaleString('en-US')} tasks: <= 1.5x of ${small.toLocaleString('en-US')} and < ${limit} ms`, `${ratio.text}, ${fmt.ms(b.p50)} ms`, ratio.holds && b.p50 < limit);
  }
}
