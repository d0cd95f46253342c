// Bench sections for webhooks (issue 26): the delivery latency from a commit to the receiver's 200, and what one
// configured webhook costs the board's writes (claims, which tell no one, and help requests, which each write an
// outbox row and a delivery), the two daemons measured in alternating rounds in one run.
import http from 'node:http';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { CONFIG, DAEMON_BIN, copyDurably, createLoad, inRounds, postTool, seedClaimBoard } from './harness.mjs';

function startReceiver() {
  const arrivals = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200).end('ok');
      arrivals.push({ at: performance.now(), body: Buffer.concat(chunks).toString('utf8') });
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, arrivals, port: server.address().port })));
}

/** `roundtable webhooks add` against a board that is not running yet (the CLI migrates the file first). */
function addWebhook(dbPath, agentsPath, url, events) {
  const out = execFileSync(process.execPath, [DAEMON_BIN, 'webhooks', 'add', url, '--events', events, '--allow-http-loopback', '--json'], {
    env: { PATH: process.env.PATH, ROUNDTABLE_DB_PATH: dbPath, ROUNDTABLE_AGENTS_CONFIG: agentsPath },
    encoding: 'utf8',
  });
  return JSON.parse(out).id;
}

/** Commit to the receiver's answer: submit_result sent (it commits before answering) to the 200 the receiver sent. */
export async function benchWebhookLatency(h, { rounds }) {
  const dir = h.makeTempDir();
  const { path: agentsPath, agents } = h.writeAgents(dir);
  const dbPath = join(dir, 'latency.db');
  const receiver = await startReceiver();
  addWebhook(dbPath, agentsPath, `http://127.0.0.1:${receiver.port}/hook`, 'submitted');
  const server = await h.startDaemon(dbPath, agentsPath);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
  const lead = agents.lead.token;
  const worker = agents.claimer.token;
  const fromSend = [];
  const fromAnswer = [];
  try {
    for (let i = 0; i < rounds + 20; i++) {
      const { task } = await postTool(agent, server.port, lead, 'create_task', { title: 'webhook latency' });
      const claimed = await postTool(agent, server.port, worker, 'claim_task', { task_id: task.id });
      const before = receiver.arrivals.length;
      const sent = performance.now();
      await postTool(agent, server.port, worker, 'submit_result', { task_id: task.id, result: 'done', claim_id: claimed.task.claim_id });
      const answered = performance.now();
      const deadline = Date.now() + 10_000;
      while (receiver.arrivals.length === before) {
        if (Date.now() > deadline) throw new Error('webhook_latency: no delivery within 10 s');
        await new Promise((r) => setImmediate(r));
      }
      const at = receiver.arrivals[before].at;
      if (i < 20) continue; // warm-up
      fromSend.push(at - sent);
      fromAnswer.push(at - answered);
    }
    const a = h.percentiles(fromSend);
    const b = h.percentiles(fromAnswer);
    h.report.table('webhook_latency', `Webhook delivery latency, SQLite, one json webhook on loopback, ${rounds} submissions one at a time (ms)`, ['measured from', 'p50', 'p99']);
    h.report.row('webhook_latency', ['submit_result sent (includes its commit) to the receiver\'s 200', h.fmt.ms(a.p50), h.fmt.ms(a.p99)]);
    h.report.row('webhook_latency', ['submit_result answered to the receiver\'s 200', h.fmt.ms(b.p50), h.fmt.ms(b.p99)]);
    h.report.target('webhook delivery p50 < 100 ms (submit_result sent to the receiver\'s 200)', `${h.fmt.ms(a.p50)} ms`, a.p50 < 100);
  } finally {
    agent.destroy();
    await h.stopServer(server);
    receiver.server.close();
  }
}

/** Claims and help requests per second on two copies of one board, without and with a webhook on every event. */
export async function benchWebhookCost(h, { rounds }) {
  const dir = h.makeTempDir();
  const { path: agentsPath, agents } = h.writeAgents(dir);
  const seedPath = join(dir, 'seed.db');
  seedClaimBoard(seedPath);
  const kinds = ['no webhook', 'one webhook'];
  const dbPath = (kind) => join(dir, `${kind.replace(' ', '-')}.db`);
  for (const kind of kinds) copyDurably(seedPath, dbPath(kind));
  const receiver = await startReceiver();
  addWebhook(dbPath('one webhook'), agentsPath, `http://127.0.0.1:${receiver.port}/hook`, 'submitted,help_request,lease_expired,blocker_cancelled,rejected,owner_message');
  const servers = {};
  const loads = {};
  try {
    for (const kind of kinds) servers[kind] = await h.startDaemon(dbPath(kind), agentsPath);
    for (const kind of kinds) {
      loads[`claim ${kind}`] = createLoad({ port: servers[kind].port, path: '/api/v1/tools/claim_task', token: agents.claimer.token, body: (seq) => `{"task_id":${seq + 1}}` });
      loads[`help ${kind}`] = createLoad({
        port: servers[kind].port,
        path: '/api/v1/tools/post_message',
        token: agents.lead.token,
        body: (seq) => `{"task_id":${CONFIG.claimTasks - (seq % 1000)},"kind":"help_request","text":"bench ${seq}"}`,
      });
    }
    for (const load of Object.values(loads)) await load.run(CONFIG.warmupMs, false);
    // Claims first, while no delivery is in flight anywhere; then help requests, each round starting only once the
    // receiver has every delivery of the rounds before it (a backlog would otherwise land on the next round).
    const drained = async () => {
      const expected = () => Object.entries(loads).filter(([n]) => n === 'help one webhook').reduce((sum, [, l]) => sum + l.result().totalOk, 0);
      const deadline = Date.now() + 120_000;
      while (receiver.arrivals.length < expected() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    };
    await drained();
    await inRounds(rounds, ['claim no webhook', 'claim one webhook'], (name) => loads[name].run(CONFIG.durationMs, true));
    await inRounds(rounds, ['help no webhook', 'help one webhook'], async (name) => {
      await drained();
      await loads[name].run(CONFIG.durationMs, true);
    });
    await drained();
    h.report.table(
      'webhook_cost',
      `What one configured webhook costs the board's writes: two copies of one SQLite board, ${rounds} alternating rounds of ${CONFIG.durationMs / 1000} s at ${CONFIG.concurrency} clients (JSON API)`,
      ['call', 'no webhook (calls/s)', 'one webhook (calls/s)', 'with vs without', 'deliveries received'],
    );
    const delivered = receiver.arrivals.length;
    const posted = loads['help one webhook'].result().totalOk;
    if (delivered !== posted) h.report.note(`webhook_cost: ${posted} help requests with a webhook, ${delivered} deliveries received`);
    let claimCost;
    for (const call of ['claim', 'help']) {
      const none = loads[`${call} no webhook`].result();
      const one = loads[`${call} one webhook`].result();
      const ratio = one.rps / none.rps;
      if (call === 'claim') claimCost = 1 - ratio;
      h.report.row('webhook_cost', [call === 'claim' ? 'claim_task' : 'post_message help_request', h.fmt.rps(none.rps), h.fmt.rps(one.rps), h.fmt.ratio(ratio), call === 'help' ? `${delivered} of ${loads['help one webhook'].result().totalOk}` : '0 (a claim tells no one)']);
      for (const r of [none, one]) if (r.errors) h.report.note(`webhook_cost ${call}: ${r.errors} errors (${r.firstError})`);
    }
    h.report.target('a configured webhook costs < 5 % of claim_task throughput', `${(claimCost * 100).toFixed(1)} %`, claimCost < 0.05);
  } finally {
    for (const load of Object.values(loads)) load.close();
    for (const server of Object.values(servers)) await h.stopServer(server);
    receiver.server.close();
  }
}
