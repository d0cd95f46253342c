// The MCP face: Streamable HTTP on /mcp, stateless, on the 2026-07-28 revision and the 2025 ones; tools from shared/.
import { createMcpHonoApp } from '@modelcontextprotocol/hono';
import {
  classifyInboundRequest,
  createMcpHandler,
  isLegacyRequest,
  Server,
  specTypeSchemas,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type InboundClassificationOutcome,
} from '@modelcontextprotocol/server';
import type { Context } from 'hono';
import { Hono } from 'hono';
import {
  listedToolsFor,
  registerBoardPrompts,
  registerBoardTools,
  runBoardTool,
  LIST_CACHE_HINT,
  SERVER_CACHE_HINTS,
  SERVER_CAPABILITIES,
  SERVER_INSTRUCTIONS,
  type BoardToolHandlers,
} from 'roundtable-shared';
import type { Agent } from '../agents/directory.js';
import type { ToolDispatcher } from '../board/dispatch.js';
import { asBoardError } from '../errors.js';
import type { AuthVariables } from '../http/auth.js';
import { JSON_TOO_DEEP, nestedDeeperThan } from '../http/json-depth.js';
import { log } from '../runtime/log.js';
import { MODERN_REVISIONS, modernResultFields, plainCallAnswer, plainRequest, plainResultAnswer, type PlainRequest } from './plain-call.js';
import { VERSION } from '../runtime/version.js';

const SERVER_INFO = { name: 'roundtable', version: VERSION };
const MODERN_FIELDS = modernResultFields(SERVER_INFO);

function jsonRpcError(code: number, message: string, id: string | number | null = null) {
  return { jsonrpc: '2.0' as const, error: { code, message }, id };
}

// The SDK parses a request's params inside its handler and answers a malformed one as an internal error (-32603);
// the mistake is the client's, so those requests are checked here first and refused as invalid params (-32602).
// Per revision: 2026-07-28 has no initialize and no ping (the SDK answers them as methods it does not have).
type RequestSchema = (typeof specTypeSchemas)['PingRequest'];
const BOTH_ERAS: Array<[string, RequestSchema]> = [
  ['tools/list', specTypeSchemas.ListToolsRequest],
  ['tools/call', specTypeSchemas.CallToolRequest],
  ['prompts/list', specTypeSchemas.ListPromptsRequest],
  ['prompts/get', specTypeSchemas.GetPromptRequest],
] as unknown as Array<[string, RequestSchema]>;
const REQUEST_SCHEMAS = {
  legacy: new Map<string, RequestSchema>([['initialize', specTypeSchemas.InitializeRequest as unknown as RequestSchema], ['ping', specTypeSchemas.PingRequest], ...BOTH_ERAS]),
  modern: new Map<string, RequestSchema>([['server/discover', specTypeSchemas.DiscoverRequest as unknown as RequestSchema], ...BOTH_ERAS]),
};

async function malformedRequest(body: unknown, era: 'legacy' | 'modern'): Promise<ReturnType<typeof jsonRpcError> | undefined> {
  if (!body || typeof body !== 'object') return undefined;
  const { method, id } = body as { method?: unknown; id?: unknown };
  if (typeof method !== 'string' || (typeof id !== 'string' && typeof id !== 'number')) return undefined;
  const schema = REQUEST_SCHEMAS[era].get(method);
  if (!schema) return undefined;
  const checked = await schema['~standard'].validate(body);
  if (!checked.issues) return undefined;
  const issue = checked.issues[0];
  const where = issue?.path?.map((p) => String(typeof p === 'object' ? p.key : p)).join('.') || 'params';
  return jsonRpcError(-32602, `Invalid params: ${method} ${where}: ${issue?.message ?? 'malformed'}; send params of the shape the MCP specification gives`, id);
}

/** Who sent the request: handed to the server's handlers as the request's authInfo (never the token itself). */
interface Caller {
  readonly agent: Agent;
  readonly requestId: string;
  readonly signal: AbortSignal;
}

const authInfoOf = (caller: Caller): AuthInfo => ({ token: '', clientId: caller.agent.name, scopes: [], extra: { caller } });
const callerOf = (authInfo: AuthInfo | undefined) => authInfo?.extra?.['caller'] as Caller;

/** The board's tools as MCP handlers: the caller of each call comes from the request's authInfo. */
function boardHandlers(dispatcher: ToolDispatcher): BoardToolHandlers {
  return {
    // The caller is known from its token: it sees the tools its role can use, narrowed to its toolsets.
    list: (request) => {
      const { agent } = callerOf(request.authInfo);
      return { tools: listedToolsFor({ role: agent.role, toolsets: agent.toolsets }) };
    },
    call: (name, args, request) => {
      const caller = callerOf(request.authInfo);
      return dispatcher.call(caller.agent, name, args, {
        requestId: caller.requestId,
        get signal() {
          return caller.signal;
        },
        face: 'mcp',
      });
    },
    toErrorBody: (error) => asBoardError(error).toBody(),
  };
}

/**
 * One server per request, for either revision: building one costs a few microseconds on the v2 SDK (the v1 one cost
 * more than a tool call, hence the pool this replaces), and it holds nothing of a request once the exchange ends, so
 * any daemon answers any request.
 */
function serverFactory(handlers: BoardToolHandlers): () => Server {
  return () => {
    // Server, not McpServer: the tool list is computed per caller and the board's own rules check the arguments.
    const server = new Server(SERVER_INFO, { capabilities: SERVER_CAPABILITIES, instructions: SERVER_INSTRUCTIONS, cacheHints: SERVER_CACHE_HINTS });
    registerBoardTools(server, handlers);
    registerBoardPrompts(server);
    return server;
  };
}

/**
 * A 2025 request (initialize, or no `_meta` envelope), answered statelessly by a fresh server over the SDK's
 * Streamable HTTP transport in JSON mode: one JSON body per POST, as /mcp has always answered 2025 clients. The SDK's
 * own fallback (createMcpHandler's `legacy: 'stateless'`) would answer each with an SSE stream instead; its
 * documented routing (isLegacyRequest in front of a strict handler) keeps the JSON answers.
 */
async function serveLegacy(build: () => Server, request: Request, body: unknown, authInfo: AuthInfo): Promise<Response> {
  const server = build();
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody: body, authInfo });
  } finally {
    await server.close();
  }
}

/** What the SDK reports of a refused or failed exchange: its kind only (its message can quote what the client sent). */
const reportSdkError = (error: Error) => log.debug('mcp exchange refused or failed', { error: error.name });

type McpEnv = { Variables: AuthVariables & { parsedBody?: unknown } };

export interface McpRoutesOptions {
  /** The host names the board admits (ROUNDTABLE_ALLOWED_HOSTS and loopback), for the SDK's own Host/Origin checks. */
  readonly allowedHostNames: readonly string[];
}

export function mcpRoutes(dispatcher: ToolDispatcher, options: McpRoutesOptions): Hono<{ Variables: AuthVariables }> {
  const handlers = boardHandlers(dispatcher);
  const build = serverFactory(handlers);
  const modern = createMcpHandler(build, { legacy: 'reject', onerror: reportSdkError });
  const mcp = new Hono<McpEnv>();

  /** A plain request answered here, as the SDK's server answers it (a test holds the two answers equal). */
  async function answerPlain(request: PlainRequest, c: Context<McpEnv>): Promise<string> {
    // The signal is made when read (a wait reads it): making it builds the request's whole Request object.
    const caller: Caller = {
      agent: c.get('agent'),
      requestId: c.get('requestId'),
      get signal() {
        return c.req.raw.signal;
      },
    };
    if (request.method === 'tools/call') return plainCallAnswer(request, await runBoardTool(handlers, request.params, { authInfo: authInfoOf(caller) }), MODERN_FIELDS);
    const cache = { ttlMs: LIST_CACHE_HINT.ttlMs, cacheScope: LIST_CACHE_HINT.cacheScope };
    if (request.method === 'tools/list') return plainResultAnswer(request, { tools: handlers.list!({ authInfo: authInfoOf(caller) }).tools, ...cache }, MODERN_FIELDS);
    return plainResultAnswer(request, { supportedVersions: MODERN_REVISIONS, capabilities: SERVER_CAPABILITIES, instructions: SERVER_INSTRUCTIONS, ...cache }, MODERN_FIELDS);
  }

  // The body is read here, before the SDK's Hono app sees the request, so that a body that is not one JSON-RPC
  // message gets our JSON-RPC error, and a plain request is answered without building any server: a plain
  // tools/call costs about what the JSON API call does, and a 2026-07-28 client's connect (server/discover, then
  // tools/list) about two round trips.
  mcp.use('/', async function jsonRpcBody(c, next) {
    if (c.req.method !== 'POST') return next();
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return c.json(jsonRpcError(-32700, 'Parse error: the body must be one JSON-RPC message'), 400);
    }
    // Batches were removed from the transport in 2025-06-18; one message per request.
    if (Array.isArray(body)) return c.json(jsonRpcError(-32600, 'Invalid Request: JSON-RPC batches are not supported; send one message per request'), 400);
    // Before anything walks it: the SDK's schemas and the envelope's serialisation recurse (a 5,000-deep
    // clientCapabilities overflowed the stack: HTTP 500). The id is read off the top level only.
    if (nestedDeeperThan(body)) {
      const id = (body as { id?: unknown } | null)?.id;
      return c.json(jsonRpcError(-32602, `Invalid params: ${JSON_TOO_DEEP}`, typeof id === 'string' || typeof id === 'number' ? id : null));
    }
    const plain = plainRequest(body, (name) => c.req.header(name), (message) => classify(c, message));
    if (plain) return c.body(await answerPlain(plain, c), 200, { 'content-type': 'application/json' });
    const route = classify(c, body);
    // A refusal the SDK answers on its own (a bad envelope, headers that disagree with the body, a revision we do
    // not serve) goes there first; only requests it would serve have their params checked.
    const era = servedEra(route);
    if (era) {
      const malformed = await malformedRequest(body, era);
      if (malformed) return c.json(malformed);
    }
    c.set('parsedBody', body);
    return next();
  });

  // No server-initiated stream and no sessions: GET and DELETE are not offered on either revision (answered
  // here, before the SDK's app, whose body parser would refuse a GET that names a JSON content type).
  mcp.on(['GET', 'DELETE'], '/', (c) => {
    c.header('Allow', 'POST');
    return c.json(jsonRpcError(-32000, 'Method not allowed: this server sends no server-initiated stream; use POST'), 405);
  });

  // The SDK's Hono app: its Host/Origin checks (a subset of ours, which ran first) and its JSON body parser, which
  // finds the body already parsed above.
  const sdk = createMcpHonoApp({ allowedHosts: [...options.allowedHostNames], allowedOrigins: [...options.allowedHostNames] });
  sdk.post('/', async (c: Context<McpEnv>) => {
    const body = c.get('parsedBody');
    const authInfo = authInfoOf({ agent: c.get('agent'), requestId: c.get('requestId'), signal: c.req.raw.signal });
    if (await isLegacyRequest(c.req.raw, body)) return serveLegacy(build, c.req.raw, body, authInfo);
    return modern.fetch(c.req.raw, { authInfo, parsedBody: body });
  });
  mcp.route('/', sdk as unknown as Hono<McpEnv>);
  return mcp;
}

function classify(c: Context, body: unknown): InboundClassificationOutcome {
  const version = c.req.header('mcp-protocol-version');
  const method = c.req.header('mcp-method');
  const name = c.req.header('mcp-name');
  return classifyInboundRequest({
    httpMethod: 'POST',
    ...(version !== undefined && { protocolVersionHeader: version }),
    ...(method !== undefined && { mcpMethodHeader: method }),
    ...(name !== undefined && { mcpNameHeader: name }),
    body,
  });
}

/** The revision the SDK would serve this request on, or undefined when it refuses it before any handler runs. */
function servedEra(route: InboundClassificationOutcome): 'legacy' | 'modern' | undefined {
  if (route.kind === 'legacy') return 'legacy';
  return route.kind === 'modern' && MODERN_REVISIONS.includes(route.classification.revision ?? '') ? 'modern' : undefined;
}
