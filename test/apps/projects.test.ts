// Two projects on one daemon, and the real Claude Code and Codex each set up by `roundtable-bridge setup --project` from
// this checkout (issue 33): each app's entry lands on its own project. Claude Code works for project `web`, Codex for
// `default`; each agent's token is stored by `login --project` in the session's Secret Service under its own account,
// and the stand-in model has each app call whoami, whose answer names the agent and its project's board. The same
// worker token on the other project's URL is refused 403. The token is stored only under the project's keychain account,
// so an entry without --project would find no token: the answers prove the entries carry their project. Skipped without scripts/install-apps.sh or a keyring,
// unless ROUNDTABLE_REQUIRE_APPS=1.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appsProblem, nodeDir, REQUIRE_APPS_FLAG, runApp } from '../helpers/apps.js';
import { startBoard, token, type TestBoard } from '../helpers/board.js';
import { BRIDGE_BIN } from '../helpers/bridge.js';
import { requireOrSkip, sharedKeyringProblem } from '../helpers/keychain.js';
import { boardToolOf, modelApis, type ModelApis, type Script } from '../helpers/model-apis.js';

let problem: string | undefined;
let board: TestBoard;
let model: ModelApis;
let work: string;
const run = randomBytes(2).toString('hex');
const tokens: Record<string, string> = { lead: token(), w1: token(), boss: token(), ww: token() };
const sha = (value: string) => createHash('sha256').update(value).digest('hex');
const whoamiOnce: Script = (turn) => (turn.calls.some((c) => c.tool === 'whoami') ? { say: 'Done.' } : { call: 'whoami' });

beforeAll(async () => {
  problem = appsProblem(['@anthropic-ai/claude-code', '@openai/codex', 'node22', 'node24']) ?? (await sharedKeyringProblem());
  if (problem) {
    if (process.env[REQUIRE_APPS_FLAG] !== '1') console.warn(`the real-app test of projects is skipped: ${problem}`);
    return;
  }
  work = mkdtempSync(join(tmpdir(), 'roundtable-apps-projects-'));
  const dir = join(work, 'board');
  mkdirSync(dir);
  const agent = (name: string, role: string) => ({ name, role, skills: [], token_sha256: sha(tokens[name]!) });
  writeFileSync(
    join(dir, 'agents.json'),
    JSON.stringify({
      projects: [
        { slug: 'default', title: 'Main board', mode: 'role', agents: [agent('lead', 'leader'), agent('w1', 'worker')] },
        { slug: 'web', title: 'Web app', mode: 'role', agents: [agent('boss', 'leader'), agent('ww', 'worker')] },
      ],
      people: [],
    }),
    { mode: 0o600 },
  );
  board = await startBoard({ dir, tokens });
  model = await modelApis();
  model.script('claude-web', whoamiOnce);
  model.script('codex-default', whoamiOnce);
}, 60_000);

afterAll(async () => {
  if (problem) return;
  for (const [home, project] of [[homeOf('claude'), 'web'], [homeOf('codex'), 'default']] as const) {
    await bridge(['logout', '--url', board.url, '--project', project, '--profile', `projects-${run}`], home);
  }
  await model?.close();
  await board?.stop();
  rmSync(work, { recursive: true, force: true });
});

const homeOf = (app: string) => join(work, `home-${app}`);

function appEnv(app: string, node: 22 | 24, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { HOME: homeOf(app), PATH: `${nodeDir(node)}:${process.env['PATH'] ?? '/usr/bin:/bin'}`, LANG: 'C.UTF-8', TERM: 'dumb', SHELL: '/bin/sh' };
  for (const name of ['DBUS_SESSION_BUS_ADDRESS', 'XDG_RUNTIME_DIR']) if (process.env[name]) env[name] = process.env[name]!;
  return { ...env, ...extra };
}

function bridge(args: string[], home: string, stdin = ''): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [BRIDGE_BIN, ...args], { env: { ...appEnv('x', 22), HOME: home }, cwd: home, timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    );
    child.stdin!.end(stdin);
  });
}

/** The agent's token in the keyring under its project's account, and the app's entry written by setup with --project. */
async function prepare(app: string, client: string, agent: string, project: string): Promise<void> {
  const home = homeOf(app);
  mkdirSync(join(home, 'repo'), { recursive: true });
  const login = await bridge(['login', '--url', board.url, '--project', project, '--profile', `projects-${run}`, '--token-stdin'], home, `${tokens[agent]!}\n`);
  expect(login.code, login.out).toBe(0);
  const setup = await bridge(['setup', client, '--url', board.url, '--project', project, '--profile', `projects-${run}`], home);
  expect(setup.code, setup.out).toBe(0);
  expect(setup.out).toContain(`whoami through it: ${agent} (`);
}

function whoamiOf(script: string): string | undefined {
  return model
    .turnsOf(script)
    .flatMap((turn) => turn.conversation.calls)
    .find((call) => boardToolOf(call.name) === 'whoami')?.resultText;
}

describe('two projects on one daemon, in the real Claude Code and Codex', () => {
  requireOrSkip(() => problem, REQUIRE_APPS_FLAG);

  it('Claude Code set up with --project web is ww on the Web app board', async () => {
    await prepare('claude', 'claude-code', 'ww', 'web');
    const entry = JSON.stringify(JSON.parse(readFileSync(join(homeOf('claude'), '.claude.json'), 'utf8')).mcpServers);
    expect(entry).toContain('"--project","web"');
    const result = await runApp({
      app: 'claude',
      args: ['-p', 'Who am I on the Roundtable board?', '--output-format', 'json', '--allowedTools', `mcp__roundtable-projects-${run}`],
      env: appEnv('claude', 22, { ANTHROPIC_BASE_URL: model.baseFor('claude-web'), ANTHROPIC_API_KEY: 'sk-stand-in', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1' }),
      cwd: join(homeOf('claude'), 'repo'),
    });
    expect(result.code, result.stderr + result.stdout.slice(-2000)).toBe(0);
    const answer = whoamiOf('claude-web');
    expect(answer, JSON.stringify(model.turnsOf('claude-web')).slice(0, 2000)).toMatch(/"name":\s*"ww"[\s\S]*"board":\s*"Web app"/);
  }, 180_000);

  it('Codex set up with --project default is w1 on the main board; its token is refused on web', async () => {
    mkdirSync(join(homeOf('codex'), '.codex'), { recursive: true });
    writeFileSync(
      join(homeOf('codex'), '.codex', 'config.toml'),
      `model = "stand-in"\nmodel_provider = "standin"\n\n[model_providers.standin]\nname = "stand-in"\nbase_url = "${model.baseFor('codex-default')}/v1"\nwire_api = "responses"\nenv_key = "STANDIN_KEY"\n`,
    );
    await prepare('codex', 'codex', 'w1', 'default');
    expect(readFileSync(join(homeOf('codex'), '.codex', 'config.toml'), 'utf8')).toMatch(/"--project", "default"|"--project","default"/);
    const result = await runApp({
      app: 'codex',
      args: ['exec', '--skip-git-repo-check', '--json', 'Who am I on the Roundtable board?'],
      env: appEnv('codex', 24, { STANDIN_KEY: 'sk-stand-in' }),
      cwd: join(homeOf('codex'), 'repo'),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(whoamiOf('codex-default'), JSON.stringify(model.turnsOf('codex-default')).slice(0, 2000)).toMatch(/"name":\s*"w1"[\s\S]*"board":\s*"Main board"/);
    const across = await fetch(`${board.url}/p/web/api/v1/tools/whoami`, { method: 'POST', headers: { authorization: `Bearer ${tokens['w1']}`, 'content-type': 'application/json' }, body: '{}' });
    expect(across.status).toBe(403);
  }, 180_000);
});
