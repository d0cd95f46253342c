// Input the faces must refuse alike and cleanly: ill-formed Unicode, prototype keys, broken forms, over-limit bodies.
import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listedTools } from 'roundtable-shared';
import { api, mcpCallRaw, mcpRaw, resultJson, startBoard, type TestBoard } from '../helpers/board.js';
import { body as bridgeBody, bridgeEnv, startBridge } from '../helpers/bridge.js';
import { DbReader } from '../helpers/db-snapshot.js';

let board: TestBoard;
let db: DbReader;
beforeAll(async () => {
  board = await startBoard();
  // A task in every tool's reach, so a refusal is the input's doing and not a missing task.
  expect((await api(board, 'lead', 'create_task', { title: 'existing' })).status).toBe(200);
  db = new DbReader(board.dbPath);
});
afterAll(async () => {
  db.close();
  await board.stop();
});

const LONE = '\ud800';

/** Every text argument of every tool, as a call that carries one lone surrogate in it; `field` is what the error must name. */
const SURROGATE_CALLS: Array<{ tool: string; field: string; args: Record<string, unknown>; names?: RegExp }> = [
  { tool: 'create_task', field: 'title', args: { title: `a${LONE}b` } },
  { tool: 'create_task', field: 'description', args: { title: 't', description: `${LONE}` } },
  { tool: 'create_task', field: 'required_skills', args: { title: 't', required_skills: [`py${LONE}`] }, names: /each skill/ },
  { tool: 'create_task', field: 'assignee', args: { title: 't', assignee: `w1${LONE}` } },
  { tool: 'list_tasks', field: 'status', args: { status: `open${LONE}` } },
  { tool: 'list_tasks', field: 'assignee', args: { assignee: LONE } },
  { tool: 'list_tasks', field: 'cursor', args: { cursor: `x${LONE}` } },
  { tool: 'search', field: 'query', args: { query: `a${LONE}` } },
  { tool: 'search', field: 'in', args: { query: 'a', in: [`room${LONE}`] } },
  { tool: 'search', field: 'cursor', args: { query: 'a', cursor: `x${LONE}` } },
  { tool: 'post_message', field: 'text', args: { task_id: 1, kind: 'note', text: `\udc00 trailing half` } },
  { tool: 'post_message', field: 'kind', args: { task_id: 1, kind: `note${LONE}`, text: 'ok' } },
  { tool: 'submit_result', field: 'result', args: { task_id: 1, result: `done${LONE}` } },
  { tool: 'review_task', field: 'note', args: { task_id: 1, verdict: 'reject', note: LONE } },
  { tool: 'review_task', field: 'verdict', args: { task_id: 1, verdict: `reject${LONE}` } },
  { tool: 'cancel_task', field: 'reason', args: { task_id: 1, reason: `why${LONE}` } },
  { tool: 'release_task', field: 'note', args: { task_id: 1, note: `crashed${LONE}` } },
  { tool: 'post', field: 'to', args: { to: `w1${LONE}`, text: 'hi' } },
  { tool: 'post', field: 'to', args: { to: ['w1', `w2${LONE}`], text: 'hi' } },
  { tool: 'post', field: 'text', args: { to: 'all', text: `hi ${LONE}` } },
  { tool: 'wait_for_activity', field: 'for', args: { for: [`tasks${LONE}`], timeout_s: 0 } },
  { tool: 'wait_for_activity', field: 'since', args: { since: `x${LONE}`, timeout_s: 0 } },
  { tool: 'create_task', field: 'priority', args: { title: 't', priority: `high${LONE}` } },
  { tool: 'list_tasks', field: 'order', args: { order: `priority${LONE}` } },
  { tool: 'update_task', field: 'title', args: { task_id: 1, title: `a${LONE}b` } },
  { tool: 'update_task', field: 'description', args: { task_id: 1, description: LONE } },
  { tool: 'update_task', field: 'required_skills', args: { task_id: 1, required_skills: [`py${LONE}`] }, names: /each skill/ },
  { tool: 'update_task', field: 'priority', args: { task_id: 1, priority: `low${LONE}` } },
  { tool: 'update_task', field: 'assignee', args: { task_id: 1, assignee: `w1${LONE}` } },
  { tool: 'reserve_paths', field: 'paths', args: { task_id: 1, paths: ['ok.ts', `src/${LONE}.ts`] } },
  { tool: 'reserve_paths', field: 'reason', args: { task_id: 1, paths: ['ok.ts'], reason: `why${LONE}` } },
  { tool: 'reserve_paths', field: 'scope', args: { task_id: 1, paths: ['ok.ts'], scope: `repo${LONE}` } },
  { tool: 'release_paths', field: 'paths', args: { task_id: 1, paths: [`src/${LONE}`] } },
  { tool: 'release_paths', field: 'scope', args: { task_id: 1, scope: LONE } },
  { tool: 'list_reservations', field: 'scope', args: { scope: `repo${LONE}` } },
  { tool: 'list_reservations', field: 'path', args: { path: `src/${LONE}` } },
  { tool: 'list_reservations', field: 'cursor', args: { cursor: `x${LONE}` } },
  { tool: 'get_task', field: 'order', args: { task_id: 1, order: `oldest_first${LONE}` } },
  { tool: 'get_task', field: 'messages_cursor', args: { task_id: 1, messages_cursor: `x${LONE}` } },
  { tool: 'get_task', field: 'history_cursor', args: { task_id: 1, history_cursor: `x${LONE}` } },
  { tool: 'check_paths', field: 'paths', args: { paths: [`a${LONE}.ts`] } },
  { tool: 'check_paths', field: 'scope', args: { paths: ['a.ts'], scope: `repo${LONE}` } },
];

/** The string-valued arguments each tool lists (directly, in a list, or in a union). */
function stringArguments(): string[] {
  const found: string[] = [];
  const hasString = (node: unknown): boolean => {
    if (!node || typeof node !== 'object') return false;
    const schema = node as Record<string, unknown>;
    if (schema['type'] === 'string') return true;
    return ['items', 'anyOf', 'oneOf'].some((key) => {
      const inner = schema[key];
      return Array.isArray(inner) ? inner.some(hasString) : hasString(inner);
    });
  };
  for (const tool of listedTools()) {
    for (const [name, schema] of Object.entries((tool.inputSchema['properties'] ?? {}) as Record<string, unknown>)) {
      if (hasString(schema)) found.push(`${tool.name}.${name}`);
    }
  }
  return found.sort();
}

describe('ill-formed Unicode', () => {
  it('the table below covers every text argument of every tool', () => {
    const covered = [...new Set(SURROGATE_CALLS.map((c) => `${c.tool}.${c.field}`))].sort();
    expect(covered).toEqual(stringArguments());
  });

  it.each(SURROGATE_CALLS)('$tool refuses a lone surrogate in $field on both faces, alike, and changes nothing', async ({ tool, field, args, names }) => {
    const before = db.snapshot();
    const viaApi = await api(board, 'lead', tool, args);
    expect(viaApi.status).toBe(400);
    expect(viaApi.body.error?.code).toBe('invalid_input');
    expect(viaApi.body.error?.message).toMatch(names ?? new RegExp(`\\b${field}\\b`));
    if (!['status', 'kind', 'verdict', 'for', 'priority', 'order', 'in'].includes(field)) expect(viaApi.body.error?.message).toContain('lone UTF-16 surrogate');
    const viaMcp = await mcpCallRaw(board, 'lead', tool, args);
    expect(viaMcp.status).toBe(200);
    expect(viaMcp.body.result.isError).toBe(true);
    expect(resultJson(viaMcp.body.result)).toEqual(viaApi.body);
    expect(db.snapshot()).toEqual(before);
  });

  it('a surrogate pair (a character outside the BMP) is text and is kept as sent', async () => {
    const title = 'emoji \ud83d\ude00 ok';
    const created = await api(board, 'lead', 'create_task', { title });
    expect(created.status).toBe(200);
    expect(created.body.task.title).toBe(title);
  });

  it('invalid UTF-8 bytes in the body are read as U+FFFD, which is well-formed, and kept as such', async () => {
    const body = Buffer.concat([Buffer.from('{"title":"bad '), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]);
    const response = await fetch(`${board.url}/api/v1/tools/create_task`, {
      method: 'POST',
      headers: { authorization: `Bearer ${board.tokens['lead']}`, 'content-type': 'application/json' },
      body,
    });
    expect(response.status).toBe(200);
    const title = ((await response.json()) as { task: { title: string } }).task.title;
    expect(title.startsWith('bad ')).toBe(true);
    expect(title.slice(4)).toMatch(/^\ufffd+$/);
  });
});

describe('prototype keys', () => {
  const calls: Array<[string, string]> = [];
  for (const key of ['__proto__', 'constructor', 'prototype']) {
    for (const value of ['{"title":"from the prototype"}', 'null', '1', '{}']) calls.push([key, value]);
  }

  it.each(calls)('an argument "%s": %s is refused as unknown on both faces, alike', async (key, value) => {
    // Written as JSON text: an object literal { __proto__: ... } would set the prototype instead of a key.
    const args = JSON.parse(`{"title":"t",${JSON.stringify(key)}:${value}}`) as Record<string, unknown>;
    const before = db.snapshot();
    const viaApi = await api(board, 'lead', 'create_task', args);
    expect(viaApi.status).toBe(400);
    expect(viaApi.body.error?.code).toBe('invalid_input');
    expect(viaApi.body.error?.message).toContain(`unknown argument "${key}"`);
    const viaMcp = await mcpCallRaw(board, 'lead', 'create_task', args);
    expect(viaMcp.body.result?.isError).toBe(true);
    expect(resultJson(viaMcp.body.result)).toEqual(viaApi.body);
    expect(db.snapshot()).toEqual(before);
  });

  it('the bridge, an MCP server built from the same definitions, passes "__proto__" on and gets the same refusal', async () => {
    const bridge = await startBridge({ args: ['--url', board.url], env: bridgeEnv({ ROUNDTABLE_TOKEN: board.tokens['lead']! }) });
    try {
      const args = JSON.parse('{"title":"t","__proto__":{"title":"x"}}') as Record<string, unknown>;
      const before = db.snapshot();
      const result = await bridge.client.callTool({ name: 'create_task', arguments: args });
      expect(result.isError).toBe(true);
      expect(bridgeBody(result)).toEqual((await api(board, 'lead', 'create_task', args)).body);
      expect(db.snapshot()).toEqual(before);
    } finally {
      await bridge.close();
    }
  });

  it('a "__proto__" argument cannot lend a tool its fields over MCP', async () => {
    const args = JSON.parse('{"__proto__":{"title":"smuggled"}}') as Record<string, unknown>;
    const viaMcp = await mcpCallRaw(board, 'lead', 'create_task', args);
    const body = resultJson(viaMcp.body.result);
    expect(body.error.code).toBe('invalid_input');
    expect(body.error.message).toContain('title: required');
  });
});

describe('malformed MCP requests', () => {
  it.each([
    ['tools/call', { name: 'whoami', arguments: [] }],
    ['tools/call', { name: 5 }],
    ['tools/call', undefined],
    ['tools/list', { cursor: 5 }],
    ['initialize', { protocolVersion: 5 }],
  ])('%s with params %j is invalid params (-32602), not an internal error', async (method, params) => {
    const answer = await mcpRaw(board, 'lead', { jsonrpc: '2.0', id: 7, method, ...(params !== undefined && { params }) });
    expect(answer.body.error?.code).toBe(-32602);
    expect(answer.body.id).toBe(7);
  });
});

describe('the web sign-in', () => {
  it.each([
    ['a multipart body without its boundary', 'multipart/form-data', 'token=abc'],
    ['a multipart body cut short', 'multipart/form-data; boundary=XYZ', '--XYZ\r\nContent-Disposition: form-data; name="token"\r\n\r\nabc'],
  ])('%s is 400 invalid_input, with no stack in the log', async (_label, contentType, body) => {
    const response = await fetch(`${board.url}/session`, { method: 'POST', headers: { 'content-type': contentType }, body });
    expect(response.status).toBe(400);
    const answer = (await response.json()) as { error: { code: string; message: string } };
    expect(answer.error.code).toBe('invalid_input');
    expect(answer.error.message).toContain('token');
    const { stdout, stderr } = board.output();
    expect(stdout + stderr).not.toContain('FormData');
    expect(stdout + stderr).not.toMatch(/\n\s+at /);
  });
});

describe('an over-limit body', () => {
  /** One request on a keep-alive agent; resolves with the status and the Connection header. */
  function send(agent: Agent, body: string | undefined, chunks = 1) {
    return new Promise<{ status: number; connection: string | undefined; text: string }>((resolve, reject) => {
      const headers: Record<string, string | number> = { authorization: `Bearer ${board.tokens['lead']}`, 'content-type': 'application/json' };
      if (body !== undefined && chunks === 1) headers['content-length'] = Buffer.byteLength(body);
      const req = request({ host: '127.0.0.1', port: board.port, method: 'POST', path: '/api/v1/tools/whoami', agent, headers }, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, text }));
      });
      req.on('error', reject);
      for (let i = 1; i < chunks; i++) req.write(body);
      req.end(body);
    });
  }

  it.each([
    ['with Content-Length', 1],
    ['chunked', 3],
  ])('%s says Connection: close, and the keep-alive client\'s next request works', async (_label, chunks) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const size = chunks === 1 ? 4200 * 1024 : 1500 * 1024;
      const refused = await send(agent, JSON.stringify({ x: 'a'.repeat(size) }), chunks);
      expect(refused.status).toBe(413);
      expect(JSON.parse(refused.text).error.code).toBe('invalid_input');
      expect(refused.connection).toBe('close');
      const next = await send(agent, '{}');
      expect(next.status).toBe(200);
      expect(JSON.parse(next.text).name).toBe('lead');
    } finally {
      agent.destroy();
    }
  });
});
