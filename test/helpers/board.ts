// Starts the real daemon process on a free loopback port with a temporary database and agents.json.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { Client, StreamableHTTPClientTransport, type CallToolRequest, type CallToolRequestOptions } from '@modelcontextprotocol/client';
import { createNodeFetch } from './ca-fetch.js';
import { createTestDatabase } from './postgres.js';
import { spawnTracked, stopProcess } from './processes.js';
import type { StoreKind, StoreName } from './stores.js';

export const ROOT = new URL('../../', import.meta.url).pathname;
export const DAEMON_BIN = join(ROOT, 'daemon/bin/roundtable.js');
const execFileAsync = promisify(execFile);

export interface AgentSpec {
  name: string;
  role: 'leader' | 'worker' | 'peer' | 'observer' | 'owner';
  skills?: string[];
  toolsets?: string[];
}

export const DEFAULT_AGENTS: AgentSpec[] = [
  { name: 'lead', role: 'leader' },
  { name: 'w1', role: 'worker', skills: ['python', 'sql'] },
  { name: 'w2', role: 'worker', skills: ['python'] },
  { name: 'w3', role: 'worker' },
];

export interface StartOptions {
  agents?: AgentSpec[];
  env?: Record<string, string>;
  /** Reuse a directory (and so its database and agents.json), e.g. for restart tests. */
  dir?: string;
  tokens?: Record<string, string>;
  /** Which store the daemon runs on (default SQLite). PostgreSQL gets a fresh database, unless databaseUrl names one. */
  store?: StoreName | StoreKind;
  /** On PostgreSQL: share this database (several daemons on one board). */
  databaseUrl?: string | undefined;
  /** Run another daemon (e.g. one installed from its tarball) with another Node; default: this repository's, this Node. */
  bin?: string;
  node?: string;
}

export interface TestBoard {
  readonly url: string;
  readonly port: number;
  readonly dir: string;
  readonly dbPath: string;
  /** Set when the daemon runs on PostgreSQL: the database's URL (the SQLite dbPath is then unused). */
  readonly databaseUrl: string | undefined;
  readonly tokens: Record<string, string>;
  readonly process: ChildProcess;
  output(): { stdout: string; stderr: string };
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function token(): string {
  return `rt_test_${randomBytes(24).toString('base64url')}`;
}

export function writeAgentsFile(path: string, agents: AgentSpec[], tokens: Record<string, string>): void {
  const file = {
    ...(agents.some((a) => a.role === 'peer') && { mode: 'peer' }),
    agents: agents.map((a) => ({
      name: a.name,
      role: a.role,
      skills: a.skills ?? [],
      ...(a.toolsets && { toolsets: a.toolsets }),
      token_sha256: createHash('sha256').update(tokens[a.name]!).digest('hex'),
    })),
  };
  writeFileSync(path, JSON.stringify(file), { mode: 0o600 });
}

/** The environment a daemon gets in tests: only what it needs, never the test runner's. */
export function daemonEnv(dir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    ROUNDTABLE_HOST: '127.0.0.1',
    ROUNDTABLE_PORT: '0',
    ROUNDTABLE_DB_PATH: join(dir, 'board.db'),
    ROUNDTABLE_AGENTS_CONFIG: join(dir, 'agents.json'),
    ROUNDTABLE_RATE_LIMIT_PER_MINUTE: '100000',
    ...extra,
  };
}

export async function startBoard(options: StartOptions = {}): Promise<TestBoard> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'roundtable-test-'));
  const agents = options.agents ?? DEFAULT_AGENTS;
  const tokens = options.tokens ?? Object.fromEntries(agents.map((a) => [a.name, token()]));
  if (!options.dir || options.tokens === undefined) writeAgentsFile(join(dir, 'agents.json'), agents, tokens);
  const storeName = typeof options.store === 'object' ? options.store.name : options.store;
  const databaseUrl = options.databaseUrl ?? (storeName === 'postgres' ? await createTestDatabase() : undefined);
  const env = daemonEnv(dir, { ...(databaseUrl && { ROUNDTABLE_DATABASE_URL: databaseUrl }), ...options.env });
  const child = spawnTracked(options.node ?? process.execPath, [options.bin ?? DAEMON_BIN, 'run'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`daemon did not start in 20 s:\n${stderr}`)), 20_000);
    const onData = () => {
      const match = /listening on (https?:\/\/[^\s]+?)\/mcp/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`daemon exited with ${code} before listening:\n${stderr}`));
    });
  });
  return {
    url,
    port: Number(new URL(url).port),
    dir,
    dbPath: env['ROUNDTABLE_DB_PATH']!,
    databaseUrl,
    tokens,
    process: child,
    output: () => ({ stdout, stderr }),
    async stop(signal) {
      const code = await stopProcess(child, signal);
      // Every line the daemon logged in any test: no token may appear in it.
      for (const [name, value] of Object.entries(tokens)) {
        if (stderr.includes(value) || stdout.includes(value)) throw new Error(`the daemon's output contains ${name}'s token`);
      }
      return code;
    },
  };
}

/** Several daemons on one fresh PostgreSQL database (one board), with one agents.json and the same tokens. */
export async function startDaemons(count: number, options: Pick<StartOptions, 'agents' | 'env'> & { label?: string } = {}): Promise<TestBoard[]> {
  const databaseUrl = await createTestDatabase(options.label ?? 'multi');
  const { label: _label, ...shared } = options;
  const first = await startBoard({ ...shared, databaseUrl });
  const others = await Promise.all(Array.from({ length: count - 1 }, () => startBoard({ ...shared, tokens: first.tokens, databaseUrl })));
  return [first, ...others];
}

export interface ApiAnswer<T = Record<string, unknown>> {
  status: number;
  body: T & { error?: { code: string; message: string; retry_after_s?: number } };
  headers: Headers;
}

/** Calls a tool through the JSON API, as the bridge does. */
export async function api<T = Record<string, any>>(board: TestBoard, agent: string | null, tool: string, args: unknown = {}): Promise<ApiAnswer<T>> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (agent !== null) headers['authorization'] = `Bearer ${board.tokens[agent] ?? agent}`;
  const response = await fetch(`${board.url}/api/v1/tools/${tool}`, { method: 'POST', headers, body: JSON.stringify(args) });
  return { status: response.status, body: (await response.json()) as ApiAnswer<T>['body'], headers: response.headers };
}

/**
 * The v2 SDK client, whose callTool also takes the v1 form `(params, resultSchema, options)` that tests written
 * against the v1 SDK use (v2 dropped the middle argument): the options are taken from wherever they are.
 */
export class TestClient extends Client {
  override callTool(params: CallToolRequest['params'], schemaOrOptions?: unknown, options?: CallToolRequestOptions) {
    const asOptions = typeof schemaOrOptions === 'object' && schemaOrOptions !== null && !('~standard' in schemaOrOptions) && !('parse' in schemaOrOptions);
    return super.callTool(params, options ?? (asOptions ? (schemaOrOptions as CallToolRequestOptions) : undefined));
  }
}

/** Which revision an SDK client speaks: 'modern' is 2026-07-28 (server/discover, the `_meta` envelope); 'legacy' opens with initialize (2025-11-25). */
export type McpEra = 'modern' | 'legacy';

/** The MCP revision the test clients pin on the modern path. */
export const MODERN_REVISION = '2026-07-28';

/** The v2 SDK client's options for an era: a pin never falls back, so a modern client that connects is on 2026-07-28. */
export function clientOptionsFor(era: McpEra) {
  return { versionNegotiation: { mode: era === 'modern' ? { pin: MODERN_REVISION } : ('legacy' as const) } };
}

/**
 * An MCP SDK (v2) client connected to /mcp with the agent's bearer token (of a daemon, or of a proxy in front of some).
 * It speaks 2026-07-28 unless `era: 'legacy'` asks for the 2025 initialize handshake.
 */
export async function mcpClient(board: Pick<TestBoard, 'url' | 'tokens'>, agent: string, options: { caFile?: string; era?: McpEra } = {}): Promise<TestClient> {
  const client = new TestClient({ name: 'roundtable-test', version: '0.0.0' }, clientOptionsFor(options.era ?? 'modern'));
  const transport = new StreamableHTTPClientTransport(new URL(`${board.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${board.tokens[agent] ?? agent}` } },
    // A board on a test CA: trust it through a node:https agent, as the bridge does with --ca.
    ...(options.caFile && { fetch: createNodeFetch({ ca: readFileSync(options.caFile, 'utf8') }) }),
  });
  await client.connect(transport);
  return client;
}

/** Parses the JSON text of an MCP tool result. */
export function resultJson(result: unknown): any {
  const content = (result as { content: Array<{ type: string; text: string }> }).content;
  return JSON.parse(content[0]!.text);
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the `roundtable` command to completion with an explicit environment. */
export async function runCli(args: string[], env: Record<string, string>, timeoutMs = 30_000): Promise<CliRun> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [DAEMON_BIN, ...args], { env, timeout: timeoutMs });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

export interface McpAnswer {
  status: number;
  /** The JSON-RPC response, or undefined when the body was not JSON. */
  body: any;
}

/** Posts one raw JSON-RPC message to /mcp, as any client could: no SDK checks the message on its way out. */
export async function mcpRaw(board: TestBoard, agent: string, message: unknown, options: { rawBody?: string } = {}): Promise<McpAnswer> {
  const response = await fetch(`${board.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${board.tokens[agent] ?? agent}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: options.rawBody ?? JSON.stringify(message),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, body };
}

/** A tools/call through mcpRaw; the arguments object goes out exactly as given (JSON.stringify keeps an own "__proto__"). */
export function mcpCallRaw(board: TestBoard, agent: string, tool: string, args: unknown, id: number | string = 1): Promise<McpAnswer> {
  return mcpRaw(board, agent, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: args } });
}
