// The pieces of `roundtable-bridge setup` that need no process: where each client's config is on each system, and
// the JSON and TOML edits on texts the command must keep exactly, or refuse.
import { describe, expect, it } from 'vitest';
import { CLIENTS, type Places } from '../../bridge/src/setup/clients.js';
import { ConfigRefused, editJsonConfig, editTomlConfig } from '../../bridge/src/setup/edit.js';

const ARGS = ['-y', 'roundtable-bridge', '--url', 'https://board.example.com'];
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
});

const mcpServers = () => ({ container: ['mcpServers'], entry: { command: 'npx', args: ARGS } });

describe('JSON edits', () => {
  it('keeps the file\'s indentation, CRLF line ends and byte-order mark', () => {
    const text = '\uFEFF{\r\n\t"mcpServers": {\r\n\t\t"other": {"command": "x"}\r\n\t}\r\n}\r\n';
    const edit = editJsonConfig(text, 'roundtable', mcpServers);
    expect(edit.action).toBe('added');
    expect(edit.text!.startsWith('\uFEFF{\r\n\t"mcpServers": {\r\n\t\t"other": {\r\n')).toBe(true);
    expect(edit.text!.replace(/\r\n/g, '')).not.toContain('\n');
    expect(editJsonConfig(edit.text!, 'roundtable', mcpServers).action).toBe('unchanged');
  });

  it('replaces an older entry of ours whole', () => {
    const text = JSON.stringify({ mcpServers: { roundtable: { command: 'roundtable-bridge', env: { ROUNDTABLE_TOKEN: 'rt_x' } } } });
    const edit = editJsonConfig(text, 'roundtable', mcpServers);
    expect(edit.action).toBe('replaced');
    expect(JSON.parse(edit.text!)).toEqual({ mcpServers: { roundtable: { command: 'npx', args: ARGS } } });
  });

  it.each([
    ['comments', '// mine\n{"mcpServers": {}}', 'not plain JSON'],
    ['an array at the top', '[]', 'top level is not a JSON object'],
    ['mcpServers that is not an object', '{"mcpServers": []}', '"mcpServers" is not a JSON object'],
    ['a number JSON.parse would round', '{"id": 12345678901234567890, "mcpServers": {}}', 'would not be written back exactly'],
  ])('refuses %s', (_what, text, message) => {
    expect(() => editJsonConfig(text, 'roundtable', mcpServers)).toThrow(ConfigRefused);
    expect(() => editJsonConfig(text, 'roundtable', mcpServers)).toThrow(message);
  });

  it('treats an empty file as an empty config', () => {
    expect(JSON.parse(editJsonConfig('  \n', 'roundtable', mcpServers).text!)).toEqual({ mcpServers: { roundtable: { command: 'npx', args: ARGS } } });
  });
});

describe('TOML edits', () => {
  const edit = (text: string, name = 'roundtable') => editTomlConfig(text, name, 'npx', ARGS);

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
    expect(result.text).toBe(`${text}\n[mcp_servers.roundtable]\ncommand = "npx"\nargs = ["-y", "roundtable-bridge", "--url", "https://board.example.com"]\n`);
    expect(edit(result.text!).action).toBe('unchanged');
  });

  it('quotes a name that is not a bare key, and finds it again', () => {
    const result = edit('', 'roundtable-a.b');
    expect(result.text).toBe('[mcp_servers."roundtable-a.b"]\ncommand = "npx"\nargs = ["-y", "roundtable-bridge", "--url", "https://board.example.com"]\n');
    expect(edit(result.text!, 'roundtable-a.b').action).toBe('unchanged');
  });

  it('keeps CRLF line ends', () => {
    const result = edit('[other]\r\nx = 1\r\n');
    expect(result.text).toBe('[other]\r\nx = 1\r\n\r\n[mcp_servers.roundtable]\r\ncommand = "npx"\r\nargs = ["-y", "roundtable-bridge", "--url", "https://board.example.com"]\r\n');
  });

  it.each([
    ['a table defined twice', '[a]\nx = 1\n[a]\ny = 2\n', 'defined twice'],
    ['a key defined twice', 'x = 1\nx = 2\n', 'defined twice'],
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
});
