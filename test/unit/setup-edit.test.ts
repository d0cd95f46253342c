// The pieces of `roundtable-bridge setup` that need no process: where each client's config is on each system, the
// JSON and TOML edits on texts the command must keep exactly (or refuse), the hooks it merges, and the environment
// each client gives its MCP servers.
import { describe, expect, it } from 'vitest';
import { CLIENTS, clientNamed, type Places } from '../../bridge/src/setup/clients.js';
import { ConfigRefused, editJsonConfig, editTomlConfig, tomlBlock } from '../../bridge/src/setup/edit.js';
import { CODEX_ENV_VARS, serverEnvironment } from '../../bridge/src/setup/environment.js';
import { editHooksJson, enableCodexHooks, hookCommand, isOurHook } from '../../bridge/src/setup/hooks.js';
import { duplicateKey } from '../../bridge/src/setup/json-text.js';

const ARGS = ['-y', 'roundtable-bridge@0.1.0', '--url', 'https://board.example.com'];
const file = (client: string, scope: 'user' | 'project', places: Places) => CLIENTS.find((c) => c.name === client)!.file(scope, places);

describe('config locations', () => {
  const mac: Places = { env: { HOME: '/Users/a' }, platform: 'darwin', project: '/p' };
  const windows: Places = { env: { HOME: 'C:\\Users\\a', APPDATA: 'C:\\Users\\a\\AppData\\Roaming' }, platform: 'win32', project: '/p' };
  const linux: Places = { env: { HOME: '/home/a', XDG_CONFIG_HOME: '/home/a/.xdg', CODEX_HOME: '/home/a/codex-home' }, platform: 'linux', project: '/p' };

  it('follows each system for the desktop apps, and XDG_CONFIG_HOME and CODEX_HOME when set', () => {
    expect(file('claude-desktop', 'user', mac)).toBe('/Users/a/Library/Application Support/Claude/claude_desktop_config.json');
    expect(file('claude-desktop', 'user', windows)).toContain('AppData');
    expect(file('claude-desktop', 'user', windows)).toContain('claude_desktop_config.json');
    expect(file('claude-desktop', 'user', linux)).toBe('/home/a/.xdg/Claude/claude_desktop_config.json');
    expect(file('vscode', 'user', mac)).toBe('/Users/a/Library/Application Support/Code/User/mcp.json');
    expect(file('vscode', 'user', linux)).toBe('/home/a/.xdg/Code/User/mcp.json');
    expect(file('opencode', 'user', mac)).toBe('/Users/a/.config/opencode/opencode.json');
    expect(file('opencode', 'user', linux)).toBe('/home/a/.xdg/opencode/opencode.json');
    expect(file('codex', 'user', linux)).toBe('/home/a/codex-home/config.toml');
    expect(file('codex', 'user', mac)).toBe('/Users/a/.codex/config.toml');
  });

  it('has no project file for Claude Desktop and Windsurf, which keep one config per user', () => {
    expect(file('claude-desktop', 'project', mac)).toBeUndefined();
    expect(file('windsurf', 'project', mac)).toBeUndefined();
    expect(file('claude-code', 'project', mac)).toBe('/p/.mcp.json');
  });

  it('puts hooks where each client reads them', () => {
    const hooks = (client: string, scope: 'user' | 'project') => CLIENTS.find((c) => c.name === client)!.hooks!.file(scope, linux);
    expect(hooks('claude-code', 'user')).toBe('/home/a/.claude/settings.json');
    expect(hooks('claude-code', 'project')).toBe('/p/.claude/settings.json');
    expect(hooks('codex', 'user')).toBe('/home/a/codex-home/hooks.json');
    expect(hooks('codex', 'project')).toBe('/p/.codex/hooks.json');
    expect(hooks('gemini-cli', 'user')).toBe('/home/a/.gemini/settings.json');
  });
});

describe('client names', () => {
  it('knows the Gemini CLI as gemini-cli, as the hook does, and takes gemini for it', () => {
    expect(clientNamed('gemini-cli')?.label).toBe('Gemini CLI');
    expect(clientNamed('gemini')).toBe(clientNamed('gemini-cli'));
    expect(CLIENTS.map((c) => c.name)).not.toContain('gemini');
  });
});

const mcpServers = () => ({ container: ['mcpServers'], owned: { command: 'npx', args: ARGS } });
const stdio = (entry: Record<string, unknown>) => entry['url'] === undefined;
const json = (text: string) => editJsonConfig(text, 'roundtable', mcpServers, stdio);

describe('JSON edits', () => {
  it("keeps the file's indentation, CRLF line ends and byte-order mark", () => {
    const text = '\uFEFF{\r\n\t"mcpServers": {\r\n\t\t"other": {"command": "x"}\r\n\t}\r\n}\r\n';
    const edit = json(text);
    expect(edit.action).toBe('added');
    expect(edit.text!.startsWith('\uFEFF{\r\n\t"mcpServers": {\r\n\t\t"other": {\r\n')).toBe(true);
    expect(edit.text!.replace(/\r\n/g, '')).not.toContain('\n');
    expect(json(edit.text!).action).toBe('unchanged');
  });

  it('updates only the keys setup owns in an entry of ours, keeping env and every other key where it was', () => {
    const text = JSON.stringify({ mcpServers: { roundtable: { type: 'stdio', command: 'roundtable-bridge', args: ['--url', 'https://old.example'], env: { A: '1' }, timeout: 5 } } });
    const edit = json(text);
    expect(edit.action).toBe('updated');
    expect(edit.kept).toEqual(['type', 'env', 'timeout']);
    const entry = JSON.parse(edit.text!).mcpServers.roundtable;
    expect(entry).toEqual({ type: 'stdio', command: 'npx', args: ARGS, env: { A: '1' }, timeout: 5 });
    expect(Object.keys(entry)).toEqual(['type', 'command', 'args', 'env', 'timeout']);
    expect(json(edit.text!).action).toBe('unchanged');
  });

  it('replaces a server of our name that is no local command (an HTTP entry) whole, headers and all', () => {
    const text = JSON.stringify({ mcpServers: { roundtable: { url: 'https://board.example.com/mcp', headers: { Authorization: 'Bearer rt_x' } } } });
    const edit = json(text);
    expect(edit.action).toBe('replaced');
    expect(JSON.parse(edit.text!)).toEqual({ mcpServers: { roundtable: { command: 'npx', args: ARGS } } });
  });

  it.each([
    ['comments', '// mine\n{"mcpServers": {}}', 'not plain JSON'],
    ['an array at the top', '[]', 'top level is not a JSON object'],
    ['mcpServers that is not an object', '{"mcpServers": []}', '"mcpServers" is not a JSON object'],
    ['a number JSON.parse would round', '{"id": 12345678901234567890, "mcpServers": {}}', 'would not be written back exactly'],
    ['a server defined twice', '{"mcpServers": {"other": {"command": "a"}, "other": {"command": "b"}}}', 'the key "mcpServers"."other" appears twice'],
    ['a setting defined twice', '{"theme": "a", "mcpServers": {}, "theme": "b"}', 'the key "theme" appears twice'],
  ])('refuses %s', (_what, text, message) => {
    expect(() => json(text)).toThrow(ConfigRefused);
    expect(() => json(text)).toThrow(message);
  });

  it('finds a duplicate key at any depth, inside arrays too, and none where keys only repeat across objects', () => {
    expect(duplicateKey('{"a": [{"x": 1}, {"x": 2, "y": {"z": 1, "z" : 2}}]}')).toEqual(['a', '[]', 'y', 'z']);
    expect(duplicateKey('{"a": {"k": "\\"k\\":"}, "b": {"k": 1}, "c": ["k", "k"]}')).toBeUndefined();
    expect(duplicateKey('{"a\\u0062": 1, "ab": 2}')).toEqual(['ab']);
  });

  it('treats an empty file as an empty config', () => {
    expect(JSON.parse(json('  \n').text!)).toEqual({ mcpServers: { roundtable: { command: 'npx', args: ARGS } } });
  });
});

describe('TOML edits', () => {
  const server = { command: 'npx', args: ARGS, envVars: CODEX_ENV_VARS, required: true };
  const edit = (text: string, name = 'roundtable') => editTomlConfig(text, name, server);
  const block = (name = 'roundtable') => tomlBlock(name, server);
  const ENV_VARS = `env_vars = [${CODEX_ENV_VARS.map((v) => `"${v}"`).join(', ')}]`;

  it('writes env_vars for what the token lookup needs, and required = true', () => {
    expect(block()).toBe(['[mcp_servers.roundtable]', 'command = "npx"', `args = ["-y", "roundtable-bridge@0.1.0", "--url", "https://board.example.com"]`, ENV_VARS, 'required = true', ''].join('\n'));
    expect(CODEX_ENV_VARS).toEqual(expect.arrayContaining(['DBUS_SESSION_BUS_ADDRESS', 'XDG_RUNTIME_DIR', 'ROUNDTABLE_TOKEN', 'ROUNDTABLE_TOKEN_FILE']));
  });

  it('reads the TOML a config.toml holds and appends after it unchanged', () => {
    const text = [
      'model = "o3"  # a comment',
      "approval = 'never'",
      'n = 1_000',
      'f = -3.5e2',
      'when = 1979-05-27 07:32:00Z',
      'ok = true',
      'notes = """',
      'two "quoted" lines \\',
      '   joined"""',
      "raw = '''C:\\path'''",
      'list = [',
      '  "a", # first',
      '  [1, 2],',
      ']',
      'inline = { a = 1, "b.c" = { d = "e" } }',
      '',
      '[[profiles.list]]',
      'x = 1',
      '[[profiles.list]]',
      'x = 2',
      '',
      '[mcp_servers."quoted name"]',
      'command = "q"',
      '',
    ].join('\n');
    const result = edit(text);
    expect(result.action).toBe('added');
    expect(result.text).toBe(`${text}\n${block()}`);
    expect(edit(result.text!).action).toBe('unchanged');
  });

  it("sets only its own keys in an existing table, in place; the user's env_vars, env and other keys stay", () => {
    const text = [
      '[mcp_servers.roundtable]',
      'command = "roundtable-bridge" # old',
      'env_vars = ["MY_VAR", { name = "OTHER", source = "local" }]',
      'startup_timeout_sec = 20',
      '',
      '[mcp_servers.roundtable.env]',
      'HINT = "x"',
      '',
      '[later]',
      'key = 1',
      '',
    ].join('\n');
    const result = edit(text);
    expect(result.action).toBe('updated');
    expect(result.kept).toEqual(['startup_timeout_sec', 'env.HINT']);
    expect(result.text).toBe(
      [
        '[mcp_servers.roundtable]',
        'command = "npx"',
        `env_vars = ["MY_VAR", { name = "OTHER", source = "local" }, ${CODEX_ENV_VARS.map((v) => `"${v}"`).join(', ')}]`,
        'startup_timeout_sec = 20',
        'args = ["-y", "roundtable-bridge@0.1.0", "--url", "https://board.example.com"]',
        'required = true',
        '',
        '[mcp_servers.roundtable.env]',
        'HINT = "x"',
        '',
        '[later]',
        'key = 1',
        '',
      ].join('\n'),
    );
    expect(result.entry).toMatchObject({ env: { HINT: 'x' }, required: 'true' });
    expect(edit(result.text!).action).toBe('unchanged');
  });

  it('quotes a name that is not a bare key, and finds it again', () => {
    const result = edit('', 'roundtable-a.b');
    expect(result.text).toBe(block('roundtable-a.b'));
    expect(result.text!.startsWith('[mcp_servers."roundtable-a.b"]\n')).toBe(true);
    expect(edit(result.text!, 'roundtable-a.b').action).toBe('unchanged');
  });

  it('keeps CRLF line ends', () => {
    const result = edit('[other]\r\nx = 1\r\n');
    expect(result.text).toBe(`[other]\r\nx = 1\r\n\r\n${block().replace(/\n/g, '\r\n')}`);
  });

  it.each([
    ['a table defined twice', '[a]\nx = 1\n[a]\ny = 2\n', 'the table [a] is defined twice'],
    ['a key defined twice', 'x = 1\nx = 2\n', 'the key x is defined twice'],
    ['an unclosed string', 'x = "abc\n', 'line 1'],
    ['an unknown escape', 'x = "\\q"\n', 'escape'],
    ['a bare word as a value', 'x = hello\n', 'value'],
    ['two values on a line', 'x = 1 y = 2\n', 'end of the line'],
    ['our server as dotted keys', '[mcp_servers]\nroundtable.command = "x"\n', 'dotted keys or an inline table'],
    ['our server as an inline table', '[mcp_servers]\nroundtable = { command = "x" }\n', 'dotted keys or an inline table'],
    ['mcp_servers as an inline table', 'mcp_servers = { other = { command = "x" } }\n', 'inline table'],
    ['mcp_servers as an array of tables', '[[mcp_servers]]\ncommand = "x"\n', 'array of tables'],
  ])('refuses %s', (_what, text, message) => {
    expect(() => edit(text)).toThrow(ConfigRefused);
    expect(() => edit(text)).toThrow(message);
  });

  it('switches Codex hooks on under [features] as "hooks" (codex_hooks is the deprecated name), once', () => {
    const on = enableCodexHooks('[features]\ncodex_hooks = true\n')!;
    expect(on).toBe('[features]\ncodex_hooks = true\nhooks = true\n');
    expect(enableCodexHooks(on)).toBeUndefined();
    expect(enableCodexHooks('[features]\nhooks = false\n')).toBe('[features]\nhooks = true\n');
    expect(enableCodexHooks('model = "o3"\n')).toBe('model = "o3"\n\n[features]\nhooks = true\n');
  });
});

describe('hooks', () => {
  const target = { client: 'claude-code' as const, url: 'https://board.example.com', profile: undefined };
  const launch = { command: '/usr/bin/roundtable-bridge', args: ['--url', 'https://board.example.com'] };
  const commands = new Map(['SessionStart', 'UserPromptSubmit', 'Stop'].map((e) => [e, hookCommand(launch, e, target, 'linux')]));

  it('puts `hook CLIENT EVENT` before the bridge options, npx form included, quoted for sh', () => {
    expect(commands.get('Stop')).toBe('/usr/bin/roundtable-bridge hook claude-code Stop --url https://board.example.com');
    const npx = { command: 'npx', args: ['-y', 'roundtable-bridge@0.1.0', '--url', 'https://b.example', '--profile', 'p'] };
    expect(hookCommand(npx, 'AfterAgent', { client: 'gemini-cli', url: 'https://b.example', profile: 'p' }, 'linux')).toBe(
      'npx -y roundtable-bridge@0.1.0 hook gemini-cli AfterAgent --url https://b.example --profile p',
    );
    expect(hookCommand({ command: '/opt/my tools/roundtable-bridge', args: ['--url', 'https://b.example'] }, 'Stop', target, 'linux')).toBe(
      "'/opt/my tools/roundtable-bridge' hook claude-code Stop --url https://b.example",
    );
  });

  it("adds the three hooks beside the user's own, and a rerun changes nothing", () => {
    const theirs = { hooks: { Stop: [{ matcher: '', hooks: [{ type: 'command', command: 'notify-send done' }] }] }, model: 'opus' };
    const edit = editHooksJson(JSON.stringify(theirs, null, 2), commands, target);
    expect(edit.added).toEqual(['SessionStart', 'UserPromptSubmit', 'Stop']);
    const doc = JSON.parse(edit.text!);
    expect(doc.model).toBe('opus');
    expect(doc.hooks.Stop).toEqual([theirs.hooks.Stop[0], { hooks: [{ type: 'command', command: commands.get('Stop') }] }]);
    expect(editHooksJson(edit.text!, commands, target)).toEqual({ text: undefined, added: [], updated: [] });
  });

  it("updates our hook in place when its command changed (npx to the installed bin), keeping its group's keys", () => {
    const old = { hooks: { Stop: [{ hooks: [{ type: 'command', command: "npx -y roundtable-bridge hook claude-code Stop --url 'https://board.example.com'", timeout: 10 }] }] } };
    const edit = editHooksJson(JSON.stringify(old), new Map([['Stop', commands.get('Stop')!]]), target);
    expect(edit.updated).toEqual(['Stop']);
    expect(JSON.parse(edit.text!).hooks.Stop).toEqual([{ hooks: [{ type: 'command', command: commands.get('Stop'), timeout: 10 }] }]);
  });

  it("tells another board's, profile's, client's or event's hook from ours", () => {
    const mine = 'roundtable-bridge hook claude-code Stop --url https://board.example.com/';
    expect(isOurHook(mine, 'Stop', target)).toBe(true);
    expect(isOurHook(mine, 'SessionStart', target)).toBe(false);
    expect(isOurHook('roundtable-bridge hook claude-code Stop --url https://other.example.com', 'Stop', target)).toBe(false);
    expect(isOurHook(`${mine} --profile w2`, 'Stop', target)).toBe(false);
    expect(isOurHook('roundtable-bridge hook codex Stop --url https://board.example.com', 'Stop', target)).toBe(false);
    expect(isOurHook('my-script hook claude-code Stop --url https://board.example.com', 'Stop', target)).toBe(false);
    expect(isOurHook('roundtable-bridge hook gemini AfterAgent --url https://board.example.com', 'AfterAgent', { ...target, client: 'gemini-cli' })).toBe(true);
  });

  it('refuses a hooks file whose event is not a list', () => {
    expect(() => editHooksJson('{"hooks": {"Stop": {}}}', commands, target)).toThrow('"hooks.Stop" is not a list');
  });
});

describe('the environment each client gives its MCP server', () => {
  const parent = {
    HOME: '/h',
    PATH: '/bin',
    LANG: 'C',
    DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/bus',
    XDG_RUNTIME_DIR: '/run/u',
    ROUNDTABLE_TOKEN: 'rt_x',
    ROUNDTABLE_TOKEN_FILE: '/h/t',
    NODE_EXTRA_CA_CERTS: '/ca.pem',
    SSL_CERT_DIR: '/certs',
    OTHER: '1',
  };

  it('Codex: its short list and the CA variables, plus env_vars and the entry env', () => {
    expect(serverEnvironment('allowlist', parent, {}, 'linux')).toEqual({ HOME: '/h', PATH: '/bin', LANG: 'C', NODE_EXTRA_CA_CERTS: '/ca.pem' });
    const withVars = serverEnvironment('allowlist', parent, { envVars: CODEX_ENV_VARS, env: { X: 'y' } }, 'linux');
    expect(withVars).toMatchObject({ DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/bus', XDG_RUNTIME_DIR: '/run/u', ROUNDTABLE_TOKEN: 'rt_x', ROUNDTABLE_TOKEN_FILE: '/h/t', X: 'y' });
    expect(withVars).not.toHaveProperty('OTHER');
  });

  it('the Gemini CLI: everything but names that look like secrets, and in GitHub Actions only its fixed list', () => {
    const env = serverEnvironment('without-secrets', parent, { env: { FROM_ENTRY: '$HOME/x' } }, 'linux');
    expect(env).toMatchObject({ HOME: '/h', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/bus', OTHER: '1', FROM_ENTRY: '/h/x' });
    for (const gone of ['ROUNDTABLE_TOKEN', 'ROUNDTABLE_TOKEN_FILE', 'NODE_EXTRA_CA_CERTS', 'SSL_CERT_DIR']) expect(env).not.toHaveProperty(gone);
    expect(Object.keys(serverEnvironment('without-secrets', { ...parent, GITHUB_SHA: 'abc' }, {}, 'linux')).sort()).toEqual(['HOME', 'LANG', 'PATH']);
  });

  it('Claude Code and opencode: the whole environment, with the entry env on top', () => {
    expect(serverEnvironment('whole', parent, { env: { OTHER: '2' } }, 'linux')).toEqual({ ...parent, OTHER: '2' });
  });
});
