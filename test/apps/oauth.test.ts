// Apps join by signing in (issue 34), in the real Codex and opencode: `codex mcp login` and `opencode mcp auth` each find
// the board's authorization server from its 401 (path-inserted discovery for /p/web), register themselves (dynamic
// registration, turned on for this board; Codex is told `--oauth-client-registration dcr`, since by default it names
// itself by its metadata document at chatgpt.com, which this machine cannot reach), and wait on their own loopback callback; the test opens the authorization
// URL each prints in headless Chromium, where the person signs in and chooses the agent. Then each app, against the
// stand-in model, calls whoami over its stored OAuth token and is the agent granted. Codex's stored access token never
// appears in the board's output. Skipped without scripts/install-apps.sh or Chromium, unless ROUNDTABLE_REQUIRE_APPS=1.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appBin, appsProblem, nodeDir, REQUIRE_APPS_FLAG, runApp } from '../helpers/apps.js';
import { startBoard, token, type TestBoard } from '../helpers/board.js';
import { requireOrSkip } from '../helpers/keychain.js';
import { boardToolOf, modelApis, type ModelApis, type Script } from '../helpers/model-apis.js';
import { CHROMIUM_ARGS, consentInBrowser } from '../helpers/oauth.js';

const CHROMIUM = '/usr/bin/chromium';
let problem: string | undefined;
let board: TestBoard;
let model: ModelApis;
let browser: Browser;
let work: string;
const tokens: Record<string, string> = { 'web-lead': token(), 'web-w1': token(), olive: token() };
const sha = (value: string) => createHash('sha256').update(value).digest('hex');
const whoamiOnce: Script = (turn) => (turn.calls.some((c) => c.tool === 'whoami') ? { say: 'Done.' } : { call: 'whoami' });
/** A printed authorization URL, whole: the output arrives in chunks, so only a URL followed by white space counts. */
const AUTHORIZE = /(https?:\/\/\S+\/oauth\/authorize\?\S+)\s/;

beforeAll(async () => {
  problem = appsProblem(['@openai/codex', 'opencode-ai', 'node24']) ?? (existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is missing`);
  if (problem) {
    if (process.env[REQUIRE_APPS_FLAG] !== '1') console.warn(`the real-app OAuth test is skipped: ${problem}`);
    return;
  }
  work = mkdtempSync(join(tmpdir(), 'roundtable-apps-oauth-'));
  const dir = join(work, 'board');
  mkdirSync(dir);
  const agent = (name: string, role: string) => ({ name, role, skills: [], token_sha256: sha(tokens[name]!) });
  writeFileSync(
    join(dir, 'agents.json'),
    JSON.stringify({
      projects: [
        { slug: 'default', mode: 'role', agents: [] },
        { slug: 'web', title: 'Web app', mode: 'role', agents: [agent('web-lead', 'leader'), agent('web-w1', 'worker')] },
      ],
      people: [{ name: 'olive', token_sha256: sha(tokens['olive']!), grants: { web: 'owner' } }],
    }),
    { mode: 0o600 },
  );
  board = await startBoard({ dir, tokens, env: { ROUNDTABLE_OAUTH_REGISTRATION: '1' } });
  model = await modelApis();
  model.script('codex-oauth', whoamiOnce);
  model.script('opencode-oauth', whoamiOnce);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}, 60_000);

afterAll(async () => {
  if (problem) return;
  await browser?.close();
  await model?.close();
  await board?.stop();
  rmSync(work, { recursive: true, force: true });
});

const homeOf = (app: string) => join(work, `home-${app}`);

function appEnv(app: string, extra: Record<string, string> = {}): Record<string, string> {
  const home = homeOf(app);
  return {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    PATH: `${nodeDir(24)}:${process.env['PATH'] ?? '/usr/bin:/bin'}`,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    SHELL: '/bin/sh',
    ...extra,
  };
}

/** Runs an app's login command; `authorize` gets the authorization URL it printed (or opened) and does the consent. */
function login(app: 'codex' | 'opencode', args: string[], env: Record<string, string>, urlOf: (output: string) => string | undefined, authorize: (url: string) => Promise<void>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(appBin(app), args, { env, cwd: homeOf(app), stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    let started = false;
    const look = () => {
      const url = urlOf(output);
      if (started || !url) return;
      started = true;
      authorize(url).catch((error: unknown) => {
        child.kill('SIGKILL');
        reject(error instanceof Error ? error : new Error(String(error)));
      });
    };
    const poll = setInterval(look, 100);
    child.stdout.on('data', (d: Buffer) => ((output += d.toString()), look()));
    child.stderr.on('data', (d: Buffer) => ((output += d.toString()), look()));
    const deadline = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.once('close', (code) => {
      clearInterval(poll);
      clearTimeout(deadline);
      resolve({ code, output });
    });
  });
}

const redirectOf = (url: string) => new URL(url).searchParams.get('redirect_uri')!;

function whoamiOf(script: string): string | undefined {
  return model
    .turnsOf(script)
    .flatMap((turn) => turn.conversation.calls)
    .find((call) => boardToolOf(call.name) === 'whoami')?.resultText;
}

describe('Codex and opencode sign in to a project with OAuth', () => {
  requireOrSkip(() => problem, REQUIRE_APPS_FLAG);

  it('codex mcp login, then Codex acts as the new agent the person made', async () => {
    const codexHome = join(homeOf('codex'), '.codex');
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(
      join(codexHome, 'config.toml'),
      [
        'model = "stand-in"',
        'model_provider = "standin"',
        'mcp_oauth_credentials_store = "file"',
        '',
        '[model_providers.standin]',
        'name = "stand-in"',
        `base_url = "${model.baseFor('codex-oauth')}/v1"`,
        'wire_api = "responses"',
        'env_key = "STANDIN_KEY"',
        '',
        '[mcp_servers.roundtable]',
        `url = "${board.url}/p/web/mcp"`,
        '',
      ].join('\n'),
    );
    const env = appEnv('codex', { CODEX_HOME: codexHome, STANDIN_KEY: 'sk-stand-in' });
    let authorizationUrl = '';
    const signedIn = await login('codex', ['mcp', 'login', 'roundtable', '--no-browser', '--oauth-client-registration', 'dcr'], env, (out) => AUTHORIZE.exec(out)?.[1], async (url) => {
      authorizationUrl = url;
      await consentInBrowser(browser, url, redirectOf(url), { token: tokens['olive']!, newAgent: { name: 'codex-app', role: 'worker' } });
    });
    expect(signedIn.code, signedIn.output).toBe(0);
    const asked = new URL(authorizationUrl).searchParams;
    expect(asked.get('resource')).toBe(`${board.url}/p/web/mcp`);
    expect(asked.get('code_challenge_method')).toBe('S256');
    expect(asked.get('client_id')).toMatch(/^rtapp_/);

    mkdirSync(join(homeOf('codex'), 'repo'), { recursive: true });
    const result = await runApp({ app: 'codex', args: ['exec', '--skip-git-repo-check', '--json', 'Who am I on the Roundtable board?'], env, cwd: join(homeOf('codex'), 'repo') });
    expect(result.code, result.stderr).toBe(0);
    expect(whoamiOf('codex-oauth'), JSON.stringify(model.turnsOf('codex-oauth')).slice(0, 2000)).toMatch(/"name":\s*"codex-app"[\s\S]*"role":\s*"worker"/);

    // Codex keeps the tokens in its own file; none of them reaches the board's output.
    const stored = readdirSync(codexHome).map((f) => (f.endsWith('.json') ? readFileSync(join(codexHome, f), 'utf8') : '')).join('\n');
    const access = /rta_[A-Za-z0-9_-]{43}/.exec(stored)?.[0];
    expect(access, `no access token in ${readdirSync(codexHome).join(', ')}`).toBeDefined();
    const out = board.output();
    expect(out.stdout + out.stderr).not.toContain(access!);
  }, 240_000);

  it('opencode mcp auth, then opencode acts as the existing worker the person granted', async () => {
    const config = join(homeOf('opencode'), '.config', 'opencode');
    mkdirSync(config, { recursive: true });
    const provider = { npm: '@ai-sdk/anthropic', name: 'stand-in', options: { baseURL: `${model.baseFor('opencode-oauth')}/v1`, apiKey: 'sk-stand-in' }, models: { model: { name: 'stand-in', tool_call: true } } };
    writeFileSync(join(config, 'opencode.json'), JSON.stringify({ $schema: 'https://opencode.ai/config.json', model: 'standin/model', provider: { standin: provider }, mcp: { roundtable: { type: 'remote', url: `${board.url}/p/web/mcp` } } }, null, 2));
    // opencode opens the URL with $BROWSER: a script that writes it down for the test, which opens it in Chromium.
    const opened = join(work, 'opencode-opened.txt');
    const browserScript = join(work, 'browser.sh');
    writeFileSync(browserScript, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${opened}'\n`);
    chmodSync(browserScript, 0o755);
    const env = appEnv('opencode', { BROWSER: browserScript, OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_DEFAULT_PLUGINS: '1', OPENCODE_DISABLE_SHARE: '1', OPENCODE_DISABLE_LSP_DOWNLOAD: '1' });
    const signedIn = await login(
      'opencode',
      ['mcp', 'auth', 'roundtable'],
      env,
      (out) => (existsSync(opened) ? readFileSync(opened, 'utf8').trim().split('\n')[0] : AUTHORIZE.exec(out)?.[1]),
      (url) => consentInBrowser(browser, url, redirectOf(url), { token: tokens['olive']!, agent: 'web-w1' }),
    );
    expect(signedIn.code, signedIn.output.slice(-2000)).toBe(0);
    expect(signedIn.output).toContain('Authentication successful');

    mkdirSync(join(homeOf('opencode'), 'repo'), { recursive: true });
    const result = await runApp({ app: 'opencode', args: ['run', '--format', 'json', 'Who am I on the Roundtable board?'], env, cwd: join(homeOf('opencode'), 'repo') });
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    expect(whoamiOf('opencode-oauth'), JSON.stringify(model.turnsOf('opencode-oauth')).slice(0, 2000)).toMatch(/"name":\s*"web-w1"[\s\S]*"role":\s*"worker"/);
  }, 240_000);
});
