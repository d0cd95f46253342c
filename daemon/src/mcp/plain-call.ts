// Recognises the plain requests clients make all day (tools/call on either revision; server/discover and tools/list
// on 2026-07-28, each connect's two), so /mcp can answer them without building an SDK server for each.
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

export type PlainRequest =
  | {
      readonly method: 'tools/call';
      readonly id: string | number;
      readonly params: CallToolRequestParams;
      /** 'modern': a 2026-07-28 request, whose result carries resultType and the server's identity. */
      readonly era: 'legacy' | 'modern';
    }
  | { readonly method: 'tools/list' | 'server/discover'; readonly id: string | number; readonly era: 'modern' };

const ENVELOPE_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const CALL_KEYS = new Set(['name', 'arguments']);
const MODERN_CALL_KEYS = new Set(['name', 'arguments', '_meta']);
const MODERN_BARE_KEYS = new Set(['_meta']);
const META_KEYS = new Set([PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY]);
const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const onlyKeys = (value: Record<string, unknown>, allowed: ReadonlySet<string>) => Object.keys(value).every((key) => allowed.has(key));

/**
 * A request the SDK would take as it is and answer with nothing but the board's answer, in the plainest well-formed
 * shape: only jsonrpc, id, method and params, a JSON body, and:
 * - tools/call on 2025 (no `_meta`, so no envelope claim): params only a name and an arguments object; both media
 *   types accepted and a supported 2025 protocol version or none, as the SDK's transport requires (a 2026 header
 *   without the envelope is refused by the SDK);
 * - on 2026-07-28: tools/call with params only a name, arguments and the `_meta` envelope, or server/discover and
 *   tools/list (no cursor: the list is one page) with params only the envelope; the envelope with only its protocol
 *   keys. The SDK's own classification (`classify`) checks the envelope and that the MCP-Protocol-Version and
 *   Mcp-Method headers agree with the body; then it must name a revision we serve, both headers must be present,
 *   and a tools/call's Mcp-Name must be the tool's name as plain text (a Base64-sentinel value goes to the SDK,
 *   which decodes it). The classification is given the request without its name and arguments, which play no part
 *   in it (copying them through the SDK's message schemas, three times over, was most of what it cost), and its
 *   verdict is remembered per envelope (envelopeServed).
 * Anything else is undefined here and goes to the SDK, which answers it, refusals included.
 */
export function plainRequest(body: unknown, header: HeaderOf, classify: Classify): PlainRequest | undefined {
  if (!isPlainObject(body) || !onlyKeys(body, ENVELOPE_KEYS)) return undefined;
  const { jsonrpc, method, id, params } = body;
  if (jsonrpc !== '2.0' || (typeof id !== 'string' && typeof id !== 'number') || !isPlainObject(params)) return undefined;
  if (!/^application\/json\s*(;|$)/i.test(header('content-type') ?? '')) return undefined;
  const { name, arguments: args, _meta: meta } = params;
  if (method === 'tools/call') {
    if (typeof name !== 'string' || (args !== undefined && !isPlainObject(args))) return undefined;
    if (meta === undefined) {
      if (!onlyKeys(params, CALL_KEYS)) return undefined;
      const accept = header('accept') ?? '';
      if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
      const version = header('mcp-protocol-version');
      if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
      return { method, id, params: params as CallToolRequestParams, era: 'legacy' };
    }
    if (!onlyKeys(params, MODERN_CALL_KEYS) || header('mcp-name') !== name || name.startsWith('=?base64?')) return undefined;
  } else if (method === 'tools/list' || method === 'server/discover') {
    if (!onlyKeys(params, MODERN_BARE_KEYS)) return undefined;
  } else {
    return undefined;
  }
  if (!isPlainObject(meta) || !onlyKeys(meta, META_KEYS)) return undefined;
  const versionHeader = header('mcp-protocol-version');
  const methodHeader = header('mcp-method');
  if (versionHeader === undefined || methodHeader === undefined) return undefined;
  if (!envelopeServed({ versionHeader, methodHeader, method, meta }, () => classify({ jsonrpc, id, method, params: { _meta: meta } }))) return undefined;
  if (method !== 'tools/call') return { method, id, era: 'modern' };
  const { _meta: _envelope, ...call } = params;
  return { method, id, params: call as CallToolRequestParams, era: 'modern' };
}

/** Envelopes (with the headers and method they came with) the SDK's classification found served, as JSON text. */
const servedEnvelopes = new Set<string>();
const SERVED_ENVELOPES_MAX = 1000;
const ENVELOPE_KEY_MAX = 2000;

/**
 * Whether the SDK's classification serves a request with this envelope, headers and method. Its verdict depends on
 * nothing else, and a client sends the same envelope with every request, so a served one is remembered (as its JSON,
 * at most 1,000 of them, none longer than 2,000 characters): the classification parses the message with three of the
 * SDK's schemas, a tenth of what a plain call cost.
 */
function envelopeServed(request: { versionHeader: string; methodHeader: string; method: string; meta: Record<string, unknown> }, classify: () => InboundClassificationOutcome): boolean {
  const key = JSON.stringify([request.versionHeader, request.methodHeader, request.method, request.meta]);
  if (servedEnvelopes.has(key)) return true;
  const route = classify();
  if (route.kind !== 'modern' || route.messageKind !== 'request' || !MODERN_REVISIONS.includes(route.classification.revision ?? '')) return false;
  if (key.length <= ENVELOPE_KEY_MAX) {
    if (servedEnvelopes.size >= SERVED_ENVELOPES_MAX) servedEnvelopes.clear();
    servedEnvelopes.add(key);
  }
  return true;
}

/** What a 2026-07-28 result carries besides the board's answer, as JSON members: resultType and the server's identity. */
export function modernResultFields(serverInfo: { name: string; version: string }): string {
  return `"resultType":"complete","_meta":${JSON.stringify({ [SERVER_INFO_META_KEY]: serverInfo })}`;
}

/**
 * The JSON-RPC answer to a plain tools/call, as the SDK's server would write it for that revision, as JSON text
 * (`modernFields`: modernResultFields of the server, made once). A
 * result's structuredContent is the object its text content is the JSON of, so that text is written in as it is
 * instead of serializing the tool's output a second time.
 */
export function plainCallAnswer(call: PlainRequest & { method: 'tools/call' }, result: CallToolResult, modernFields: string): string {
  const modern = call.era === 'modern' ? `,${modernFields}` : '';
  const text = (result.content[0] as { text?: unknown } | undefined)?.text;
  const id = JSON.stringify(call.id);
  if (result.isError || typeof text !== 'string' || result.structuredContent === undefined) {
    const body = JSON.stringify(result);
    return `{"result":${modern ? `${body.slice(0, -1)}${modern}}` : body},"jsonrpc":"2.0","id":${id}}`;
  }
  return `{"result":{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}${modern}},"jsonrpc":"2.0","id":${id}}`;
}

/** The JSON-RPC answer to a plain 2026-07-28 tools/list or server/discover: `result` as the SDK's server would stamp it. */
export function plainResultAnswer(request: PlainRequest, result: Record<string, unknown>, modernFields: string): string {
  const body = JSON.stringify(result);
  return `{"result":${body.length > 2 ? `${body.slice(0, -1)},` : '{'}${modernFields}},"jsonrpc":"2.0","id":${JSON.stringify(request.id)}}`;
}
