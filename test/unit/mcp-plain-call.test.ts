// Which requests /mcp answers itself (daemon/src/mcp/plain-call.ts) and which go to the SDK: the plain ones of
// test/daemon/mcp-revisions.test.ts are answered here, their not-quite-plain twins (which that test compares them
// with) are not, and nothing the SDK would refuse is answered here.
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { plainRequest } from '../../daemon/src/mcp/plain-call.js';

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 't', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const MODERN_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28' };
const LEGACY_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

function plain(body: Record<string, any>, headers: Record<string, string>) {
  const all: Record<string, string> = { ...headers };
  if (headers === MODERN_HEADERS) {
    all['mcp-method'] = body['method'];
    if (typeof body['params']?.name === 'string') all['mcp-name'] = body['params'].name;
  }
  const header = (name: string) => all[name];
  return plainRequest(body, header, (message) =>
    classifyInboundRequest({
      httpMethod: 'POST',
      ...(all['mcp-protocol-version'] && { protocolVersionHeader: all['mcp-protocol-version'] }),
      ...(all['mcp-method'] && { mcpMethodHeader: all['mcp-method'] }),
      ...(all['mcp-name'] && { mcpNameHeader: all['mcp-name'] }),
      body: message,
    }),
  );
}

const call = (params: Record<string, unknown>) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params });

describe('plain requests', () => {
  it('a plain tools/call on either revision, and a plain server/discover or tools/list on 2026-07-28, are answered here', () => {
    expect(plain(call({ name: 'get_task', arguments: { task_id: 1 }, _meta: ENVELOPE }), MODERN_HEADERS)).toEqual({
      method: 'tools/call',
      id: 1,
      params: { name: 'get_task', arguments: { task_id: 1 } },
      era: 'modern',
    });
    expect(plain(call({ name: 'get_task', arguments: { task_id: 1 } }), LEGACY_HEADERS)).toMatchObject({ method: 'tools/call', era: 'legacy' });
    for (const method of ['server/discover', 'tools/list']) {
      expect(plain({ jsonrpc: '2.0', id: 'x', method, params: { _meta: ENVELOPE } }, MODERN_HEADERS)).toEqual({ method, id: 'x', era: 'modern' });
    }
  });

  it('their twins with a progressToken, and anything the SDK would refuse or has more to do with, go to the SDK', () => {
    const modern = [
      call({ name: 'get_task', arguments: {}, _meta: { ...ENVELOPE, progressToken: 'p' } }),
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { ...ENVELOPE, progressToken: 'p' } } },
      { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: { ...ENVELOPE, progressToken: 'p' } } },
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 'c', _meta: ENVELOPE } },
      call({ name: 'get_task', arguments: {}, _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } }),
      call({ name: 'get_task', arguments: {}, _meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': 'none' } }),
      call({ name: 'get_task', arguments: [] as unknown as Record<string, unknown>, _meta: ENVELOPE }),
      { jsonrpc: '2.0', id: 1, method: 'prompts/list', params: { _meta: ENVELOPE } },
    ];
    for (const body of modern) expect(plain(body, MODERN_HEADERS), JSON.stringify(body)).toBeUndefined();
    const legacy = [
      call({ name: 'get_task', arguments: {}, _meta: { progressToken: 'p' } }),
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      { jsonrpc: '2.0', method: 'tools/call', params: { name: 'whoami' } },
    ];
    for (const body of legacy) expect(plain(body, LEGACY_HEADERS), JSON.stringify(body)).toBeUndefined();
    // Headers: a disagreeing revision or method, a missing or other Mcp-Name, a 2026 header without the envelope.
    const body = call({ name: 'get_task', arguments: {}, _meta: ENVELOPE });
    const header = (extra: Record<string, string | undefined>) => (name: string) => ({ ...MODERN_HEADERS, 'mcp-method': 'tools/call', 'mcp-name': 'get_task', ...extra })[name];
    const classify = (headers: (name: string) => string | undefined) => (message: unknown) =>
      classifyInboundRequest({ httpMethod: 'POST', protocolVersionHeader: headers('mcp-protocol-version') ?? '', ...(headers('mcp-method') && { mcpMethodHeader: headers('mcp-method')! }), body: message });
    for (const extra of [{ 'mcp-protocol-version': '2025-11-25' }, { 'mcp-method': 'tools/list' }, { 'mcp-name': undefined }, { 'mcp-name': 'whoami' }, { 'content-type': 'text/plain' }]) {
      const headers = header(extra);
      expect(plainRequest(body, headers, classify(headers)), JSON.stringify(extra)).toBeUndefined();
    }
    expect(plain(call({ name: 'get_task', arguments: {} }), MODERN_HEADERS)).toBeUndefined();
  });
});
