// What the work cost, for real (issue 35): Claude Code 2.1.328 and Codex 0.169.0 run headless against the stand-in
// model, with the bridge as their MCP server, each claiming and submitting a task. The stand-in reports usage figures
// of its choosing in each answer; the usage the bridge added to submit_result (read from the app's own session file)
// must be the sum of the answers from the one that claimed the task to the one that submitted it.
// Needs scripts/install-apps.sh (skipped without it, unless ROUNDTABLE_REQUIRE_APPS=1). Tokens go in ROUNDTABLE_TOKEN:
// this test is about the session files, not the keychain (agent-apps.test.ts covers that).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appsProblem, nodeDir, REQUIRE_APPS_FLAG, runApp } from '../helpers/apps.js';
import { api, startBoard, type TestBoard } from '../helpers/board.js';
import { BRIDGE_BIN } from '../helpers/bridge.js';
import { requireOrSkip } from '../helpers/keychain.js';
import { modelApis, type ModelApis, type ModelTurn, type RecordedRequest } from '../helpers/model-apis.js';
import type { WireUsage } from '../helpers/model-wire.js';
import { readBody, standInServer, type StandIn } from '../helpers/net.js';

const AGENTS = [
  { name: 'lead', role: 'leader' as const },
  { name: 'claude', role: 'worker' as const },
  { name: 'codex', role: 'worker' as const },
];

let problem: string | undefined;
let board: TestBoard;
let model: ModelApis;
let work: string;
/** Between the bridges and the board: records each call's JSON body, so the test sees the usage the bridge sent. */
let proxy: StandIn & { readonly calls: Array<{ path: string; body: any }> };

/** Distinct figures per answer, so a sum over the wrong answers cannot match by chance. */
const figures = (index: number): WireUsage => ({ input: 1000 + 17 * index, output: 50 + 3 * index, cacheRead: 20_000 + 101 * index, cacheWrite: 300 + 7 * index, reasoning: 4 });

beforeAll(async () => {
  problem = appsProblem(['@anthropic-ai/claude-code', '@openai/codex', 'node22', 'node24']);
  if (problem) {
    if (process.env[REQUIRE_APPS_FLAG] !== '1') console.warn(`the real agent-app usage tests are skipped: ${problem}`);
    return;
  }
  board = await startBoard({ agents: AGENTS });
  model = await modelApis();
  work = mkdtempSync(join(tmpdir(), 'roundtable-usage-'));
  const calls: Array<{ path: string; body: any }> = [];
  const standIn = await standInServer(async (req, res) => {
    const body = await readBody(req);
    try {
      calls.push({ path: req.url ?? '', body: body ? JSON.parse(body) : undefined });
    } catch {
      calls.push({ path: req.url ?? '', body: undefined });
    }
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name)) as Array<[string, string]>);
    const answer = await fetch(`${board.url}${req.url ?? ''}`, { method: req.method ?? 'GET', headers, ...(body && { body }) });
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  proxy = Object.assign(standIn, { calls });
}, 120_000);

afterAll(async () => {
  if (problem) return;
  const dump = process.env['ROUNDTABLE_APPS_DUMP'];
  if (dump) writeFileSync(dump, JSON.stringify({ requests: model.requests }, null, 1));
  await model?.close();
  await proxy?.close();
  await board?.stop();
  if (!process.env['ROUNDTABLE_KEEP']) rmSync(work, { recursive: true, force: true });
});

const called = (turn: ModelTurn, tool: string) => turn.calls.filter((c) => c.tool === tool);

/** A git repository with one commit, as a worker's checkout. */
function repository(folder: string): void {
  mkdirSync(folder, { recursive: true });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: folder, env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } });
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Worker');
  git('config', 'user.email', 'worker@example.invalid');
  writeFileSync(join(folder, 'README.md'), 'start\n');
  git('add', 'README.md');
  git('commit', '-qm', 'start');
}

async function createTask(assignee: string): Promise<number> {
  const created = await api(board, 'lead', 'create_task', { title: `a change for ${assignee}`, assignee });
  expect(created.status).toBe(200);
  return (created.body['task'] as { id: number }).id;
}

/**
 * The sum, in the board's sense, of the answers after the one that called `from` up to the one that called `to`
 * (`shift` 0), or from the one that called `from` up to the one before that called `to` (`shift` 1: Codex writes an
 * answer's token_count after the tool calls it made have answered, so a call's report cannot hold its own answer).
 */
function reportedBetween(app: string, from: string, to: string, shift: 0 | 1 = 0): { input_tokens: number; output_tokens: number; cached_tokens: number } {
  const requests = model.requests.filter((r) => r.app === app);
  const callsTo = (r: RecordedRequest, tool: string) => 'call' in r.step && (r.step.call.endsWith(`__${tool}`) || r.step.call.endsWith(`::${tool}`) || r.step.call === tool);
  const start = requests.findIndex((r) => callsTo(r, from));
  const end = requests.findIndex((r) => callsTo(r, to));
  expect(start, `${app} called ${from}`).toBeGreaterThanOrEqual(0);
  expect(end, `${app} called ${to}`).toBeGreaterThan(start);
  const sum = { input_tokens: 0, output_tokens: 0, cached_tokens: 0 };
  for (const r of requests.slice(start + 1 - shift, end + 1 - shift)) {
    sum.input_tokens += r.usage.input + r.usage.cacheWrite;
    sum.output_tokens += r.usage.output;
    sum.cached_tokens += r.usage.cacheRead;
  }
  return sum;
}

/** The usage each submit_result that went through the proxy carried. */
function usageSent(taskId: number): unknown[] {
  return proxy.calls.filter((c) => c.path.includes('submit_result') && c.body?.task_id === taskId).map((c) => c.body.usage);
}

/** What the bridge's ledger says it reported (its state folder): the same figures, from the bridge's side. */
function ledgerOf(stateDir: string): Array<{ app: string; baseline: Record<string, number>; reports: number }> {
  const folder = join(stateDir, 'usage');
  const file = readdirSync(folder).find((name) => name.endsWith('.ledger.json'))!;
  return Object.values((JSON.parse(readFileSync(join(folder, file), 'utf8')) as { sessions: Record<string, any> }).sessions);
}

function appEnv(home: string, node: 22 | 24, extra: Record<string, string>): Record<string, string> {
  return { HOME: home, PATH: `${nodeDir(node)}:${process.env['PATH'] ?? '/usr/bin:/bin'}`, LANG: 'C.UTF-8', TERM: 'dumb', SHELL: '/bin/sh', ...extra };
}

describe('usage from the real apps, through the bridge', () => {
  requireOrSkip(() => problem, REQUIRE_APPS_FLAG);

  it("Claude Code edits a file, commits and submits; the board holds the usage of the answers from its claim to its submission", async () => {
    const taskId = await createTask('claude');
    const home = join(work, 'home-claude');
    const project = join(work, 'checkout.claude');
    const stateDir = join(work, 'state-claude');
    mkdirSync(join(home, '.claude'), { recursive: true });
    repository(project);
    const bridgeEnv = { ROUNDTABLE_TOKEN: board.tokens['claude']!, ROUNDTABLE_STATE_DIR: stateDir };
    const hook = (event: string) => ({ hooks: [{ type: 'command', command: `'${join(nodeDir(22), 'node')}' '${BRIDGE_BIN}' hook claude-code ${event} --url ${board.url}` }] });
    writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify({ hooks: { SessionStart: [hook('SessionStart')] } }));
    const mcpConfig = join(work, 'claude-mcp.json');
    writeFileSync(mcpConfig, JSON.stringify({ mcpServers: { roundtable: { command: join(nodeDir(22), 'node'), args: [BRIDGE_BIN, '--url', proxy.url], env: bridgeEnv } } }));
    model.usage('claude-usage', figures);
    model.script('claude-usage', (turn) => {
      const claim = called(turn, 'claim_task').find((c) => c.result?.task);
      if (!claim) return { call: 'claim_task', args: { task_id: taskId } };
      if (!turn.ownCalls.some((c) => c.name === 'Bash')) {
        return { call: 'Bash', own: true, note: 'Making the change.', args: { command: 'echo changed >> README.md && git commit -qam "a change"', description: 'commit a change' } };
      }
      if (!called(turn, 'submit_result').length) return { call: 'submit_result', args: { task_id: taskId, claim_id: claim.result.task.claim_id, result: 'The change is committed.' } };
      return { say: 'Submitted.' };
    });
    const env = appEnv(home, 22, { ...bridgeEnv, ANTHROPIC_BASE_URL: model.baseFor('claude-usage'), ANTHROPIC_API_KEY: 'sk-stand-in', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1' });
    const run = await runApp({ app: 'claude', args: ['-p', 'Do your task on the Roundtable board.', '--output-format', 'json', '--strict-mcp-config', '--mcp-config', mcpConfig, '--allowedTools', 'Bash,mcp__roundtable'], env, cwd: project });
    expect(run.code, run.stderr + run.stdout.slice(-2000)).toBe(0);
    expect(execFileSync('git', ['log', '--format=%s'], { cwd: project, encoding: 'utf8' })).toBe('a change\nstart\n');

    const expected = reportedBetween('claude-usage', 'claim_task', 'submit_result');
    expect(usageSent(taskId)).toEqual([{ ...expected, model: 'claude-opus-5-5' }]);
    const [session] = ledgerOf(stateDir);
    expect(session).toMatchObject({ app: 'claude-code', reports: 1 });
    const task = (await api(board, 'lead', 'get_task', { task_id: taskId })).body;
    expect(task['task'].status).toBe('submitted');
    expect(task['usage']).toEqual({ reports: 1, ...expected, cost_usd: 0, models: ['claude-opus-5-5'] });
    // The work record the bridge added: on main, so it starts at the HEAD of the claim, and holds the commit the
    // scripted model made, as git tells it.
    const git = (...args: string[]) => execFileSync('git', args, { cwd: project, encoding: 'utf8' }).trim();
    const withPatch = (await api(board, 'lead', 'get_task', { task_id: taskId, include_patch: true })).body['work'];
    expect(withPatch).toMatchObject({
      branch: 'main',
      base: git('rev-parse', 'HEAD~1'),
      head: git('rev-parse', 'HEAD'),
      dirty: false,
      commits: [{ id: git('rev-parse', 'HEAD'), subject: 'a change' }],
      files: [{ path: 'README.md', added: 1, removed: 0 }],
      submitted_by: 'claude',
      patch_kept: true,
    });
    expect(withPatch.patch).toBe(execFileSync('git', ['diff', '-M', '--no-color', '--no-ext-diff', '--no-textconv', 'HEAD~1', 'HEAD'], { cwd: project, encoding: 'utf8' }));
  });

  it('Codex claims and submits; the board holds the usage of its answers from the claim to the one before the submission', async () => {
    const taskId = await createTask('codex');
    const home = join(work, 'home-codex');
    const project = join(work, 'checkout.codex');
    const stateDir = join(work, 'state-codex');
    mkdirSync(join(home, '.codex'), { recursive: true });
    repository(project);
    const entry = `[mcp_servers.roundtable]\ncommand = ${JSON.stringify(join(nodeDir(24), 'node'))}\nargs = ${JSON.stringify([BRIDGE_BIN, '--url', proxy.url])}\nrequired = true\n\n[mcp_servers.roundtable.env]\nROUNDTABLE_TOKEN = ${JSON.stringify(board.tokens['codex']!)}\nROUNDTABLE_STATE_DIR = ${JSON.stringify(stateDir)}\n`;
    writeFileSync(join(home, '.codex', 'config.toml'), `model = "stand-in"\nmodel_provider = "standin"\n\n[model_providers.standin]\nname = "stand-in"\nbase_url = "${model.baseFor('codex-usage')}/v1"\nwire_api = "responses"\nenv_key = "STANDIN_KEY"\n\n${entry}`);
    model.usage('codex-usage', figures);
    model.script('codex-usage', (turn) => {
      const claim = called(turn, 'claim_task').find((c) => c.result?.task);
      if (!claim) return { call: 'claim_task', args: { task_id: taskId } };
      if (!called(turn, 'submit_result').length) return { call: 'submit_result', args: { task_id: taskId, claim_id: claim.result.task.claim_id, result: 'Done.' } };
      return { say: 'Submitted.' };
    });
    const run = await runApp({ app: 'codex', args: ['exec', '--json', 'Do your task on the Roundtable board.'], env: appEnv(home, 24, { STANDIN_KEY: 'sk-stand-in' }), cwd: project });
    expect(run.code, run.stderr + run.stdout.slice(-2000)).toBe(0);

    const expected = reportedBetween('codex-usage', 'claim_task', 'submit_result', 1);
    expect(usageSent(taskId)).toEqual([{ ...expected, model: 'stand-in' }]);
    const [session] = ledgerOf(stateDir);
    expect(session).toMatchObject({ app: 'codex', reports: 1 });
    const task = (await api(board, 'lead', 'get_task', { task_id: taskId })).body;
    expect(task['task'].status).toBe('submitted');
    expect(task['usage']).toEqual({ reports: 1, ...expected, cost_usd: 0, models: ['stand-in'] });
  });
});
