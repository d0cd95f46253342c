// Where each MCP client keeps its server list, the keys of one stdio entry that setup owns, how the client passes
// environment to the server, and where its command hooks go (sources: docs/DECISIONS.md, docs/CONNECT.md).
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { EnvRule } from './environment.js';
import type { Launch } from './launch.js';

export type Scope = 'user' | 'project';

export interface Places {
  readonly env: NodeJS.ProcessEnv;
  readonly platform: NodeJS.Platform;
  /** The project folder, for project scope: the current directory. */
  readonly project: string;
}

type JsonObject = { [key: string]: unknown };

/** Where an entry goes in a JSON config and the keys setup writes into it (opencode has two layouts). */
export interface JsonPlacement {
  /** Keys from the top of the document to the object that holds the servers, e.g. ['mcpServers']. */
  readonly container: readonly string[];
  /** The keys setup owns, with their values; any other key of an existing stdio entry is kept. */
  readonly owned: JsonObject;
}

/** The client's command hooks: the file they live in and the events it answers (hooks/clients.ts names the same). */
export interface HookPlaces {
  /** The name `roundtable-bridge hook` knows the client by. */
  readonly hookClient: 'claude-code' | 'codex' | 'gemini-cli';
  file(scope: Scope, places: Places): string;
  /** What the person must still do before the hooks run, if anything. */
  readonly afterwards?: string;
}

interface ClientBase {
  readonly name: string;
  /** Other spellings accepted on the command line. */
  readonly aliases?: readonly string[];
  readonly label: string;
  /** How the client hands its environment to a stdio server it starts. */
  readonly env: EnvRule;
  /** The config file for a scope, or undefined when the client has no such scope. */
  file(scope: Scope, places: Places): string | undefined;
  readonly hooks?: HookPlaces;
  /** Said after the entry is written: what else the client needs before it starts the server. */
  readonly notice?: (scope: Scope, places: Places) => string | undefined;
}

export interface JsonClient extends ClientBase {
  readonly format: 'json';
  place(doc: JsonObject, launch: Launch): JsonPlacement;
  /** Whether an existing entry of our name is a stdio entry whose other keys are kept; otherwise it is replaced whole. */
  isStdio(entry: JsonObject): boolean;
}

export interface TomlClient extends ClientBase {
  readonly format: 'toml';
}

export type Client = JsonClient | TomlClient;

export const home = (places: Places) => places.env['HOME'] || homedir();

/** The per-user settings folder of a desktop app: Application Support, %APPDATA%, or XDG_CONFIG_HOME. */
function appData(places: Places): string {
  if (places.platform === 'darwin') return join(home(places), 'Library', 'Application Support');
  if (places.platform === 'win32') return places.env['APPDATA'] || join(home(places), 'AppData', 'Roaming');
  return places.env['XDG_CONFIG_HOME'] || join(home(places), '.config');
}

/** XDG_CONFIG_HOME or ~/.config on every system (opencode keeps its config there on macOS too). */
const xdgConfig = (places: Places) => places.env['XDG_CONFIG_HOME'] || join(home(places), '.config');

const codexHome = (places: Places) => places.env['CODEX_HOME'] || join(home(places), '.codex');

const mcpServers = (launch: Launch): JsonPlacement => ({ container: ['mcpServers'], owned: { command: launch.command, args: [...launch.args] } });

/** An mcpServers entry that is no remote server: no URL, and a type, if any, of stdio. */
const stdioEntry = (entry: JsonObject) => !['url', 'httpUrl', 'serverUrl'].some((key) => Object.hasOwn(entry, key)) && (entry['type'] === undefined || entry['type'] === 'stdio');

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
    env: 'whole',
    file: (scope, places) => (scope === 'user' ? join(home(places), '.claude.json') : join(places.project, '.mcp.json')),
    place: (_doc, launch) => mcpServers(launch),
    isStdio: stdioEntry,
    hooks: {
      hookClient: 'claude-code',
      file: (scope, places) => join(scope === 'user' ? home(places) : places.project, '.claude', 'settings.json'),
    },
  },
  {
    name: 'claude-desktop',
    label: 'Claude Desktop',
    format: 'json',
    env: 'whole',
    file: (scope, places) => (scope === 'user' ? join(appData(places), 'Claude', 'claude_desktop_config.json') : undefined),
    place: (_doc, launch) => mcpServers(launch),
    isStdio: stdioEntry,
  },
  {
    name: 'cursor',
    label: 'Cursor',
    format: 'json',
    env: 'whole',
    file: (scope, places) => join(scope === 'user' ? home(places) : places.project, '.cursor', 'mcp.json'),
    place: (_doc, launch) => mcpServers(launch),
    isStdio: stdioEntry,
  },
  {
    name: 'vscode',
    label: 'VS Code',
    format: 'json',
    env: 'whole',
    file: (scope, places) => (scope === 'user' ? join(appData(places), 'Code', 'User', 'mcp.json') : join(places.project, '.vscode', 'mcp.json')),
    place: (_doc, launch) => ({ container: ['servers'], owned: { type: 'stdio', command: launch.command, args: [...launch.args] } }),
    isStdio: (entry) => entry['type'] === 'stdio' || (entry['type'] === undefined && typeof entry['command'] === 'string'),
  },
  {
    name: 'windsurf',
    label: 'Windsurf',
    format: 'json',
    env: 'whole',
    file: (scope, places) => (scope === 'user' ? join(home(places), '.codeium', 'windsurf', 'mcp_config.json') : undefined),
    place: (_doc, launch) => mcpServers(launch),
    isStdio: stdioEntry,
  },
  {
    name: 'gemini-cli',
    aliases: ['gemini'],
    label: 'Gemini CLI',
    format: 'json',
    env: 'without-secrets',
    file: (scope, places) => join(scope === 'user' ? home(places) : places.project, '.gemini', 'settings.json'),
    place: (_doc, launch) => mcpServers(launch),
    isStdio: stdioEntry,
    hooks: {
      hookClient: 'gemini-cli',
      file: (scope, places) => join(scope === 'user' ? home(places) : places.project, '.gemini', 'settings.json'),
    },
    notice: (scope, places) =>
      `The Gemini CLI starts no MCP server (and runs no hook) in a folder it does not trust: trust ${scope === 'project' ? places.project : 'each folder you use it in'} when it asks, or with \`/permissions trust\` inside it (kept in ~/.gemini/trustedFolders.json). It passes no variable whose name holds TOKEN to the server, so ROUNDTABLE_TOKEN and ROUNDTABLE_TOKEN_FILE do not reach the bridge: keep the token in the keychain (\`roundtable-bridge login\`).`,
  },
  {
    name: 'codex',
    label: 'Codex',
    format: 'toml',
    env: 'allowlist',
    file: (scope, places) => (scope === 'user' ? join(codexHome(places), 'config.toml') : join(places.project, '.codex', 'config.toml')),
    hooks: {
      hookClient: 'codex',
      file: (scope, places) => (scope === 'user' ? join(codexHome(places), 'hooks.json') : join(places.project, '.codex', 'hooks.json')),
      afterwards:
        'Codex runs a new or changed hook only once you trust it: start Codex and open /hooks to review and trust the three Roundtable hooks (`codex exec --dangerously-bypass-hook-trust` skips that for one unattended run).',
    },
  },
  {
    name: 'opencode',
    label: 'opencode',
    format: 'json',
    env: 'whole',
    file: (scope, places) => opencodeFile(scope === 'user' ? join(xdgConfig(places), 'opencode') : places.project),
    place: (doc, launch) => {
      const command = [launch.command, ...launch.args];
      const mcp = doc['mcp'];
      // opencode 2's own layout keeps servers under mcp.servers; opencode 1's (still read by 2) directly under mcp.
      const v2 = typeof mcp === 'object' && mcp !== null && typeof (mcp as JsonObject)['servers'] === 'object';
      if (v2) return { container: ['mcp', 'servers'], owned: { type: 'local', command } };
      return { container: ['mcp'], owned: { type: 'local', command, enabled: true } };
    },
    isStdio: (entry) => entry['type'] === 'local',
  },
];

export const CLIENT_NAMES = CLIENTS.map((c) => c.name);

/** The client of a name or one of its other spellings. */
export function clientNamed(name: string): Client | undefined {
  return CLIENTS.find((c) => c.name === name || c.aliases?.includes(name));
}
