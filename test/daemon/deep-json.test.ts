// JSON nested past LIMITS.jsonDepth is refused before anything walks it (issue 31, item 9): a clientCapabilities
// object 5,000 deep got HTTP 500 (a stack overflow while the 2026 envelope was serialised). Raw HTTP on /mcp, for the
// 2026-07-28 envelope and for 2025's initialize, and on the JSON API and the page's actions. Reads no store: one is enough.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from 'roundtable-shared';
import { api, startBoard, type AgentSpec, type TestBoard } from '../helpers/board.js';
import { pageAction, signInPage } from '../helpers/page-session.js';

const AGENTS: AgentSpec[] = [
  { name: 'lead', role: 'leader' },
  { name: 'alice', role: 'owner' },
];
const MODERN = '2026-07-28';

let board: TestBoard;
beforeAll(async () => {
  board = await startBoard({ agents: AGENTS });
});
afterAll(async () => {
  await board.stop();
});

/** An object nested `depth` levels: {"a":{"a":...{}}}, written as text so nothing here walks it either. */
function nested(depth: number): string {
  return `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;
}

async function postMcp(body: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const response = await fetch(`${board.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${board.tokens['lead']}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body,
  });
  return { status: response.status, body: JSON.parse(await response.text()) };
}

const modernHeaders = (method: string) => ({ 'mcp-protocol-version': MODERN, 'mcp-method': method });
const modern = (id: number, method: string, capabilities: string) =>
  `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"${MODERN}","io.modelcontextprotocol/clientInfo":{"name":"deep","version":"1"},"io.modelcontextprotocol/clientCapabilities":${capabilities}}}}`;
const initialize = (id: number, capabilities: string) =>
  `{"jsonrpc":"2.0","id":${id},"method":"initialize","params":{"protocolVersion":"2025-11-25","clientInfo":{"name":"deep","version":"1"},"capabilities":${capabilities}}}`;

const DEPTH_MESSAGE = `the JSON is nested more than ${LIMITS.jsonDepth} levels deep`;

describe(`JSON nested deeper than ${LIMITS.jsonDepth} levels`, () => {
  it('on /mcp, a 2026-07-28 envelope with clientCapabilities 5,000 deep is refused with -32602 (in a 200, as every invalid-params answer), its id kept; a shallow one is served', async () => {
    for (const method of ['server/discover', 'tools/list']) {
      const refused = await postMcp(modern(7, method, nested(5_000)), modernHeaders(method));
      expect(refused.status, method).toBe(200);
      expect(refused.body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32602 } });
      expect(refused.body.error.message).toContain(DEPTH_MESSAGE);
    }
    const served = await postMcp(modern(8, 'tools/list', nested(10)), modernHeaders('tools/list'));
    expect(served.status).toBe(200);
    expect(served.body.result.tools.length).toBeGreaterThan(0);
  });

  it("on /mcp, 2025's initialize with capabilities 5,000 deep, and one just past the limit, are refused with -32602", async () => {
    for (const depth of [5_000, LIMITS.jsonDepth + 1]) {
      const refused = await postMcp(initialize(3, nested(depth)), { 'mcp-protocol-version': '2025-11-25' });
      expect(refused.status, String(depth)).toBe(200);
      expect(refused.body).toMatchObject({ jsonrpc: '2.0', id: 3, error: { code: -32602 } });
      expect(refused.body.error.message).toContain(DEPTH_MESSAGE);
    }
    // The whole message may be LIMITS.jsonDepth deep: capabilities sit two levels down.
    const served = await postMcp(initialize(4, nested(LIMITS.jsonDepth - 2)), { 'mcp-protocol-version': '2025-11-25' });
    expect(served.status).toBe(200);
    expect(served.body.result.serverInfo.name).toBe('roundtable');
  });

  it('on the JSON API and the page actions, invalid_input naming the limit', async () => {
    const response = await fetch(`${board.url}/api/v1/tools/create_task`, {
      method: 'POST',
      headers: { authorization: `Bearer ${board.tokens['lead']}`, 'content-type': 'application/json' },
      body: `{"title":"deep","description":${nested(5_000)}}`,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: { code: 'invalid_input', message: expect.stringContaining(DEPTH_MESSAGE) } });
    const owner = await signInPage(board, 'alice');
    const viaPage = await pageAction(board, owner, 'create_task', undefined, { body: `{"title":"deep","description":${nested(5_000)}}` });
    expect(viaPage.status).toBe(400);
    expect(viaPage.body.error.message).toContain(DEPTH_MESSAGE);
    expect((await api(board, 'lead', 'list_tasks', {})).body.tasks).toEqual([]);
  });
});
