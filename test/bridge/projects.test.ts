// The bridge's side of projects (issue 33): --project (or ROUNDTABLE_PROJECT, or /p/SLUG in the URL) sends every
// request to /p/SLUG/..., a keychain entry per project, the daemon's 403 on another project's URL told as what to do,
// and setup writing the project into the entry. The board is a stand-in on loopback that answers as the daemon with
// projects does (test/helpers/projects-stand-in.ts) and records every path.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { ROOT, token } from '../helpers/board.js';
import { body, BRIDGE_BIN, bridgeEnv, startBridge } from '../helpers/bridge.js';
import { fixture, runHookProcess } from '../helpers/hook.js';
import { requireOrSkip, sharedKeyringProblem } from '../helpers/keychain.js';
import { spawnTracked, stopProcess } from '../helpers/processes.js';
import { projectsStandIn, type ProjectsStandIn } from '../helpers/projects-stand-in.js';

const TOKEN = { web: token(), api: token(), default: token() };
const outputs: string[] = [];
let board: ProjectsStandIn;
let scratch: string;

beforeAll(async () => {
  board = await projectsStandIn(
    new Map([
      [TOKEN.web, { project: 'web', name: 'web-w1' }],
      [TOKEN.api, { project: 'api', name: 'api-w1' }],
      [TOKEN.default, { project: 'default', name: 'default-w1' }],
    ]),
  );
  scratch = mkdtempSync(join(tmpdir(), 'roundtable-projects-'));
});
afterAll(async () => {
  await board?.close();
  rmSync(scratch, { recursive: true, force: true });
  // No token reached anything the bridge printed.
  for (const out of outputs) for (const secret of Object.values(TOKEN)) expect(out).not.toContain(secret);
});
beforeEach(() => {
  board.requests.length = 0;
});

interface Run {
  readonly code: number | null;
  readonly output: string;
  readonly stdout: string;
}

/** Runs one bridge command to completion with exactly this environment (and this stdin). */
async function bridge(args: string[], env: Record<string, string>, options: { stdin?: string; cwd?: string } = {}): Promise<Run> {
  const child = spawnTracked(process.execPath, [BRIDGE_BIN, ...args], { env, cwd: options.cwd ?? ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin!.on('error', () => {});
  child.stdin!.end(options.stdin ?? '');
  const killer = setTimeout(() => void stopProcess(child, 'SIGKILL').catch(() => {}), 60_000);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearTimeout(killer);
  outputs.push(stdout, stderr);
  return { code, stdout, output: stdout + stderr };
}

/** The API requests the stand-in saw (not /status). */
const apiRequests = () => board.requests.filter((line) => line.includes('/api/'));

describe('--project: every request goes to /p/SLUG/...', () => {
  it('status --project web asks whoami at /p/web/api/v1/tools/whoami; without a project, at the unprefixed route', async () => {
    const run = await bridge(['status', '--url', board.url, '--project', 'web'], bridgeEnv({ ROUNDTABLE_TOKEN: TOKEN.web }));
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toContain('project:  web');
    expect(run.stdout).toContain('agent:    web-w1 (worker)');
    expect(board.requests).toContain('GET /status');
    expect(apiRequests()).toEqual(['POST /p/web/api/v1/tools/whoami']);

    board.requests.length = 0;
    const plain = await bridge(['status', '--url', board.url], bridgeEnv({ ROUNDTABLE_TOKEN: TOKEN.default }));
    expect(plain.code, plain.output).toBe(0);
    expect(plain.stdout).not.toContain('project:');
    expect(apiRequests()).toEqual(['POST /api/v1/tools/whoami']);
  });

  it('ROUNDTABLE_PROJECT names the project as --project does', async () => {
    const run = await bridge(['status', '--url', board.url], bridgeEnv({ ROUNDTABLE_TOKEN: TOKEN.api, ROUNDTABLE_PROJECT: 'api' }));
    expect(run.code, run.output).toBe(0);
    expect(apiRequests()).toEqual(['POST /p/api/api/v1/tools/whoami']);
  });

  it('the stdio server given https://host/p/SLUG/mcp sends its tool calls and heartbeats to /p/SLUG/...', async () => {
    const session = await startBridge({ args: ['--url', `${board.url}/p/web/mcp`], env: bridgeEnv({ ROUNDTABLE_TOKEN: TOKEN.web }) });
    onTestFinished(() => session.close());
    const result = await session.client.callTool({ name: 'whoami', arguments: {} });
    expect(result.isError, JSON.stringify(result)).not.toBe(true);
    expect(body(result)).toMatchObject({ name: 'web-w1', board: 'web' });
    expect(apiRequests().length).toBeGreaterThan(0);
    for (const line of apiRequests()) expect(line).toMatch(/^\w+ \/p\/web\/api\/v1\//);
  });

  it('a hook with --project asks the project', async () => {
    const run = await runHookProcess({
      url: board.url,
      token: TOKEN.web,
      stateDir: mkdtempSync(join(scratch, 'state-')),
      client: 'claude-code',
      event: 'SessionStart',
      stdin: fixture('claude-code', 'SessionStart'),
      args: ['--project', 'web'],
    });
    outputs.push(run.stdout, run.stderr);
    expect(run.code, run.stderr).toBe(0);
    expect(apiRequests().length).toBeGreaterThan(0);
    for (const line of apiRequests()) expect(line).toMatch(/^POST \/p\/web\/api\/v1\//);
  });

  it('guard --install writes the project into the pre-commit hook, and the commit asks check_paths of the project', async () => {
    const repo = mkdtempSync(join(scratch, 'repo-'));
    const env = bridgeEnv({
      HOME: mkdtempSync(join(scratch, 'home-')),
      ROUNDTABLE_TOKEN: TOKEN.web,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'w',
      GIT_AUTHOR_EMAIL: 'w@example.test',
      GIT_COMMITTER_NAME: 'w',
      GIT_COMMITTER_EMAIL: 'w@example.test',
    });
    // Asynchronously: the stand-in answers the hook from this process, which a synchronous child would hold up.
    const git = (...args: string[]) => promisify(execFile)('git', args, { cwd: repo, env });
    await git('init', '-q');
    const installed = await bridge(['guard', '--install', '--url', `${board.url}/p/web`], env, { cwd: repo });
    expect(installed.code, installed.output).toBe(0);
    expect(readFileSync(join(repo, '.git/hooks/pre-commit'), 'utf8')).toContain(`'--url' '${board.url}' '--project' 'web'`);
    writeFileSync(join(repo, 'a.txt'), 'a\n');
    await git('add', 'a.txt');
    const commit = await git('commit', '-q', '-m', 'a');
    outputs.push(commit.stdout, commit.stderr);
    expect(commit.stderr).not.toContain('warning');
    // The pre-commit check asks check_paths; the prepare-commit-msg hook (the Roundtable-Task trailer, issue 35) asks
    // whoami and list_tasks: every one of them at the project's URL.
    expect(apiRequests()).toEqual(['POST /p/web/api/v1/tools/check_paths', 'POST /p/web/api/v1/tools/whoami', 'POST /p/web/api/v1/tools/list_tasks']);
    expect(readFileSync(join(repo, '.git/hooks/prepare-commit-msg'), 'utf8')).toContain(`'--url' '${board.url}' '--project' 'web'`);
  });

  it('refuses a project name that breaks the rule, naming --project and the rule', async () => {
    const run = await bridge(['status', '--url', board.url, '--project', 'Web_1'], bridgeEnv({ ROUNDTABLE_TOKEN: TOKEN.web }));
    expect(run.code).toBe(1);
    expect(run.output).toContain('--project: "Web_1" is not a project name');
    expect(run.output).toContain('1-40 lowercase letters, digits and "-"');
    expect(board.requests).toEqual([]);
  });

  it('refuses a URL and a --project that name different projects', async () => {
    const run = await bridge(['status', '--url', `${board.url}/p/web`, '--project', 'api'], bridgeEnv({ ROUNDTABLE_TOKEN: TOKEN.web }));
    expect(run.code).toBe(1);
    expect(run.output).toContain('--project names the project "api" but --url names "web"');
    expect(board.requests).toEqual([]);
  });
});

describe("a token on another project's URL (403 forbidden)", () => {
  const said = (slug: string) => `for the project "${slug}": that token opens another project, or there is no project "${slug}". Check the project (--project`;

  it('status names the project and what to do, and exits 1 as for a refused token', async () => {
    const run = await bridge(['status', '--url', board.url, '--project', 'api'], bridgeEnv({ ROUNDTABLE_TOKEN: TOKEN.web }));
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(said('api'));
    expect(run.stdout).toContain('set ROUNDTABLE_TOKEN to a token of the project "api"');
  });

  it('login stores nothing and says why', async () => {
    const run = await bridge(['login', '--url', board.url, '--project', 'api', '--token-stdin'], bridgeEnv(), { stdin: `${TOKEN.web}\n` });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(said('api'));
    expect(run.stdout).toContain(`\`roundtable-bridge login --url ${board.url} --project api\``);
    expect(run.stdout).toContain('Nothing was stored.');
  });

  it("the stdio server answers the tool call with it; a board rule's 403 keeps the board's own words", async () => {
    const session = await startBridge({ args: ['--url', board.url, '--project', 'api'], env: bridgeEnv({ ROUNDTABLE_TOKEN: TOKEN.web }) });
    onTestFinished(() => session.close());
    const refused = await session.client.callTool({ name: 'whoami', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(body(refused).error.code).toBe('forbidden');
    expect(body(refused).error.message).toContain(said('api'));

    const own = await startBridge({ args: ['--url', board.url, '--project', 'web'], env: bridgeEnv({ ROUNDTABLE_TOKEN: TOKEN.web }) });
    onTestFinished(() => own.close());
    const rule = await own.client.callTool({ name: 'create_task', arguments: { title: 'x' } });
    expect(rule.isError).toBe(true);
    expect(body(rule).error.message).toBe('only the leader or an owner may create tasks; you are web-w1, a worker');
  });
});

describe('a keychain entry per board, project and profile', () => {
  let problem: string | undefined;
  beforeAll(async () => {
    problem = await sharedKeyringProblem();
  });
  requireOrSkip(() => problem);

  it('two logins for two projects on one URL keep two tokens, beside the login without a project', async () => {
    const env = bridgeEnv();
    const origin = new URL(board.url).origin;
    for (const [project, secret] of [['web', TOKEN.web], ['api', TOKEN.api], [undefined, TOKEN.default]] as const) {
      const args = ['--url', board.url, ...(project === undefined ? [] : ['--project', project])];
      onTestFinished(async () => void (await bridge(['logout', ...args], env)));
      const login = await bridge(['login', ...args, '--token-stdin'], env, { stdin: `${secret}\n` });
      expect(login.code, login.output).toBe(0);
      expect(login.stdout).toContain(`account "${project === undefined ? origin : `${origin}/p/${project}`}"`);
    }
    for (const [project, name] of [['web', 'web-w1'], ['api', 'api-w1'], [undefined, 'default-w1']] as const) {
      const run = await bridge(['status', '--url', board.url, ...(project === undefined ? [] : ['--project', project])], env);
      expect(run.code, run.output).toBe(0);
      expect(run.stdout).toContain(`token:    from keychain (account "${project === undefined ? origin : `${origin}/p/${project}`}")`);
      expect(run.stdout).toContain(`agent:    ${name} (worker)`);
    }
    // The server started with --project api reads that project's entry.
    const session = await startBridge({ args: ['--url', board.url, '--project', 'api'], env: bridgeEnv() });
    onTestFinished(() => session.close());
    const me = await session.client.callTool({ name: 'whoami', arguments: {} });
    expect(body(me)).toMatchObject({ name: 'api-w1' });
  });
});

describe('setup --project', () => {
  const script = () => realpathSync(BRIDGE_BIN);

  function folders() {
    const root = mkdtempSync(join(scratch, 'setup-'));
    const dirs = { home: join(root, 'home'), project: join(root, 'project') };
    mkdirSync(dirs.home);
    mkdirSync(dirs.project);
    return dirs;
  }

  it("writes --project into the repository's entry and its hooks, and checks whoami through the project", async () => {
    const dirs = folders();
    const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: dirs.home, ROUNDTABLE_TOKEN: TOKEN.web };
    const run = await bridge(['setup', 'claude-code', '--scope', 'project', '--url', board.url, '--project', 'web', '--hooks'], env, { cwd: dirs.project });
    expect(run.code, run.output).toBe(0);
    const entry = JSON.parse(readFileSync(join(dirs.project, '.mcp.json'), 'utf8')).mcpServers.roundtable;
    expect(entry).toEqual({ command: process.execPath, args: [script(), '--url', board.url, '--project', 'web'] });
    const hooks = JSON.parse(readFileSync(join(dirs.project, '.claude/settings.json'), 'utf8')).hooks as Record<string, Array<{ hooks: Array<{ command: string }> }>>;
    for (const [event, groups] of Object.entries(hooks)) expect(groups[0]!.hooks[0]!.command, event).toMatch(/ --url \S+ --project web$/);
    expect(run.stdout).toContain('the board answered whoami through it: web-w1 (worker)');
    expect(apiRequests()).toContain('POST /p/web/api/v1/tools/whoami');
    expect(apiRequests().filter((line) => !line.includes(' /p/web/'))).toEqual([]);
  });

  it('takes the project from a URL that names it, and writes it the same way', async () => {
    const dirs = folders();
    const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: dirs.home };
    const run = await bridge(['setup', 'codex', '--url', `${board.url}/p/api/mcp`, '--no-check'], env, { cwd: dirs.project });
    expect(run.code, run.output).toBe(0);
    const toml = readFileSync(join(dirs.home, '.codex/config.toml'), 'utf8');
    expect(toml).toContain(`args = [${JSON.stringify(script())}, "--url", "${board.url}", "--project", "api"]`);
    expect(run.stdout).toContain(`roundtable-bridge login --url ${board.url} --project api`);
  });
});
