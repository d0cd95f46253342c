// `roundtable-bridge setup CLIENT` through the real command, per client and scope, against a temporary home and
// project folder whose config already holds another server: that server is kept, a second run changes nothing,
// a malformed config is refused and left as it was, --print writes nothing, and no token reaches any file.
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, realpathSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, token } from '../helpers/board.js';
import { BRIDGE_BIN } from '../helpers/bridge.js';

const URL_ = 'https://board.example.com';
const SECRET = token();
const VERSION = JSON.parse(readFileSync(join(ROOT, 'bridge/package.json'), 'utf8')).version as string;
// Run from the repository, the bridge is no install: the entry is this Node.js and the checkout's script (issue 31).
const NODE = process.execPath;
const ARGS = [realpathSync(BRIDGE_BIN), '--url', URL_];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

const outputs: string[] = [];
let scratch: string;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'roundtable-setup-'));
});
afterAll(() => {
  // The token the command could see (ROUNDTABLE_TOKEN) is in nothing it printed.
  for (const out of outputs) expect(out).not.toContain(SECRET);
  rmSync(scratch, { recursive: true, force: true });
});

function folders(): { home: string; project: string } {
  const root = mkdtempSync(join(scratch, 'case-'));
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(home);
  mkdirSync(project);
  return { home, project };
}

/** Runs setup; the board here is not a real one, so the check that asks it whoami is left out. */
function setup(args: string[], dirs: { home: string; project: string }): Promise<Run> {
  // A token in the environment: it may end up in no config.
  const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: dirs.home, ROUNDTABLE_TOKEN: SECRET };
  return new Promise((resolve) => {
    execFile(process.execPath, [BRIDGE_BIN, 'setup', ...args, '--no-check'], { env, cwd: dirs.project, timeout: 30_000 }, (error, stdout, stderr) => {
      outputs.push(stdout, stderr);
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** Every file under the folders, with its bytes: what a run changed, and whether a token is anywhere. */
function snapshot(dirs: { home: string; project: string }): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.set(path, readFileSync(path, 'utf8'));
    }
  };
  walk(dirs.home);
  walk(dirs.project);
  return files;
}

function expectNoToken(dirs: { home: string; project: string }): void {
  for (const [path, text] of snapshot(dirs)) expect(text, path).not.toContain(SECRET);
}

const OTHER_JSON = { command: 'other-mcp', args: ['--flag'], env: { OTHER_SETTING: 'kept' } };

interface JsonCase {
  client: string;
  scope: 'user' | 'project';
  /** The config's path, from the home folder (user) or the project folder (project). */
  file: string;
  existing: Record<string, unknown>;
  container: string[];
  entry: Record<string, unknown>;
  /** Where the entry goes in a new file, when that differs (opencode: its version 1 layout, which version 2 reads). */
  fresh?: { container: string[]; entry: Record<string, unknown> };
}

const mcpServersEntry = { command: NODE, args: ARGS };
const withOther = (extra: Record<string, unknown> = {}) => ({ ...extra, mcpServers: { other: OTHER_JSON } });

const JSON_CASES: JsonCase[] = [
  { client: 'claude-code', scope: 'user', file: '.claude.json', existing: withOther({ numStartups: 3, projects: { '/x': { allowedTools: [] } } }), container: ['mcpServers'], entry: mcpServersEntry },
  { client: 'claude-code', scope: 'project', file: '.mcp.json', existing: withOther(), container: ['mcpServers'], entry: mcpServersEntry },
  { client: 'claude-desktop', scope: 'user', file: '.config/Claude/claude_desktop_config.json', existing: withOther({ globalShortcut: '' }), container: ['mcpServers'], entry: mcpServersEntry },
  { client: 'cursor', scope: 'user', file: '.cursor/mcp.json', existing: withOther(), container: ['mcpServers'], entry: mcpServersEntry },
  { client: 'cursor', scope: 'project', file: '.cursor/mcp.json', existing: withOther(), container: ['mcpServers'], entry: mcpServersEntry },
  {
    client: 'vscode',
    scope: 'user',
    file: '.config/Code/User/mcp.json',
    existing: { inputs: [], servers: { other: { type: 'stdio', ...OTHER_JSON } } },
    container: ['servers'],
    entry: { type: 'stdio', command: NODE, args: ARGS },
  },
  {
    client: 'vscode',
    scope: 'project',
    file: '.vscode/mcp.json',
    existing: { servers: { other: { type: 'stdio', ...OTHER_JSON } } },
    container: ['servers'],
    entry: { type: 'stdio', command: NODE, args: ARGS },
  },
  { client: 'windsurf', scope: 'user', file: '.codeium/windsurf/mcp_config.json', existing: withOther(), container: ['mcpServers'], entry: mcpServersEntry },
  { client: 'gemini-cli', scope: 'user', file: '.gemini/settings.json', existing: withOther({ theme: 'Dracula' }), container: ['mcpServers'], entry: mcpServersEntry },
  { client: 'gemini-cli', scope: 'project', file: '.gemini/settings.json', existing: withOther(), container: ['mcpServers'], entry: mcpServersEntry },
  {
    client: 'opencode',
    scope: 'user',
    file: '.config/opencode/opencode.json',
    existing: { $schema: 'https://opencode.ai/config.json', mcp: { other: { type: 'local', command: ['other-mcp'], enabled: true } } },
    container: ['mcp'],
    entry: { type: 'local', command: [NODE, ...ARGS], enabled: true },
  },
  {
    client: 'opencode',
    scope: 'project',
    file: 'opencode.json',
    existing: { mcp: { servers: { other: { type: 'local', command: ['other-mcp'] } } } },
    container: ['mcp', 'servers'],
    entry: { type: 'local', command: [NODE, ...ARGS] },
    fresh: { container: ['mcp'], entry: { type: 'local', command: [NODE, ...ARGS], enabled: true } },
  },
];

const at = (doc: any, path: string[]) => path.reduce((here, key) => here?.[key], doc);

describe.each(JSON_CASES)('setup $client --scope $scope', (c) => {
  const place = (dirs: { home: string; project: string }) => join(c.scope === 'user' ? dirs.home : dirs.project, c.file);
  const args = [c.client, '--url', URL_, '--scope', c.scope];

  it('adds the entry next to the other server, keeps a backup, and a second run changes nothing', async () => {
    const dirs = folders();
    const file = place(dirs);
    mkdirSync(dirname(file), { recursive: true });
    const original = `${JSON.stringify(c.existing, null, 2)}\n`;
    writeFileSync(file, original, { mode: 0o600 });
    chmodSync(file, 0o600);

    const first = await setup(args, dirs);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(file);
    expect(first.stdout).toContain('Added the server "roundtable"');
    expect(first.stdout).toContain(`The entry runs this checkout's bridge, which is no npm install: ${NODE} ${ARGS[0]}`);
    expect(first.stdout).not.toContain('npx');
    const written = JSON.parse(readFileSync(file, 'utf8'));
    expect(at(written, c.container)['roundtable']).toEqual(c.entry);
    // Everything else is as it was: the other server and every other setting.
    const withoutOurs = structuredClone(written);
    delete at(withoutOurs, c.container)['roundtable'];
    expect(withoutOurs).toEqual(c.existing);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const backups = readdirSync(dirname(file)).filter((f) => f.startsWith(`${file.split('/').pop()}.bak-`));
    expect(backups).toHaveLength(1);
    expect(readFileSync(join(dirname(file), backups[0]!), 'utf8')).toBe(original);

    const before = snapshot(dirs);
    const second = await setup(args, dirs);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('nothing changed');
    expect(snapshot(dirs)).toEqual(before);
    expectNoToken(dirs);
  });

  it('creates the file when there is none', async () => {
    const dirs = folders();
    const run = await setup(args, dirs);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('(new file)');
    const fresh = c.fresh ?? c;
    expect(at(JSON.parse(readFileSync(place(dirs), 'utf8')), fresh.container)).toEqual({ roundtable: fresh.entry });
    expectNoToken(dirs);
  });

  it('refuses a malformed config and leaves it as it was', async () => {
    const dirs = folders();
    const file = place(dirs);
    mkdirSync(dirname(file), { recursive: true });
    const broken = '{ "mcpServers": { "other": { "command": "other-mcp", } \n';
    writeFileSync(file, broken);
    const run = await setup(args, dirs);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${file} was not changed`);
    expect(run.stderr).toContain('not plain JSON');
    expect(run.stderr).toContain('--print');
    expect([...snapshot(dirs).entries()]).toEqual([[file, broken]]);
  });

  it('--print shows the block and writes nothing', async () => {
    const dirs = folders();
    const run = await setup([...args, '--print'], dirs);
    expect(run.code, run.stderr).toBe(0);
    const fresh = c.fresh ?? c;
    expect(at(JSON.parse(run.stdout), fresh.container)).toEqual({ roundtable: fresh.entry });
    expect(snapshot(dirs).size).toBe(0);
  });
});

const CODEX_EXISTING = `# my Codex settings
model = "o3"

[mcp_servers.other]
command = "other-mcp"
args = ["--flag"] # kept as written

[mcp_servers.other.env]
OTHER_SETTING = 'kept'

[profiles.fast]
model = "o4-mini"
`;

const CODEX_ENV_VARS = '["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "ROUNDTABLE_TOKEN", "ROUNDTABLE_TOKEN_FILE", "ROUNDTABLE_STATE_DIR", "XDG_STATE_HOME"]';
const CODEX_BLOCK = `[mcp_servers.roundtable]
command = "${NODE}"
args = ["${ARGS[0]}", "--url", "${URL_}"]
env_vars = ${CODEX_ENV_VARS}
required = true
`;

describe.each(['user', 'project'] as const)('setup codex --scope %s', (scope) => {
  const place = (dirs: { home: string; project: string }) => (scope === 'user' ? join(dirs.home, '.codex/config.toml') : join(dirs.project, '.codex/config.toml'));
  const args = ['codex', '--url', URL_, '--scope', scope];

  it('appends the table and keeps every other byte; a second run changes nothing', async () => {
    const dirs = folders();
    const file = place(dirs);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, CODEX_EXISTING);
    const first = await setup(args, dirs);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('Added the server "roundtable"');
    expect(readFileSync(file, 'utf8')).toBe(`${CODEX_EXISTING}\n${CODEX_BLOCK}`);
    const backups = readdirSync(dirname(file)).filter((f) => f.startsWith('config.toml.bak-'));
    expect(backups.map((b) => readFileSync(join(dirname(file), b), 'utf8'))).toEqual([CODEX_EXISTING]);

    const before = snapshot(dirs);
    const second = await setup(args, dirs);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('nothing changed');
    expect(snapshot(dirs)).toEqual(before);
    expectNoToken(dirs);
  });

  it("updates an older entry of ours in place: its own keys set, the user's env_vars, env table and other keys kept", async () => {
    const dirs = folders();
    const file = place(dirs);
    mkdirSync(dirname(file), { recursive: true });
    const old = `[mcp_servers.roundtable]\ncommand = "npx"\nargs = ["-y", "roundtable-bridge", "--url", "https://old.example.com"]\nenv_vars = ["MY_PROXY"]\nstartup_timeout_sec = 30\n\n[mcp_servers.roundtable.env]\nROUNDTABLE_STATE_DIR = "/x"\n\n`;
    writeFileSync(file, `${CODEX_EXISTING}\n${old}[later]\nkey = 1\n`);
    const run = await setup(args, dirs);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Updated the keys setup writes in the server "roundtable"');
    expect(run.stdout).toContain('Kept the entry\'s own keys as they were: startup_timeout_sec, env.ROUNDTABLE_STATE_DIR.');
    const envVars = `["MY_PROXY", ${CODEX_ENV_VARS.slice(1)}`;
    expect(readFileSync(file, 'utf8')).toBe(
      `${CODEX_EXISTING}\n[mcp_servers.roundtable]\ncommand = "${NODE}"\nargs = ["${ARGS[0]}", "--url", "${URL_}"]\nenv_vars = ${envVars}\nstartup_timeout_sec = 30\nrequired = true\n\n[mcp_servers.roundtable.env]\nROUNDTABLE_STATE_DIR = "/x"\n\n[later]\nkey = 1\n`,
    );
    const again = await setup(args, dirs);
    expect(again.stdout).toContain('nothing changed');
  });

  it('refuses a malformed config.toml and leaves it as it was', async () => {
    const dirs = folders();
    const file = place(dirs);
    mkdirSync(dirname(file), { recursive: true });
    const broken = '[mcp_servers.other\ncommand = "other-mcp"\n';
    writeFileSync(file, broken);
    const run = await setup(args, dirs);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${file} was not changed`);
    expect(run.stderr).toContain('line 1');
    expect([...snapshot(dirs).entries()]).toEqual([[file, broken]]);
  });

  it('--print shows the table and writes nothing', async () => {
    const dirs = folders();
    const run = await setup([...args, '--print'], dirs);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(CODEX_BLOCK);
    expect(snapshot(dirs).size).toBe(0);
  });
});

describe('setup arguments', () => {
  it('names the entry after --profile and passes the profile on', async () => {
    const dirs = folders();
    const run = await setup(['cursor', '--url', URL_, '--profile', 'reviewer'], dirs);
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(readFileSync(join(dirs.home, '.cursor/mcp.json'), 'utf8'));
    expect(doc.mcpServers['roundtable-reviewer']).toEqual({ command: NODE, args: [...ARGS, '--profile', 'reviewer'] });
  });

  it('refuses a project scope for a client that has none, an unknown client, and a URL carrying credentials, writing nothing', async () => {
    const dirs = folders();
    const desktop = await setup(['claude-desktop', '--url', URL_, '--scope', 'project'], dirs);
    expect(desktop.code).toBe(1);
    expect(desktop.stderr).toContain('Claude Desktop has no project config; use --scope user');
    const unknown = await setup(['notepad', '--url', URL_], dirs);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('use one of: claude-code, claude-desktop, cursor, vscode, windsurf, gemini-cli, codex, opencode');
    const credentials = await setup(['cursor', '--url', `https://agent:${SECRET}@board.example.com`], dirs);
    expect(credentials.code).toBe(1);
    expect(credentials.stderr).toContain('credentials in the URL are refused');
    expect(snapshot(dirs).size).toBe(0);
    expect(existsSync(join(dirs.home, '.cursor'))).toBe(false);
  });
});

describe('setup gemini-cli, the one name (gemini is taken for it)', () => {
  it('writes .gemini/settings.json under either name, and says what the Gemini CLI needs before it starts the server', async () => {
    for (const name of ['gemini-cli', 'gemini']) {
      const dirs = folders();
      const run = await setup([name, '--url', URL_], dirs);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(readFileSync(join(dirs.home, '.gemini/settings.json'), 'utf8')).mcpServers.roundtable).toEqual({ command: NODE, args: ARGS });
      expect(run.stdout).toContain('`/permissions trust`');
      expect(run.stdout).toContain('ROUNDTABLE_TOKEN and ROUNDTABLE_TOKEN_FILE do not reach the bridge');
    }
  });
});

describe('a rerun keeps what the user added to the entry', () => {
  it('Claude Code: env and other keys of an older entry of ours stay; command and args are set', async () => {
    const dirs = folders();
    const file = join(dirs.home, '.claude.json');
    const older = { type: 'stdio', command: 'npx', args: ['-y', 'roundtable-bridge', '--url', URL_], env: { HTTPS_PROXY: 'http://proxy:3128' } };
    writeFileSync(file, JSON.stringify({ mcpServers: { roundtable: older } }, null, 2));
    const run = await setup(['claude-code', '--url', URL_], dirs);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Kept the entry\'s own keys as they were: type, env.');
    expect(JSON.parse(readFileSync(file, 'utf8')).mcpServers.roundtable).toEqual({ ...older, command: NODE, args: ARGS });
  });

  it('warns, without quoting it, when the kept env holds a token', async () => {
    const dirs = folders();
    const file = join(dirs.home, '.claude.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { roundtable: { command: 'x', env: { ROUNDTABLE_TOKEN: SECRET } } } }));
    const run = await setup(['claude-code', '--url', URL_], dirs);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`the entry's env sets ROUNDTABLE_TOKEN, so a token is kept in ${file} in plain text`);
  });
});

describe('config files setup must not change', () => {
  it('refuses a JSON config with a duplicate key, naming the key, and leaves it as it was', async () => {
    const dirs = folders();
    const file = join(dirs.home, '.claude.json');
    const text = '{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}, "theme": "dark"}';
    writeFileSync(file, text);
    const run = await setup(['claude-code', '--url', URL_], dirs);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${file} was not changed: the key "mcpServers"."a" appears twice in one object`);
    expect([...snapshot(dirs).entries()]).toEqual([[file, text]]);
  });

  it('refuses a project .mcp.json that is a symlink to a file outside the project; the file it points to is untouched', async () => {
    const dirs = folders();
    const outside = join(dirs.home, 'elsewhere.json');
    writeFileSync(outside, '{"keep": true}\n');
    symlinkSync(outside, join(dirs.project, '.mcp.json'));
    const run = await setup(['claude-code', '--url', URL_, '--scope', 'project'], dirs);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`it is a symlink to ${outside}, outside ${dirs.project}`);
    expect(readFileSync(outside, 'utf8')).toBe('{"keep": true}\n');
    expect(readdirSync(dirs.home)).toEqual(['elsewhere.json']);
  });

  it('refuses a folder on the way that is a symlink out of the project, and writes through a link that stays inside', async () => {
    const dirs = folders();
    const outside = mkdtempSync(join(scratch, 'outside-'));
    symlinkSync(outside, join(dirs.project, '.cursor'));
    const run = await setup(['cursor', '--url', URL_, '--scope', 'project'], dirs);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('a symlinked folder on its path leads to');
    expect(readdirSync(outside)).toEqual([]);

    const inside = folders();
    mkdirSync(join(inside.project, 'shared'));
    writeFileSync(join(inside.project, 'shared', 'mcp.json'), '{}\n');
    symlinkSync(join(inside.project, 'shared', 'mcp.json'), join(inside.project, '.mcp.json'));
    const ok = await setup(['claude-code', '--url', URL_, '--scope', 'project'], inside);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(inside.project, 'shared', 'mcp.json'), 'utf8')).mcpServers.roundtable).toEqual({ command: NODE, args: ARGS });
    expect(lstatSync(join(inside.project, '.mcp.json')).isSymbolicLink()).toBe(true);
  });

  it('refuses a read-only config (mode 444) and leaves it, its mode and its folder as they were', async () => {
    const dirs = folders();
    const file = join(dirs.home, '.codex', 'config.toml');
    mkdirSync(dirname(file));
    writeFileSync(file, 'model = "o3"\n');
    chmodSync(file, 0o444);
    const run = await setup(['codex', '--url', URL_], dirs);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${file} was not changed: it is read-only (mode 444)`);
    expect(readFileSync(file, 'utf8')).toBe('model = "o3"\n');
    expect(statSync(file).mode & 0o777).toBe(0o444);
    expect(readdirSync(dirname(file))).toEqual(['config.toml']);
  });
});

describe('setup CLIENT --hooks', () => {
  const HOOK_CASES = [
    { client: 'claude-code', file: '.claude/settings.json', events: ['SessionStart', 'UserPromptSubmit', 'Stop'], hookClient: 'claude-code' },
    { client: 'codex', file: '.codex/hooks.json', events: ['SessionStart', 'UserPromptSubmit', 'Stop'], hookClient: 'codex' },
    { client: 'gemini-cli', file: '.gemini/settings.json', events: ['SessionStart', 'BeforeAgent', 'AfterAgent'], hookClient: 'gemini-cli' },
  ];

  it.each(HOOK_CASES)('$client: adds its hooks beside the user\'s own; a second run changes nothing', async (c) => {
    const dirs = folders();
    const file = join(dirs.home, c.file);
    mkdirSync(dirname(file), { recursive: true });
    const mine = { type: 'command', command: 'my-logger --event stop' };
    const last = c.events[2]!;
    writeFileSync(file, JSON.stringify({ hooks: { [last]: [{ hooks: [mine] }] }, other: 1 }, null, 2));
    const run = await setup([c.client, '--url', URL_, '--hooks'], dirs);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`${file}: added ${c.events.join(', ')}; other hooks are untouched.`);
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    expect(doc.other).toBe(1);
    for (const event of c.events) {
      const ours = { type: 'command', command: `${NODE} ${ARGS[0]} hook ${c.hookClient} ${event} --url ${URL_}` };
      expect(doc.hooks[event]).toEqual(event === last ? [{ hooks: [mine] }, { hooks: [ours] }] : [{ hooks: [ours] }]);
    }
    if (c.client === 'codex') {
      expect(readFileSync(join(dirs.home, '.codex/config.toml'), 'utf8')).toContain('[features]\nhooks = true\n');
      expect(run.stdout).toContain('open /hooks to review and trust');
    }
    const before = snapshot(dirs);
    const again = await setup([c.client, '--url', URL_, '--hooks'], dirs);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('the Roundtable hooks are already there; nothing changed');
    expect(snapshot(dirs)).toEqual(before);
    expectNoToken(dirs);
  });

  it('refuses --hooks for a client with no command hooks, writing nothing', async () => {
    const dirs = folders();
    const run = await setup(['cursor', '--url', URL_, '--hooks'], dirs);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--hooks: Cursor has no command hook');
    expect(snapshot(dirs).size).toBe(0);
  });

  it('--print --hooks shows the entry and the hooks and writes nothing', async () => {
    const dirs = folders();
    const run = await setup(['claude-code', '--url', URL_, '--hooks', '--print'], dirs);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`"command": "${NODE} ${ARGS[0]} hook claude-code Stop --url ${URL_}"`);
    expect(snapshot(dirs).size).toBe(0);
  });
});
