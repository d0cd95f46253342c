// Both MCP revisions on both faces: the 2026-07-28 one (server/discover, the per-request `_meta` envelope) and the 2025
// ones (initialize), on /mcp and on the bridge's stdio, through the v2 SDK client and a hand-rolled 2025 client; the
// role flow on each, the same error contract on each and on the JSON API, and the spec's refusals of a bad envelope.
import { SERVER_INSTRUCTIONS, TOOLS } from 'roundtable-shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, mcpClient, resultJson, startBoard, type McpEra, type TestBoard } from '../helpers/board.js';
import { bridgeEnv, startBridge } from '../helpers/bridge.js';
import { httpLegacySession, stdioJsonRpc, stdioLegacySession } from '../helpers/jsonrpc-client.js';
import { describeEachStore } from '../helpers/stores.js';

const MODERN = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'roundtable-test', version: '0.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** One agent's way of calling tools through one face and revision. */
interface Face {
  call(tool: string, args: Record<string, unknown>): Promise<{ isError: boolean; body: any }>;
  close(): Promise<void>;
}

type FaceMaker = (board: TestBoard, agent: string) => Promise<Face>;

function sdkFace(client: { callTool: (p: { name: string; arguments: Record<string, unknown> }) => Promise<any>; close(): Promise<void> }, stop: () => Promise<void>): Face {
  return {
    async call(tool, args) {
      const result = await client.callTool({ name: tool, arguments: args });
      const body = resultJson(result);
      // A result's JSON text and its structuredContent are the same object; an error carries no structuredContent.
      if (!result.isError) expect(result.structuredContent).toEqual(body);
      else expect(result.structuredContent).toBeUndefined();
      return { isError: result.isError === true, body };
    },
    close: stop,
  };
}

function handRolledFace(session: { callTool(name: string, args: Record<string, unknown>): Promise<any>; close(): Promise<void> }): Face {
  return {
    async call(tool, args) {
      const result = await session.callTool(tool, args);
      return { isError: result.isError === true, body: JSON.parse(result.content[0].text) };
    },
    close: () => session.close(),
  };
}

const viaMcp =
  (era: McpEra): FaceMaker =>
  async (board, agent) => {
    const client = await mcpClient(board, agent, { era });
    expect(client.getProtocolEra()).toBe(era);
    return sdkFace(client, () => client.close());
  };

const viaBridge =
  (era: McpEra): FaceMaker =>
  async (board, agent) => {
    const bridge = await startBridge({ args: ['--url', board.url], env: bridgeEnv({ ROUNDTABLE_TOKEN: board.tokens[agent]! }), era });
    expect(bridge.client.getProtocolEra()).toBe(era);
    return sdkFace(bridge.client, () => bridge.close());
  };

const FACES: Array<[string, FaceMaker]> = [
  ['/mcp, v2 SDK client on 2026-07-28', viaMcp('modern')],
  ['/mcp, v2 SDK client opening with initialize (2025-11-25)', viaMcp('legacy')],
  [
    '/mcp, a hand-rolled 2025-06-18 client',
    async (board, agent) => {
      const session = await httpLegacySession(board, agent, '2025-06-18');
      expect(session.initialized.protocolVersion).toBe('2025-06-18');
      return handRolledFace(session);
    },
  ],
  ['bridge, v2 SDK client on 2026-07-28', viaBridge('modern')],
  ['bridge, v2 SDK client opening with initialize (2025-11-25)', viaBridge('legacy')],
  [
    'bridge, a hand-rolled 2025-06-18 client over stdio',
    async (board, agent) => {
      const session = await stdioLegacySession({ args: ['--url', board.url], env: bridgeEnv({ ROUNDTABLE_TOKEN: board.tokens[agent]! }) }, '2025-06-18');
      expect(session.initialized.protocolVersion).toBe('2025-06-18');
      return handRolledFace(session);
    },
  ],
];

describeEachStore((store) => {
  let board: TestBoard;
  beforeAll(async () => {
    board = await startBoard({ store });
  });
  afterAll(async () => {
    await board?.stop();
  });

  it.each(FACES)('%s: create, claim, submit, review; refusals are the JSON API\'s', async (_label, open) => {
    const lead = await open(board, 'lead');
    const worker = await open(board, 'w1');
    try {
      const created = await lead.call('create_task', { title: 'one revision, one face', required_skills: ['python'] });
      expect(created.isError).toBe(false);
      const id = created.body.task.id as number;
      const claimed = await worker.call('claim_task', { task_id: id });
      expect(claimed.isError).toBe(false);
      const claimId = claimed.body.task.claim_id as number;
      expect(claimId).toBeGreaterThan(0);
      expect((await worker.call('submit_result', { task_id: id, claim_id: claimId, result: 'done it' })).body.task.status).toBe('submitted');
      expect((await lead.call('review_task', { task_id: id, verdict: 'approve' })).body.task.status).toBe('done');
      const history = (await api(board, 'lead', 'get_task', { task_id: id, order: 'oldest_first' })).body.history.map((h: { action: string }) => h.action);
      expect(history).toEqual(['created', 'claimed', 'submitted', 'approved']);

      // The error contract: isError results whose JSON text is the JSON API's error body, code for code.
      const refusals: Array<[Face, string, string, Record<string, unknown>, string]> = [
        [worker, 'w1', 'cancel_task', { task_id: id }, 'forbidden'],
        [worker, 'w1', 'claim_task', { task_id: 987654 }, 'not_found'],
        [worker, 'w1', 'submit_result', { task_id: id, result: 'again' }, 'conflict'],
        [lead, 'lead', 'create_task', { title: '' }, 'invalid_input'],
        [worker, 'w1', 'no_such_tool', {}, 'not_found'],
      ];
      for (const [face, agent, tool, args, code] of refusals) {
        const answer = await face.call(tool, args);
        expect(answer.isError, tool).toBe(true);
        expect(answer.body.error.code, tool).toBe(code);
        expect(answer.body, tool).toEqual((await api(board, agent, tool, args)).body);
      }
    } finally {
      await lead.close();
      await worker.close();
    }
  });
});

/** One raw POST to /mcp with the headers a 2026-07-28 client sends (each can be overridden or removed with null). */
async function modernPost(board: TestBoard, message: Record<string, any>, headers: Record<string, string | null> = {}) {
  const base: Record<string, string> = {
    authorization: `Bearer ${board.tokens['lead']}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': message['method'],
    ...(typeof message['params']?.name === 'string' && { 'mcp-name': message['params'].name }),
  };
  for (const [name, value] of Object.entries(headers)) {
    if (value === null) delete base[name];
    else base[name] = value;
  }
  const response = await fetch(`${board.url}/mcp`, { method: 'POST', headers: base, body: JSON.stringify(message) });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) };
}

describe('the 2026-07-28 envelope on /mcp', () => {
  let board: TestBoard;
  beforeAll(async () => {
    board = await startBoard();
  });
  afterAll(async () => {
    await board?.stop();
  });
  const taskCount = async () => (await api(board, 'lead', 'list_tasks', { limit: 100 })).body.tasks.length;

  it('server/discover names 2026-07-28, the capabilities and the instructions, cached privately', async () => {
    const answer = await modernPost(board, { jsonrpc: '2.0', id: 'd', method: 'server/discover', params: { _meta: ENVELOPE } });
    expect(answer.status).toBe(200);
    expect(answer.body.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: [MODERN],
      capabilities: { tools: {}, prompts: {} },
      instructions: SERVER_INSTRUCTIONS,
      ttlMs: 300_000,
      cacheScope: 'private',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'roundtable' } },
    });
  });

  it('tools/list and prompts/list carry ttlMs and cacheScope private; the tools come in the order shared/ defines them', async () => {
    for (const agent of ['lead', 'w1']) {
      const client = await mcpClient(board, agent);
      try {
        const first = await client.listTools(undefined, { cacheMode: 'bypass' });
        const second = await client.listTools(undefined, { cacheMode: 'bypass' });
        expect(first).toMatchObject({ ttlMs: 300_000, cacheScope: 'private' });
        expect(second.tools).toEqual(first.tools);
        const order = TOOLS.map((t) => t.name);
        expect(first.tools.map((t) => t.name)).toEqual(order.filter((name) => first.tools.some((t) => t.name === name)));
        expect(await client.listPrompts(undefined, { cacheMode: 'bypass' })).toMatchObject({ ttlMs: 300_000, cacheScope: 'private' });
      } finally {
        await client.close();
      }
    }
    // A 2025 client gets no cache fields: its revision has none.
    const legacy = await mcpClient(board, 'w1', { era: 'legacy' });
    try {
      const list = await legacy.listTools();
      expect(list.ttlMs).toBeUndefined();
      expect(list.cacheScope).toBeUndefined();
    } finally {
      await legacy.close();
    }
  });

  it.each(['2099-01-01', '2025-11-25'])('an envelope naming %s, a revision served per request nowhere, gets 400 and -32022 listing 2026-07-28; nothing runs', async (revision) => {
    const before = await taskCount();
    for (const message of [
      { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} },
      { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'create_task', arguments: { title: 'must not exist' } } },
    ]) {
      const sent = { ...message, params: { ...message.params, _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': revision } } };
      const answer = await modernPost(board, sent, { 'mcp-protocol-version': revision });
      expect(answer.status, message.method).toBe(400);
      expect(answer.body, message.method).toMatchObject({ jsonrpc: '2.0', id: message.id, error: { code: -32022, data: { supported: [MODERN], requested: revision } } });
    }
    expect(await taskCount()).toBe(before);
  });

  it('an envelope that disagrees with MCP-Protocol-Version, or a tools/call whose Mcp-Name is missing or names another tool, gets 400 and -32020; nothing runs', async () => {
    const before = await taskCount();
    const call = { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'create_task', arguments: { title: 'must not exist' }, _meta: ENVELOPE } };
    const cases: Array<[string, Record<string, any>, Record<string, string | null>]> = [
      ['header names 2025-11-25', call, { 'mcp-protocol-version': '2025-11-25' }],
      ['header names another 2026 revision', call, { 'mcp-protocol-version': '2026-12-01' }],
      ['no MCP-Protocol-Version', call, { 'mcp-protocol-version': null }],
      ['no Mcp-Name', call, { 'mcp-name': null }],
      ['Mcp-Name names another tool', call, { 'mcp-name': 'whoami' }],
      ['Mcp-Method names another method', call, { 'mcp-method': 'tools/list' }],
      ['tools/list, header names 2025-11-25', { jsonrpc: '2.0', id: 10, method: 'tools/list', params: { _meta: ENVELOPE } }, { 'mcp-protocol-version': '2025-11-25' }],
    ];
    for (const [label, message, headers] of cases) {
      const answer = await modernPost(board, message, headers);
      expect(answer.status, label).toBe(400);
      expect(answer.body, label).toMatchObject({ jsonrpc: '2.0', id: message['id'], error: { code: -32020 } });
    }
    expect(await taskCount()).toBe(before);
  });

  it('a modern header without the envelope, or an envelope without its required keys, gets 400 and -32602', async () => {
    const noEnvelope = await modernPost(board, { jsonrpc: '2.0', id: 11, method: 'tools/list', params: {} });
    expect(noEnvelope.status).toBe(400);
    expect(noEnvelope.body.error.code).toBe(-32602);
    const { ['io.modelcontextprotocol/clientCapabilities']: _dropped, ...partial } = ENVELOPE;
    const missing = await modernPost(board, { jsonrpc: '2.0', id: 12, method: 'tools/list', params: { _meta: partial } });
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe(-32602);
  });

  it('a plain server/discover and tools/list, answered without the SDK, are the answers the SDK gives', async () => {
    for (const method of ['server/discover', 'tools/list']) {
      // A progressToken in _meta is not the plainest shape: that request goes through the SDK's server.
      const plain = await modernPost(board, { jsonrpc: '2.0', id: 3, method, params: { _meta: ENVELOPE } });
      const viaSdk = await modernPost(board, { jsonrpc: '2.0', id: 3, method, params: { _meta: { ...ENVELOPE, progressToken: 'p' } } });
      expect(plain.status, method).toBe(200);
      expect(plain.body, method).toEqual(viaSdk.body);
      expect(plain.body.result.resultType, method).toBe('complete');
    }
  });

  it('a plain tools/call, answered without the SDK, is the answer the SDK gives (2026-07-28 and 2025)', async () => {
    const id = (await api(board, 'lead', 'create_task', { title: 'read twice' })).body.task.id as number;
    const calls: Array<[string, Record<string, unknown>]> = [
      ['get_task', { task_id: id }],
      ['claim_task', { task_id: 987654 }],
    ];
    for (const [name, args] of calls) {
      // A progressToken in _meta is not the plainest shape: that call goes through the SDK's server.
      const plain = await modernPost(board, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args, _meta: ENVELOPE } });
      const viaSdk = await modernPost(board, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args, _meta: { ...ENVELOPE, progressToken: 'p' } } });
      expect(plain.status, name).toBe(200);
      expect(plain.body, name).toEqual(viaSdk.body);
      expect(plain.body.result.resultType).toBe('complete');

      const legacyHeaders = { 'mcp-protocol-version': '2025-11-25', 'mcp-method': null, 'mcp-name': null };
      const legacyPlain = await modernPost(board, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args } }, legacyHeaders);
      const legacySdk = await modernPost(board, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args, _meta: { progressToken: 'p' } } }, legacyHeaders);
      expect(legacyPlain.status, name).toBe(200);
      expect(legacyPlain.body, name).toEqual(legacySdk.body);
      expect(legacyPlain.body.result.resultType).toBeUndefined();
    }
  });
});

describe('the 2026-07-28 envelope on the bridge', () => {
  let board: TestBoard;
  beforeAll(async () => {
    board = await startBoard();
  });
  afterAll(async () => {
    await board?.stop();
  });

  it('answers server/discover, and refuses an envelope naming a revision it does not serve with -32022', async () => {
    const bridge = stdioJsonRpc({ args: ['--url', board.url], env: bridgeEnv({ ROUNDTABLE_TOKEN: board.tokens['w1']! }) });
    const ask = (method: string, meta: Record<string, unknown>) => bridge.request(method, { _meta: meta }) as Promise<any>;
    try {
      const refused = await ask('tools/list', { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' });
      expect(refused.error).toMatchObject({ code: -32022, data: { supported: [MODERN], requested: '2099-01-01' } });
      const discovered = await ask('server/discover', ENVELOPE);
      expect(discovered.result).toMatchObject({ supportedVersions: [MODERN], capabilities: { tools: { listChanged: true }, prompts: {} }, instructions: SERVER_INSTRUCTIONS, ttlMs: 300_000, cacheScope: 'private' });
      const listed = await ask('tools/list', ENVELOPE);
      expect(listed.result.tools.map((t: { name: string }) => t.name)).toEqual(TOOLS.map((t) => t.name));
      // The role is not known yet: this list is provisional, and no client may keep it.
      expect(listed.result).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
    } finally {
      await bridge.close();
    }
  });
});
