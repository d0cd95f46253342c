// Bench section for the real agent apps (installed by scripts/install-apps.sh): for each app, the time from its launch
// to the first board tool result reaching its model (the stand-in of test/helpers/model-apis.ts, bundled here with
// esbuild); and the connect time Claude Code logs ("Successfully connected (transport: ...) in N ms") for the entry
// `setup` writes (the installed bin), beside the HTTP transport to /mcp and the npx form setup wrote before, in rounds.
// The token comes from ROUNDTABLE_TOKEN (Gemini CLI: ROUNDTABLE_TOKEN_FILE in its entry, since it passes no variable
// named *TOKEN*), so the section needs no keyring. Skipped, with a note, when the apps are not installed.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const APPS = ['claude', 'codex', 'gemini', 'opencode'];

/** The stand-in model, built from the test helper so the bench and the tests speak the same wire. */
async function loadModelApis(root) {
  const outfile = join(root, 'bench/out/model-apis.mjs');
  await build({ entryPoints: [join(root, 'test/helpers/model-apis.ts')], bundle: true, platform: 'node', format: 'esm', outfile, packages: 'external', logLevel: 'error' });
  return import(pathToFileURL(outfile).href);
}

function sh(command, args, options) {
  return execFileSync(command, args, { encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'], timeout: 300_000, ...options });
}

/** Spawns an app; resolves with its exit and the ms from spawn, keeping the spawn time for the model's timestamps. */
function launch(bin, args, { env, cwd }) {
  return new Promise((resolve, reject) => {
    const startedAt = Date.now();
    const started = performance.now();
    const child = spawn(bin, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
    child.stdout.resume();
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`${bin} exited ${code}: ${stderr}`));
      else resolve({ startedAt, ms: performance.now() - started });
    });
  });
}

export async function benchAgentApps(h, { runs }) {
  const appsDir = process.env.ROUNDTABLE_APPS_DIR || join(h.ROOT, '.apps');
  const bins = Object.fromEntries(APPS.map((a) => [a, join(appsDir, 'node_modules', '.bin', a)]));
  const node24 = join(appsDir, 'node_modules', 'node24', 'bin');
  if (!APPS.every((a) => existsSync(bins[a])) || !existsSync(node24)) {
    h.report.note(`agent_apps skipped: the apps are not installed in ${appsDir} (scripts/install-apps.sh)`);
    return;
  }
  const { modelApis } = await loadModelApis(h.ROOT);
  const dir = h.makeTempDir();
  const { path: agentsPath, agents } = h.writeAgents(dir);
  const daemon = await h.startDaemon(join(dir, 'apps.db'), agentsPath);
  const url = `http://127.0.0.1:${daemon.port}`;
  const model = await modelApis();
  const tarball = join(dir, JSON.parse(sh('npm', ['pack', '--json', '--loglevel=error', '--pack-destination', dir, '-w', 'bridge'], { cwd: h.ROOT }))[0].filename);
  sh('npm', ['install', '-g', '--prefix', join(dir, 'global'), '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarball], { cwd: dir });
  const bridgeBin = join(dir, 'global', 'bin', 'roundtable-bridge');
  const token = agents.reader.token;
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, token, { mode: 0o600 });
  const PATH = `${node24}:${process.env.PATH}`;
  // npm's cache stays the user's own, as for anyone who runs npx: only the app's own settings get a fresh HOME.
  const npmCache = join(homedir(), '.npm');
  // And the machine's way to the registry (its proxy and CA), which npx needs.
  const network = Object.fromEntries(Object.entries(process.env).filter(([k]) => /^(NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|https?_proxy|no_proxy|npm_config_(cafile|proxy|https_proxy|registry))$/i.test(k)));
  const envFor = (home, extra = {}) => ({ ...network, HOME: home, PATH, LANG: 'C.UTF-8', TERM: 'dumb', SHELL: '/bin/sh', ROUNDTABLE_TOKEN: token, npm_config_cache: npmCache, ...extra });
  const homeFor = (name) => {
    const home = join(dir, `home-${name}`);
    mkdirSync(join(home, 'project'), { recursive: true });
    return home;
  };
  const setup = (client, home) => sh(bridgeBin, ['setup', client, '--url', url, '--no-check'], { env: envFor(home), cwd: home });
  const whoamiFirst = (turn) => (turn.calls.some((c) => c.tool === 'whoami') ? { say: 'done' } : { call: 'whoami' });
  const claudeEnv = (home, app) => envFor(home, { ANTHROPIC_BASE_URL: model.baseFor(app), ANTHROPIC_API_KEY: 'sk-bench', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1' });

  // One home per app, each configured by setup (the model's provider is the app's own config).
  const homes = {};
  homes.claude = homeFor('claude');
  setup('claude-code', homes.claude);
  homes.codex = homeFor('codex');
  mkdirSync(join(homes.codex, '.codex'));
  writeFileSync(join(homes.codex, '.codex', 'config.toml'), `model = "bench"\nmodel_provider = "bench"\n\n[model_providers.bench]\nname = "bench"\nbase_url = "${model.baseFor('codex')}/v1"\nwire_api = "responses"\nenv_key = "BENCH_KEY"\n`);
  setup('codex', homes.codex);
  homes.gemini = homeFor('gemini');
  mkdirSync(join(homes.gemini, '.gemini'));
  writeFileSync(join(homes.gemini, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }));
  writeFileSync(join(homes.gemini, '.gemini', 'trustedFolders.json'), JSON.stringify({ [join(homes.gemini, 'project')]: 'TRUST_FOLDER' }));
  setup('gemini-cli', homes.gemini);
  const geminiSettings = JSON.parse(readFileSync(join(homes.gemini, '.gemini', 'settings.json'), 'utf8'));
  geminiSettings.mcpServers.roundtable.env = { ROUNDTABLE_TOKEN_FILE: tokenFile };
  writeFileSync(join(homes.gemini, '.gemini', 'settings.json'), JSON.stringify(geminiSettings, null, 2));
  homes.opencode = homeFor('opencode');
  mkdirSync(join(homes.opencode, '.config', 'opencode'), { recursive: true });
  const opencodeConfig = (app) => ({ $schema: 'https://opencode.ai/config.json', model: 'bench/model', provider: { bench: { npm: '@ai-sdk/anthropic', name: 'bench', options: { baseURL: `${model.baseFor(app)}/v1`, apiKey: 'x' }, models: { model: { name: 'bench', tool_call: true } } } } });
  writeFileSync(join(homes.opencode, '.config', 'opencode', 'opencode.json'), JSON.stringify(opencodeConfig('opencode')));
  setup('opencode', homes.opencode);

  // Claude Code's connect time for three entries, each alone in a home of its own.
  const connectHomes = { bin: homes.claude, http: homeFor('claude-http'), npx: homeFor('claude-npx') };
  // The README's HTTP example: single quotes, so Claude Code expands ${ROUNDTABLE_TOKEN} when it connects.
  sh(bins.claude, ['mcp', 'add', '--transport', 'http', '-s', 'user', 'roundtable', `${url}/mcp`, '--header', 'Authorization: Bearer ${ROUNDTABLE_TOKEN}'], { env: envFor(connectHomes.http), cwd: connectHomes.http });
  if (readFileSync(join(connectHomes.http, '.claude.json'), 'utf8').includes(token)) throw new Error('claude mcp add wrote the token into .claude.json');
  writeFileSync(join(connectHomes.npx, '.claude.json'), JSON.stringify({ mcpServers: { roundtable: { command: 'npx', args: ['-y', `--package=${tarball}`, 'roundtable-bridge', '--url', url] } } }));

  const opencodeEnv = { OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_DEFAULT_PLUGINS: '1', OPENCODE_DISABLE_SHARE: '1', OPENCODE_DISABLE_LSP_DOWNLOAD: '1' };
  let n = 0;
  const runApp = async (app) => {
    const name = `${app}-${n++}`;
    model.script(name, whoamiFirst);
    const home = homes[app];
    const cwd = join(home, 'project');
    let run;
    if (app === 'claude') run = await launch(bins.claude, ['-p', 'Call whoami.', '--output-format', 'json', '--allowedTools', 'mcp__roundtable'], { env: claudeEnv(home, name), cwd });
    else if (app === 'codex') {
      const file = join(home, '.codex', 'config.toml');
      writeFileSync(file, readFileSync(file, 'utf8').replace(/base_url = ".*"/, `base_url = "${model.baseFor(name)}/v1"`));
      run = await launch(bins.codex, ['exec', '--skip-git-repo-check', '--json', 'Call whoami.'], { env: envFor(home, { BENCH_KEY: 'x' }), cwd });
    } else if (app === 'gemini') run = await launch(bins.gemini, ['-p', 'Call whoami.', '--output-format', 'json', '--approval-mode', 'yolo'], { env: envFor(home, { GOOGLE_GEMINI_BASE_URL: model.baseFor(name), GEMINI_API_KEY: 'x' }), cwd });
    else {
      const file = join(home, '.config', 'opencode', 'opencode.json');
      // The provider's URL names this run; the server entry setup wrote stays.
      writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), provider: opencodeConfig(name).provider }));
      run = await launch(bins.opencode, ['run', '--format', 'json', 'Call whoami.'], { env: envFor(home, opencodeEnv), cwd });
    }
    const first = model.requests.find((r) => r.app === name && r.conversation.calls.some((c) => /whoami$/.test(c.name) && c.resultText.includes('"name"')));
    if (!first) throw new Error(`${app}: no whoami result reached the model (${JSON.stringify(model.requests.filter((r) => r.app === name).map((r) => [r.conversation.offered.length, r.step, r.conversation.calls.map((c) => c.resultText.slice(0, 300))]))})`);
    const firstRequest = model.requests.find((r) => r.app === name);
    return { firstRequestMs: firstRequest.at - run.startedAt, firstResultMs: first.at - run.startedAt, totalMs: run.ms };
  };
  const connect = async (kind) => {
    const log = join(dir, `claude-${kind}-${n++}.log`);
    const name = `claude-connect-${n}`;
    // The answer waits a few seconds, so Claude Code is still running when a slow entry (npx) finishes connecting.
    model.script(name, () => ({ say: 'ok', afterMs: 5_000 }));
    await launch(bins.claude, ['-p', 'hello', '--output-format', 'json', '--debug-file', log], { env: claudeEnv(connectHomes[kind], name), cwd: join(connectHomes[kind], 'project') });
    const line = /Successfully connected \(transport: (\w+)\) in (\d+)ms|Successfully connected \(transport: (\w+)\) in (\d+) ms/.exec(readFileSync(log, 'utf8'));
    if (!line) throw new Error(`claude ${kind}: no "Successfully connected" line in its debug log:\n${readFileSync(log, 'utf8').split('\n').filter((l) => /MCP|mcp/.test(l)).slice(-15).join('\n')}`);
    return Number(line[2] ?? line[4]);
  };

  try {
    for (const app of APPS) await runApp(app); // warm-up: first starts, caches
    // npx installs the tarball into its cache once, before any run is timed.
    sh('npx', ['-y', `--package=${tarball}`, 'roundtable-bridge', '--version'], { env: envFor(connectHomes.npx), cwd: connectHomes.npx });
    await connect('npx');
    const appResults = await h.inRounds(runs, APPS, (app) => runApp(app));
    const connects = await h.inRounds(runs, ['bin', 'http', 'npx'], (kind) => connect(kind));
    h.report.table('agent_apps', `Real agent apps, launch to the first board tool result reaching the model (whoami through the entry setup wrote; ${runs} runs each after a warm-up)`, ['app', 'first model request p50 ms', 'first board result p50 ms', 'p99 ms', 'whole run p50 ms']);
    for (const app of APPS) {
      const p50 = (key) => h.fmt.ms(h.percentiles(appResults[app].map((r) => r[key])).p50);
      const p = h.percentiles(appResults[app].map((r) => r.firstResultMs));
      h.report.row('agent_apps', [app, p50('firstRequestMs'), h.fmt.ms(p.p50), h.fmt.ms(p.p99), p50('totalMs')]);
    }
    h.report.note('agent_apps: "first model request" is the app\'s own start-up (before any board call); the first board result follows it by the tool calls the app needs (Claude Code: a ToolSearch first).');
    h.report.table('claude_connect', `Claude Code's logged MCP connect time ("Successfully connected ... in N ms"), ${runs} runs each, alternating`, ['entry', 'p50 ms', 'p99 ms']);
    const labels = { bin: 'stdio, the installed bin (what setup writes)', http: 'HTTP transport to /mcp', npx: 'stdio, npx -y (what setup wrote before)' };
    for (const kind of ['bin', 'http', 'npx']) {
      const p = h.percentiles(connects[kind]);
      h.report.row('claude_connect', [labels[kind], h.fmt.ms(p.p50), h.fmt.ms(p.p99)]);
    }
    const p50 = h.percentiles(connects.bin).p50;
    h.report.target("setup's entry connects in Claude Code within 300 ms p50", `${h.fmt.ms(p50)} ms`, p50 <= 300);
  } finally {
    await model.close();
    await h.stopServer(daemon);
  }
}
