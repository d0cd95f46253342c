// Bench section for the work record (issue 35): submit_result through the real bridge over stdio, from a bridge in a
// repository whose branch carries a patch over 1 MiB (cut at the cap), one whose branch changes a few lines, and one
// outside any repository (no work record), and the same submission straight over HTTP without and with that record
// (the daemon's share), in interleaved rounds against one daemon. Target: the 1 MiB patch adds
// at most 150 ms to the call. Run alone with `node bench/work.mjs` (after `npm run build`).
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import * as harness from './harness.mjs';

const TARGET_ADDED_MS = 150;
const KINDS = ['no repository', 'a few lines', '1 MiB patch'];
/** The same calls straight over HTTP, without and with the 1 MiB record: what the daemon's part costs. */
const DIRECT = ['HTTP, no work', 'HTTP, the 1 MiB record'];

function git(cwd, args) {
  execFileSync('git', args, {
    cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@example.test', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@example.test' },
  });
}

/** A repository on main with a feature branch whose commit writes `content` to data.txt. */
function repository(dir, content) {
  mkdirSync(dir, { recursive: true });
  git(dir, ['init', '-q', '-b', 'main']);
  writeFileSync(join(dir, 'README.md'), '# bench\n');
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', 'initial']);
  git(dir, ['checkout', '-q', '-b', 'feature']);
  writeFileSync(join(dir, 'data.txt'), content);
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', 'the work']);
  return dir;
}

function post(port, token, tool, args) {
  const body = JSON.stringify(args);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: `/api/v1/tools/${tool}`, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${token}` } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))) : reject(new Error(`${tool}: HTTP ${res.statusCode} ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}`))));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function bridgeIn(h, cwd, url, token) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(h.ROOT, 'bridge/bin/roundtable-bridge.js'), '--url', url, '--verbose'],
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ROUNDTABLE_TOKEN: token, ROUNDTABLE_STATE_DIR: mkdtempSync(join(tmpdir(), 'roundtable-bench-work-')) },
    cwd,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr.setEncoding('utf8');
  transport.stderr.on('data', (chunk) => (stderr += chunk));
  const client = new Client({ name: 'bench-work', version: '0' }, { capabilities: {} });
  await client.connect(transport);
  return {
    client,
    /** The ms the bridge's debug line says the last work record took to read from git. */
    lastGitMs: () => {
      const all = [...stderr.matchAll(/work record attached .*"ms":(\d+)/g)];
      return all.length ? Number(all.at(-1)[1]) : NaN;
    },
    close: () => client.close(),
  };
}

const spread = (h, list) => `${h.fmt.ms(h.median(list))} (${h.fmt.ms(Math.min(...list))}-${h.fmt.ms(Math.max(...list))})`;

export async function benchWorkRecord(h = harness, { rounds = 15 } = {}) {
  const dir = h.makeTempDir();
  const { path: agentsPath, agents } = h.writeAgents(dir);
  const daemon = await h.startDaemon(join(dir, 'work.db'), agentsPath);
  const url = `http://127.0.0.1:${daemon.port}`;
  const lines = (n, width) => Array.from({ length: n }, (_, i) => `${String(i).padStart(7, '0')} ${'x'.repeat(width)}\n`).join('');
  const folders = {
    'no repository': mkdtempSync(join(dir, 'nowhere-')),
    'a few lines': repository(join(dir, 'small'), lines(10, 60)),
    '1 MiB patch': repository(join(dir, 'big'), lines(17_000, 64)), // about 1.2 MB of patch, cut at 1 MiB
  };
  const bridges = {};
  const samples = { call: Object.fromEntries([...KINDS, ...DIRECT].map((k) => [k, []])), git: [] };
  let record;
  try {
    for (const kind of KINDS) bridges[kind] = await bridgeIn(h, folders[kind], url, agents.claimer.token);
    const submit = async (kind, timed) => {
      const task = await post(daemon.port, agents.lead.token, 'create_task', { title: `bench ${kind}` });
      const claim = await post(daemon.port, agents.claimer.token, 'claim_task', { task_id: task.task.id });
      const args = { task_id: task.task.id, claim_id: claim.task.claim_id, result: 'bench' };
      const started = performance.now();
      if (DIRECT.includes(kind)) {
        await post(daemon.port, agents.claimer.token, 'submit_result', kind === 'HTTP, no work' ? args : { ...args, work: record });
        if (timed) samples.call[kind].push(performance.now() - started);
        return task.task.id;
      }
      const result = await bridges[kind].client.callTool({ name: 'submit_result', arguments: args });
      const ms = performance.now() - started;
      if (result.isError) throw new Error(`submit_result (${kind}): ${result.content?.[0]?.text}`);
      if (timed) {
        samples.call[kind].push(ms);
        if (kind === '1 MiB patch') samples.git.push(bridges[kind].lastGitMs());
      }
      return task.task.id;
    };
    for (const kind of KINDS) await submit(kind, false); // warm-up: connections open, modules loaded
    const check = await post(daemon.port, agents.lead.token, 'get_task', { task_id: await submit('1 MiB patch', false), include_patch: true });
    if (!check.work?.patch_truncated) throw new Error(`the 1 MiB submission carried no cut patch: ${JSON.stringify(check.work)?.slice(0, 300)}`);
    const INPUT_FIELDS = ['branch', 'base', 'head', 'dirty', 'commits', 'files', 'patch', 'patch_truncated', 'patch_bytes'];
    record = Object.fromEntries(INPUT_FIELDS.map((field) => [field, check.work[field]]));
    for (const kind of DIRECT) await submit(kind, false);
    await h.inRounds(rounds, [...KINDS, ...DIRECT], (kind) => submit(kind, true));
  } finally {
    for (const bridge of Object.values(bridges)) await bridge.close().catch(() => {});
    await h.stopServer(daemon);
  }
  h.report.table('work_record', `submit_result through the bridge, by what the bridge's folder holds (${rounds} interleaved rounds; ms, median (min-max))`, ['bridge in', 'submit_result ms', 'added vs no repository']);
  const base = h.median(samples.call['no repository']);
  for (const kind of KINDS) h.report.row('work_record', [kind, spread(h, samples.call[kind]), kind === 'no repository' ? '-' : h.fmt.ms(h.median(samples.call[kind]) - base)]);
  h.report.row('work_record', ['1 MiB patch: reading git alone (the bridge\'s own count)', spread(h, samples.git), '-']);
  const direct = h.median(samples.call['HTTP, no work']);
  for (const kind of DIRECT) h.report.row('work_record', [`${kind} (no bridge)`, spread(h, samples.call[kind]), kind === 'HTTP, no work' ? '-' : `${h.fmt.ms(h.median(samples.call[kind]) - direct)} vs HTTP, no work`]);
  const added = h.median(samples.call['1 MiB patch']) - base;
  h.report.target(`the bridge adds <= ${TARGET_ADDED_MS} ms to submit_result for a 1 MiB patch (median vs no repository)`, `${h.fmt.ms(added)} ms`, added <= TARGET_ADDED_MS);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await benchWorkRecord(harness, { rounds: harness.envInt('BENCH_WORK_ROUNDS', 15) });
  for (const { title, headers, rows } of harness.report.tables.values()) harness.printTable(title, headers, rows);
  harness.printTable('Targets', ['target', 'measured', 'result'], harness.report.targets);
}
