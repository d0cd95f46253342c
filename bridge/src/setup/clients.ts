// Where each MCP client keeps its server list, and the shape of one stdio entry in it (sources: docs/DECISIONS.md).
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { JsonPlacement } from './edit.js';

export type Scope = 'user' | 'project';

export interface Launch {
  readonly command: string;
  readonly args: readonly string[];
}

/**
 * How a client starts the bridge: `npx -y roundtable-bridge ARGS`. On Windows npx is a batch file (npx.cmd) that
 * a client starting the command without a shell cannot run, so there it goes through `cmd /c`.
 */
export function bridgeLaunch(args: readonly string[], platform: NodeJS.Platform): Launch {
  const npx = ['npx', '-y', 'roundtable-bridge', ...args];
  return platform === 'win32' ? { command: 'cmd', args: ['/c', ...npx] } : { command: npx[0]!, args: npx.slice(1) };
}

export interface Places {
  readonly env: NodeJS.ProcessEnv;
  readonly platform: NodeJS.Platform;
  /** The project folder, for project scope: the current directory. */
  readonly project: string;
}

interface ClientBase {
  readonly name: string;
  readonly label: string;
  /** The config file for a scope, or undefined when the client has no such scope. */
  file(scope: Scope, places: Places): string | undefined;
}

export interface JsonClient extends ClientBase {
  readonly format: 'json';
  place(doc: Record<string, unknown>, launch: Launch): JsonPlacement;
}

export interface TomlClient extends ClientBase {
  readonly format: 'toml';
}

export type Client = JsonClient | TomlClient;

const home = (places: Places) => places.env['HOME'] || homedir();

/** The per-user settings folder of a desktop app: Application Support, %APPDATA%, or XDG_CONFIG_HOME. */
function appData(places: Places): string {
  if (places.platform === 'darwin') return join(home(places), 'Library', 'Application Support');
  if (places.platform === 'win32') return places.env['APPDATA'] || join(home(places), 'AppData', 'Roaming');
  return places.env['XDG_CONFIG_HOME'] || join(home(places), '.config');
}

/** XDG_CONFIG_HOME or ~/.config on every system (opencode keeps its config there on macOS too). */
const xdgConfig = (places: Places) => places.env['XDG_CONFIG_HOME'] || join(home(places), '.config');

const mcpServers = (launch: Launch): JsonPlacement => ({ container: ['mcpServers'], entry: { command: launch.command, args: [...launch.args] } });

/** opencode.json, or opencode.jsonc when only that one exists. */
function opencodeFile(folder: string): string {
  const json = join(folder, 'opencode.json');
  const jsonc = join(folder, 'opencode.jsonc');
  return !existsSync(json) && existsSync(jsonc) ? jsonc : json;
}

export const CLIENTS: readonly Client[] = [
  {
    name: 'claude-code',
    label: 'Claude Code',
    format: 'json',
    file: (scope, places) => (scope === 'user' ? join(home(places), '.claude.json') : join(places.project, '.mcp.json')),
    place: (_doc, launch) => mcpServers(launch),
  },
  {
    name: 'claude-desktop',
    label: 'Claude Desktop',
    format: 'json',
    file: (scope, places) => (scope === 'user' ? join(appData(places), 'Claude', 'claude_desktop_config.json') : undefined),
    place: (_doc, launch) => mcpServers(launch),
  },
  {
    name: 'cursor',
    label: 'Cursor',
    format: 'json',
    file: (scope, places) => join(scope === 'user' ? home(places) : places.project, '.cursor', 'mcp.json'),
    place: (_doc, launch) => mcpServers(launch),
  },
  {
    name: 'vscode',
    label: 'VS Code',
    format: 'json',
    file: (scope, places) => (scope === 'user' ? join(appData(places), 'Code', 'User', 'mcp.json') : join(places.project, '.vscode', 'mcp.json')),
    place: (_doc, launch) => ({ container: ['servers'], entry: { type: 'stdio', command: launch.command, args: [...launch.args] } }),
  },
  {
    name: 'windsurf',
    label: 'Windsurf',
    format: 'json',
    file: (scope, places) => (scope === 'user' ? join(home(places), '.codeium', 'windsurf', 'mcp_config.json') : undefined),
    place: (_doc, launch) => mcpServers(launch),
  },
  {
    name: 'gemini',
    label: 'Gemini CLI',
    format: 'json',
    file: (scope, places) => join(scope === 'user' ? home(places) : places.project, '.gemini', 'settings.json'),
    place: (_doc, launch) => mcpServers(launch),
  },
  {
    name: 'codex',
    label: 'Codex',
    format: 'toml',
    file: (scope, places) => (scope === 'user' ? join(places.env['CODEX_HOME'] || join(home(places), '.codex'), 'config.toml') : join(places.project, '.codex', 'config.toml')),
  },
  {
    name: 'opencode',
    label: 'opencode',
    format: 'json',
    file: (scope, places) => opencodeFile(scope === 'user' ? join(xdgConfig(places), 'opencode') : places.project),
    place: (doc, launch) => {
      const command = [launch.command, ...launch.args];
      const mcp = doc['mcp'];
      // opencode 2's own layout keeps servers under mcp.servers; opencode 1's (still read by 2) directly under mcp.
      const v2 = typeof mcp === 'object' && mcp !== null && typeof (mcp as Record<string, unknown>)['servers'] === 'object';
      if (v2) return { container: ['mcp', 'servers'], entry: { type: 'local', command } };
      return { container: ['mcp'], entry: { type: 'local', command, enabled: true } };
    },
  },
];

export const CLIENT_NAMES = CLIENTS.map((c) => c.name);
