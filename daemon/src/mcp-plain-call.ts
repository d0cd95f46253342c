// Recognises the plain tools/call that agents make all day, on either revision, so /mcp can answer it without the SDK.
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolRequestParams,
  type CallToolResult,
  type InboundClassificationOutcome,
} from '@modelcontextprotocol/server';

/** The revisions /mcp serves per request, with the `_meta` envelope; the 2025 ones (SDK's SUPPORTED_PROTOCOL_VERSIONS) open with initialize. */
export const MODERN_REVISIONS: readonly string[] = ['2026-07-28'];

/** The headers of the request, as the checks below read them (lower-case names). */
export type HeaderOf = (name: string) => string | undefined;

/** The SDK's classification of a request (classifyInboundRequest with the request's headers), for a body given. */
export type Classify = (body: unknown) => InboundClassificationOutcome;

export interface PlainToolCall {
  readonly id: string | number;
  readonly params: CallToolRequestParams;
  /** 'modern': a 2026-07-28 request, whose result carries resultType and the server's identity. */
  readonly era: 'legacy' | 'modern';
}

const ENVELOPE_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const PARAMS_KEYS = new Set(['name', 'arguments']);
const MODERN_PARAMS_KEYS = new Set(['name', 'arguments', '_meta']);
const META_KEYS = new Set([PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY]);
const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const onlyKeys = (value: Record<string, unknown>, allowed: ReadonlySet<string>) => Object.keys(value).every((key) => allowed.has(key));

/**
 * A tools/call the SDK would take as it is and answer with nothing but the tool's result, in the plainest
 * well-formed shape: only jsonrpc, id, method and params; params only a name, an arguments object and (2026-07-28)
 * the `_meta` envelope with only its protocol keys. On top of that:
 * - 2025 (no `_meta`, so no envelope claim): both media types accepted and a supported 2025 protocol version or
 *   none, as the SDK's transport requires (a 2026 header without the envelope is refused by the SDK);
 * - 2026-07-28: the SDK's own classification (`classify`) checks the envelope and that the MCP-Protocol-Version
 *   and Mcp-Method headers agree with the body; then a revision we serve, and the three standard headers present
 *   with Mcp-Name equal to the tool's name as plain text (a Base64-sentinel value goes to the SDK, which decodes it).
 *   The classification is given the request without its arguments, which play no part in it: copying them through
 *   the SDK's message schemas, three times over, was most of what it cost.
 * Anything else is undefined here and goes to the SDK, which answers it, refusals included.
 */
export function plainToolCall(body: unknown, header: HeaderOf, classify: Classify): PlainToolCall | undefined {
  if (!isPlainObject(body) || !onlyKeys(body, ENVELOPE_KEYS)) return undefined;
  const { jsonrpc, method, id, params } = body;
  if (jsonrpc !== '2.0' || method !== 'tools/call' || (typeof id !== 'string' && typeof id !== 'number') || !isPlainObject(params)) return undefined;
  const { name, arguments: args, _meta: meta } = params;
  if (typeof name !== 'string' || (args !== undefined && !isPlainObject(args))) return undefined;
  if (!/^application\/json\s*(;|$)/i.test(header('content-type') ?? '')) return undefined;
  if (meta === undefined) {
    if (!onlyKeys(params, PARAMS_KEYS)) return undefined;
    const accept = header('accept') ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
    const version = header('mcp-protocol-version');
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
    return { id, params: params as CallToolRequestParams, era: 'legacy' };
  }
  if (!onlyKeys(params, MODERN_PARAMS_KEYS) || !isPlainObject(meta) || !onlyKeys(meta, META_KEYS)) return undefined;
  const route = classify({ jsonrpc, id, method, params: { name, _meta: meta } });
  if (route.kind !== 'modern' || route.messageKind !== 'request') return undefined;
  if (!MODERN_REVISIONS.includes(route.classification.revision ?? '')) return undefined;
  if (header('mcp-protocol-version') === undefined || header('mcp-method') === undefined || header('mcp-name') !== name || name.startsWith('=?base64?')) return undefined;
  const { _meta: _envelope, ...plain } = params;
  return { id, params: plain as CallToolRequestParams, era: 'modern' };
}

/**
 * The JSON-RPC answer to a plain call, as the SDK's server would write it for that revision, as JSON text. A result's
 * structuredContent is the object its text content is the JSON of, so that text is written in as it is instead of
 * serializing the tool's output a second time.
 */
export function plainCallAnswer(call: PlainToolCall, result: CallToolResult, serverInfo: { name: string; version: string }): string {
  const modern = call.era === 'modern' ? `,"resultType":"complete","_meta":${JSON.stringify({ [SERVER_INFO_META_KEY]: serverInfo })}` : '';
  const text = (result.content[0] as { text?: unknown } | undefined)?.text;
  const id = JSON.stringify(call.id);
  if (result.isError || typeof text !== 'string' || result.structuredContent === undefined) {
    const body = JSON.stringify(result);
    return `{"result":${modern ? `${body.slice(0, -1)}${modern}}` : body},"jsonrpc":"2.0","id":${id}}`;
  }
  return `{"result":{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}${modern}},"jsonrpc":"2.0","id":${id}}`;
}
