// Bench section for the client hooks: `roundtable-bridge hook claude-code Stop` from spawn to exit with the board up,
// as Claude Code runs it at the end of every turn, next to the bridge's own start-up (`--version`) in the same run.
// It uses run.mjs's helpers, passed in, so the report, process hygiene and daemon start-up stay in one place.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function postTool(port, token, tool, args) {
  const body = JSON.stringify(args);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: `/api/v1/tools/${tool}`, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${token}` } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))) : reject(new Error(`${tool}: HTTP ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Spawns the bridge bin with args and stdin; resolves with the ms from spawn to exit and its stdout. */
function timedRun(bin, args, env, stdin) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['pipe', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve({ ms: performance.now() - started, stdout }) : reject(new Error(`exit ${code}`))));
    child.stdin.end(stdin);
  });
}

export async function benchHookStop(h, { runs }) {
  const dir = h.makeTempDir();
  const { path: agentsPath, agents } = h.writeAgents(dir);
  const daemon = await h.startDaemon(join(dir, 'hooks.db'), agentsPath);
  const bin = join(h.ROOT, 'bridge/bin/roundtable-bridge.js');
  const stdin = readFileSync(join(h.ROOT, 'test/fixtures/hooks/claude-code/Stop.json'), 'utf8');
  const url = `http://127.0.0.1:${daemon.port}`;
  const envFor = (token) => ({ PATH: process.env.PATH, HOME: process.env.HOME, ROUNDTABLE_TOKEN: token, ROUNDTABLE_STATE_DIR: mkdtempSync(join(tmpdir(), 'roundtable-bench-hook-')) });
  const free = envFor(agents.reader.token);
  const holding = envFor(agents.claimer.token);
  const samples = { version: [], allow: [], block: [] };
  try {
    const task = await postTool(daemon.port, agents.lead.token, 'create_task', { title: 'held', assignee: 'claimer' });
    await postTool(daemon.port, agents.claimer.token, 'claim_task', { task_id: task.task.id });
    // A large --max-blocks, so every run of the holder blocks rather than every fourth letting the stop through.
    const stopArgs = ['hook', 'claude-code', 'Stop', '--url', url];
    for (let i = 0; i < runs + 3; i++) {
      const version = await timedRun(bin, ['--version'], free, '');
      const allow = await timedRun(bin, stopArgs, free, stdin);
      const block = await timedRun(bin, [...stopArgs, '--max-blocks', '100'], holding, stdin);
      if (allow.stdout !== '' || !block.stdout.includes('"block"')) throw new Error(`hook answered ${JSON.stringify([allow.stdout, block.stdout])}`);
      if (i >= 3 && i < runs + 3) {
        samples.version.push(version.ms);
        samples.allow.push(allow.ms);
        samples.block.push(block.ms);
      }
      // Every 100 blocks in a row the hook lets one stop through; start the holder's row afresh well before that.
      if (i % 50 === 49) await timedRun(bin, stopArgs, { ...holding }, stdin.replace('"stop_hook_active": false', '"stop_hook_active": true'));
    }
  } finally {
    await h.stopServer(daemon);
  }
  h.report.table('hook_stop', `Claude Code Stop hook: spawn to exit of \`roundtable-bridge hook claude-code Stop\` with the board up (${runs} runs after 3 warm-up)`, ['run', 'p50 ms', 'p99 ms', 'mean ms']);
  const rows = [
    ['`roundtable-bridge --version` (start-up only, baseline)', samples.version],
    ['hook Stop, nothing held: lets the stop through', samples.allow],
    ['hook Stop, a claim held: blocks', samples.block],
  ];
  for (const [label, list] of rows) {
    const p = h.percentiles(list);
    h.report.row('hook_stop', [label, h.fmt.ms(p.p50), h.fmt.ms(p.p99), h.fmt.ms(p.mean)]);
  }
  const worst = h.percentiles(samples.block);
  h.report.target('hook claude-code Stop p50 < 300 ms from spawn to exit (board up, claim held)', `p50 ${h.fmt.ms(worst.p50)} ms, p99 ${h.fmt.ms(worst.p99)} ms`, worst.p50 < 300);
}
