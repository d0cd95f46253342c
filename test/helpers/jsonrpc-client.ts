// A 2025-era MCP client by hand (no SDK): initialize, notifications/initialized, then requests, as JSON-RPC over
// /mcp (Streamable HTTP) or over a bridge's stdio. It stands for the clients that still open with initialize.
import type { ChildProcess } from 'node:child_process';
import type { TestBoard } from './board.js';
import { BRIDGE_BIN, waitForExit } from './bridge.js';
import { spawnTracked } from './processes.js';

export interface JsonRpcAnswer {
  readonly result?: any;
  readonly error?: { code: number; message: string; data?: unknown };
}

export interface LegacySession {
  /** The initialize result the server answered with. */
  readonly initialized: any;
  request(method: string, params?: Record<string, unknown>): Promise<JsonRpcAnswer>;
  /** tools/call; resolves with the result (an error result included), throws on a JSON-RPC error. */
  callTool(name: string, args: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

const CLIENT_INFO = { name: 'roundtable-hand-rolled', version: '0.0.0' };

function initializeParams(protocolVersion: string) {
  return { protocolVersion, capabilities: {}, clientInfo: CLIENT_INFO };
}

function sessionOf(initialized: any, request: LegacySession['request'], close: () => Promise<void>): LegacySession {
  return {
    initialized,
    request,
    async callTool(name, args) {
      const answer = await request('tools/call', { name, arguments: args });
      if (answer.error) throw new Error(`tools/call ${name}: JSON-RPC error ${answer.error.code} ${answer.error.message}`);
      return answer.result;
    },
    close,
  };
}

/** A 2025 session on /mcp: every message its own POST, with the MCP-Protocol-Version the initialize agreed. */
export async function httpLegacySession(board: Pick<TestBoard, 'url' | 'tokens'>, agent: string, protocolVersion = '2025-06-18'): Promise<LegacySession> {
  let nextId = 1;
  let negotiated: string | undefined;
  const post = async (message: Record<string, unknown>) => {
    const response = await fetch(`${board.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${board.tokens[agent] ?? agent}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(negotiated && { 'mcp-protocol-version': negotiated }),
      },
      body: JSON.stringify(message),
    });
    const text = await response.text();
    return { status: response.status, type: response.headers.get('content-type'), text };
  };
  const request = async (method: string, params: Record<string, unknown> = {}): Promise<JsonRpcAnswer> => {
    const id = nextId++;
    const { status, type, text } = await post({ jsonrpc: '2.0', id, method, params });
    // A 2025 client reads JSON; /mcp answers 2025 clients in JSON, never SSE.
    if (!type?.startsWith('application/json')) throw new Error(`${method}: HTTP ${status} answered ${type}: ${text.slice(0, 200)}`);
    const answer = JSON.parse(text) as JsonRpcAnswer & { id: unknown };
    if (answer.id !== id) throw new Error(`${method}: answer for id ${String(answer.id)}, not ${id}`);
    return answer;
  };
  const opened = await request('initialize', initializeParams(protocolVersion));
  if (opened.error) throw new Error(`initialize: ${opened.error.code} ${opened.error.message}`);
  negotiated = opened.result.protocolVersion;
  const ack = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  if (ack.status !== 202) throw new Error(`notifications/initialized: HTTP ${ack.status}`);
  return sessionOf(opened.result, request, async () => {});
}

/** JSON-RPC with the real bridge over stdio, one message a line, with no handshake of any kind. */
export interface StdioJsonRpc {
  readonly child: ChildProcess;
  request(method: string, params?: Record<string, unknown>): Promise<JsonRpcAnswer>;
  notify(method: string, params?: Record<string, unknown>): void;
  stderr(): string;
  /** Closes stdin and waits until the bridge has exited. */
  close(): Promise<void>;
}

export function stdioJsonRpc(options: { args: string[]; env: Record<string, string> }): StdioJsonRpc {
  const child = spawnTracked(process.execPath, [BRIDGE_BIN, ...options.args], { env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const pending = new Map<number, (answer: JsonRpcAnswer) => void>();
  let buffer = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (!line.trim()) continue;
      const message = JSON.parse(line) as JsonRpcAnswer & { id?: number; method?: string };
      if (typeof message.id === 'number' && message.method === undefined) pending.get(message.id)?.(message);
    }
  });
  let nextId = 1;
  const write = (message: Record<string, unknown>) => child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  return {
    child,
    request: (method, params = {}) =>
      new Promise<JsonRpcAnswer>((resolve, reject) => {
        const id = nextId++;
        const timer = setTimeout(() => reject(new Error(`${method}: no answer in 15 s\n${stderr}`)), 15_000);
        pending.set(id, (answer) => {
          clearTimeout(timer);
          pending.delete(id);
          resolve(answer);
        });
        write({ id, method, params });
      }),
    notify: (method, params) => write({ method, ...(params && { params }) }),
    stderr: () => stderr,
    async close() {
      child.stdin!.end();
      await waitForExit(child.pid!);
    },
  };
}

/** A 2025 session with the real bridge over stdio: initialize, notifications/initialized, then requests. */
export async function stdioLegacySession(options: { args: string[]; env: Record<string, string> }, protocolVersion = '2025-06-18'): Promise<LegacySession & { child: ChildProcess; stderr(): string }> {
  const rpc = stdioJsonRpc(options);
  const opened = await rpc.request('initialize', initializeParams(protocolVersion));
  if (opened.error) throw new Error(`initialize: ${opened.error.code} ${opened.error.message}`);
  rpc.notify('notifications/initialized');
  return { ...sessionOf(opened.result, rpc.request, rpc.close), child: rpc.child, stderr: rpc.stderr };
}
