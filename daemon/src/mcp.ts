// The MCP face: Streamable HTTP on /mcp, stateless; a plain tools/call answered directly, the rest by reused SDK servers, tools from shared/.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  InitializeRequestSchema,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { Context } from 'hono';
import { Hono } from 'hono';
import { listedToolsFor, registerBoardPrompts, registerBoardTools, runBoardTool, SERVER_CAPABILITIES, SERVER_INSTRUCTIONS, type BoardToolHandlers } from 'roundtable-shared';
import type { Agent } from './agents.js';
import type { ToolDispatcher } from './board/dispatch.js';
import { asBoardError } from './errors.js';
import type { AuthVariables } from './http/auth.js';
import { VERSION } from './version.js';

function jsonRpcError(code: number, message: string, id: string | number | null = null) {
  return { jsonrpc: '2.0' as const, error: { code, message }, id };
}

// The SDK parses a request's params inside its handler and answers a malformed one as an internal error (-32603);
// the mistake is the client's, so those requests are checked here first and refused as invalid params (-32602).
const REQUEST_SCHEMAS = new Map<string, typeof PingRequestSchema>([
  ['initialize', InitializeRequestSchema],
  ['ping', PingRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema],
  ['prompts/list', ListPromptsRequestSchema],
  ['prompts/get', GetPromptRequestSchema],
] as Array<[string, typeof PingRequestSchema]>);

function malformedRequest(body: unknown): ReturnType<typeof jsonRpcError> | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const { method, id } = body as { method?: unknown; id?: unknown };
  if (typeof method !== 'string' || (typeof id !== 'string' && typeof id !== 'number')) return undefined;
  const checked = REQUEST_SCHEMAS.get(method)?.safeParse(body);
  if (!checked || checked.success) return undefined;
  const issue = checked.error.issues[0];
  const where = issue?.path.map(String).join('.') || 'params';
  return jsonRpcError(-32602, `Invalid params: ${method} ${where}: ${issue?.message ?? 'malformed'}; send params of the shape the MCP specification gives`, id);
}

/** Who sent the request a pooled server is answering: handed to its handlers as the transport's authInfo. */
interface Caller {
  readonly agent: Agent;
  readonly requestId: string;
  readonly signal: AbortSignal;
}

/** At most this many idle servers are kept; more concurrent requests build more, which are then dropped. */
const IDLE_SERVERS = 64;

/**
 * Building an MCP server costs more than answering a tool call, so servers are built once and reused: each request
 * takes an idle one, connects it to the request's own transport, and gives it back after closing that transport.
 * A server holds nothing of a request once closed, so /mcp stays stateless: any daemon answers any request.
 */
class McpServerPool {
  private readonly idle: Server[] = [];
  /** The board's tools as MCP handlers: the caller of each call comes from the request's authInfo. */
  readonly handlers: BoardToolHandlers;

  constructor(dispatcher: ToolDispatcher) {
    this.handlers = {
      // The caller is known from its token: it sees the tools its role can use, narrowed to its toolsets.
      list: (request) => {
        const { agent } = request.authInfo?.extra?.['caller'] as Caller;
        return listedToolsFor({ role: agent.role, toolsets: agent.toolsets });
      },
      call: (name, args, request) => {
        const caller = request.authInfo?.extra?.['caller'] as Caller;
        return dispatcher.call(caller.agent, name, args, { requestId: caller.requestId, signal: caller.signal, face: 'mcp' });
      },
      toErrorBody: (error) => asBoardError(error).toBody(),
    };
  }

  take(): Server {
    return this.idle.pop() ?? this.build();
  }

  give(server: Server): void {
    if (this.idle.length < IDLE_SERVERS) this.idle.push(server);
  }

  private build(): Server {
    const server = new Server({ name: 'roundtable', version: VERSION }, { capabilities: SERVER_CAPABILITIES, instructions: SERVER_INSTRUCTIONS });
    registerBoardTools(server, this.handlers);
    registerBoardPrompts(server);
    return server;
  }
}

/**
 * A tools/call that the SDK's transport and server would take as it is: the headers it requires (both media types
 * accepted, a JSON body, a supported or absent protocol version) and a request of the plainest well-formed shape
 * (only jsonrpc, id, method and params; params only a name and, if given, an arguments object), which
 * CallToolRequestSchema accepts, so it need not be parsed again. Such a call, the one agents make all day, is answered
 * here with the same runBoardTool the SDK server runs, skipping the transport's per-request Request/Response objects
 * and the schema parse; anything else goes to malformedRequest and the SDK.
 */
function plainToolCall(c: Context, body: unknown): { id: string | number; params: CallToolRequest['params'] } | undefined {
  if (!isPlainObject(body)) return undefined;
  const message = body as { jsonrpc?: unknown; method?: unknown; id?: unknown; params?: unknown };
  if (message.jsonrpc !== '2.0' || message.method !== 'tools/call' || (typeof message.id !== 'string' && typeof message.id !== 'number')) return undefined;
  if (!onlyKeys(body, ENVELOPE_KEYS) || !isPlainObject(message.params) || !onlyKeys(message.params, PARAMS_KEYS)) return undefined;
  const { name, arguments: args } = message.params as { name?: unknown; arguments?: unknown };
  if (typeof name !== 'string' || (args !== undefined && !isPlainObject(args))) return undefined;
  const accept = c.req.header('accept') ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (!/^application\/json\s*(;|$)/i.test(c.req.header('content-type') ?? '')) return undefined;
  const version = c.req.header('mcp-protocol-version');
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
  return { id: message.id, params: message.params as CallToolRequest['params'] };
}

const ENVELOPE_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const PARAMS_KEYS = new Set(['name', 'arguments']);
const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const onlyKeys = (value: Record<string, unknown>, allowed: ReadonlySet<string>) => Object.keys(value).every((key) => allowed.has(key));

export function mcpRoutes(dispatcher: ToolDispatcher): Hono<{ Variables: AuthVariables }> {
  const mcp = new Hono<{ Variables: AuthVariables }>();
  const servers = new McpServerPool(dispatcher);

  mcp.post('/', async (c) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return c.json(jsonRpcError(-32700, 'Parse error: the body must be one JSON-RPC message'), 400);
    }
    // Batches were removed from the transport in 2025-06-18; one message per request.
    if (Array.isArray(body)) return c.json(jsonRpcError(-32600, 'Invalid Request: JSON-RPC batches are not supported; send one message per request'), 400);
    const caller: Caller = { agent: c.get('agent'), requestId: c.get('requestId'), signal: c.req.raw.signal };
    const call = plainToolCall(c, body);
    const malformed = call ? undefined : malformedRequest(body);
    if (malformed) return c.json(malformed);
    if (call) {
      const result = await runBoardTool(servers.handlers, call.params, { authInfo: { token: '', clientId: caller.agent.name, scopes: [], extra: { caller } } });
      return c.json({ result, jsonrpc: '2.0', id: call.id });
    }
    const server = servers.take();
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
    await server.connect(transport);
    try {
      // The token is never handed on: the caller is already authenticated, and only its Agent travels.
      return await transport.handleRequest(c.req.raw, { parsedBody: body, authInfo: { token: '', clientId: caller.agent.name, scopes: [], extra: { caller } } });
    } finally {
      await server.close();
      servers.give(server);
    }
  });

  // No server-initiated stream and no sessions: GET and DELETE are not offered.
  mcp.on(['GET', 'DELETE'], '/', (c) => {
    c.header('Allow', 'POST');
    return c.json(jsonRpcError(-32000, 'Method not allowed: this server sends no server-initiated stream; use POST'), 405);
  });

  return mcp;
}
