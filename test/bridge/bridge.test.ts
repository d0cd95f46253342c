// The stdio bridge end to end over real HTTPS with a test CA: the same tools as /mcp, the whole flow, errors,
// stdin close and signals.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildListedTools, TOOL_ACCESS, TOOLS } from 'roundtable-shared';
import { mcpClient, ROOT, startBoard, type McpEra, type TestBoard } from '../helpers/board.js';
import { body, BRIDGE_BIN, bridgeEnv, isAlive, startBridge, type BridgeSession } from '../helpers/bridge.js';
import { eventually, within } from '../helpers/eventually.js';
import { spawnTracked, stopProcess } from '../helpers/processes.js';
import { makeTestPki, tlsEnv } from '../helpers/tls.js';

let board: TestBoard;
const outputs: string[] = [];
const pki = makeTestPki();

beforeAll(async () => {
  board = await startBoard({
    env: tlsEnv(pki),
    agents: [
      { name: 'lead', role: 'leader' },
      { name: 'w1', role: 'worker', skills: ['python', 'sql'] },
      { name: 'w2', role: 'worker', skills: ['python'] },
      { name: 'w3', role: 'worker' },
      { name: 'narrow', role: 'worker', toolsets: ['tasks', 'presence'] },
    ],
  });
  expect(board.url).toMatch(/^https:/);
});
afterAll(async () => {
  await board.stop();
  // No token in anything the bridges printed.
  const all = outputs.join('\n');
  for (const token of Object.values(board.tokens)) expect(all).not.toContain(token);
});

async function bridgeFor(agent: string, extraArgs: string[] = [], env: Record<string, string> = {}, era: McpEra = 'modern'): Promise<BridgeSession> {
  return startBridge({ args: ['--url', board.url, '--ca', pki.caCert, ...extraArgs], env: bridgeEnv({ ROUNDTABLE_TOKEN: board.tokens[agent]!, ...env }), era });
}

/** A list without what the revision adds around it (2026-07-28: ttlMs, cacheScope, the server's identity in _meta). */
const toolsOf = (list: { tools: unknown[] }) => list.tools;

const names = (list: { tools: Array<{ name: string }> }) => list.tools.map((t) => t.name);

async function done(session: BridgeSession): Promise<void> {
  await session.close();
  outputs.push(session.stderr());
}

describe('tools/list', () => {
  it.each(['legacy', 'modern'] as const)('%s: lists every tool before it knows the role; after whoami, says the list changed and agrees with /mcp for the agent', async (era) => {
    const stateDir = mkdtempSync(join(tmpdir(), 'roundtable-bridge-state-'));
    const bridge = await bridgeFor('w1', [], { ROUNDTABLE_STATE_DIR: stateDir }, era);
    const direct = await mcpClient(board, 'w1', { caFile: pki.caCert, era });
    let changed = 0;
    bridge.client.setNotificationHandler('notifications/tools/list_changed', () => void changed++);
    // 2026-07-28 sends no notification unasked: a client hears of changes on the subscriptions/listen stream it opens.
    const subscription = era === 'modern' ? await bridge.client.listen({ toolsListChanged: true }) : undefined;
    try {
      expect(bridge.client.getProtocolEra()).toBe(era);
      const everything = await bridge.client.listTools();
      expect(names(everything)).toEqual(TOOLS.map((t) => t.name));
      // The bundle carries the list built at bundle time (scripts/bundle.mjs): it is the one the definitions give now.
      expect(everything.tools).toEqual(buildListedTools());
      // Until the role is known the list is provisional: a 2026-07-28 client is told not to keep it.
      if (era === 'modern') expect(everything).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
      const viaHttp = await direct.listTools();
      expect(names(viaHttp)).not.toContain('create_task');
      await bridge.client.callTool({ name: 'whoami', arguments: {} });
      await eventually('the bridge to send tools/list_changed', () => changed === 1);
      const known = await bridge.client.listTools();
      expect(toolsOf(known)).toEqual(toolsOf(viaHttp));
      if (era === 'modern') expect({ ttlMs: known.ttlMs, cacheScope: known.cacheScope }).toEqual({ ttlMs: viaHttp.ttlMs, cacheScope: viaHttp.cacheScope });
      expect(bridge.client.getInstructions()).toBe(direct.getInstructions());
      // Asked again, the same role changes nothing.
      await bridge.client.callTool({ name: 'whoami', arguments: {} });
      // The role is kept under the state directory: no token in it.
      const kept = readdirSync(join(stateDir, 'tool-lists')).map((f) => readFileSync(join(stateDir, 'tool-lists', f), 'utf8'));
      expect(kept).toEqual([JSON.stringify({ role: 'worker', toolsets: null })]);
    } finally {
      await subscription?.close();
      await done(bridge);
    }
    expect(changed).toBe(1);

    // The next start lists by the remembered role from its first tools/list, as /mcp does.
    const again = await bridgeFor('w1', [], { ROUNDTABLE_STATE_DIR: stateDir }, era);
    try {
      expect(toolsOf(await again.client.listTools())).toEqual(toolsOf(await direct.listTools()));
    } finally {
      await direct.close();
      await done(again);
    }
  });

  it("--toolsets narrows the list further, on top of the agent's own toolsets; a call outside the list is judged by the role", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'roundtable-bridge-state-'));
    const bridge = await bridgeFor('narrow', ['--toolsets', 'tasks,room'], { ROUNDTABLE_STATE_DIR: stateDir });
    const direct = await mcpClient(board, 'narrow', { caFile: pki.caCert });
    try {
      // Role unknown yet: every tool of the two toolsets, and whoami.
      const inSets = (name: string) => ['tasks', 'room', undefined].includes((TOOL_ACCESS as Record<string, { toolset?: string }>)[name]!.toolset);
      expect(names(await bridge.client.listTools())).toEqual(TOOLS.map((t) => t.name).filter(inSets));
      expect(body(await bridge.client.callTool({ name: 'whoami', arguments: {} })).toolsets).toEqual(['tasks', 'presence']);
      // agents.json says tasks and presence, the flag tasks and room: tasks remain, of a worker's.
      const mine = names(await bridge.client.listTools());
      expect(mine).toEqual(['whoami', 'list_tasks', 'get_task', 'search', 'claim_task', 'release_task', 'post_message', 'submit_result']);
      expect(names(await direct.listTools())).toEqual(['whoami', 'list_agents', ...mine.slice(1), 'members', 'wait_for_activity']);
      const read = await bridge.client.callTool({ name: 'members', arguments: {} });
      expect(read.isError).toBeFalsy();
    } finally {
      await direct.close();
      await done(bridge);
    }
  });

  it('refuses an unknown --toolsets name, naming the choices', async () => {
    const { execFile } = await import('node:child_process');
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(process.execPath, [BRIDGE_BIN, '--url', board.url, '--toolsets', 'tasks,chat'], { env: bridgeEnv({ ROUNDTABLE_TOKEN: 'x' }) }, (error, _out, stderr) =>
        resolve({ code: error ? (error as { code: number }).code : 0, stderr }),
      );
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--toolsets: "chat" is not a toolset; choose from tasks, room, presence, reservations');
  });
});

describe('a whole flow through two bridges', () => {
  it('leader creates, worker claims, posts, submits; leader reviews; errors come back as board errors', async () => {
    const leader = await bridgeFor('lead');
    const worker = await bridgeFor('w1');
    try {
      await leader.client.listTools();
      await worker.client.listTools();
      const created = await leader.client.callTool({ name: 'create_task', arguments: { title: 'through the bridge', required_skills: ['python'] } });
      expect(created.isError).toBeFalsy();
      const id = (created.structuredContent as { task: { id: number } }).task.id;
      const claimable = await worker.client.callTool({ name: 'list_tasks', arguments: { claimable_by_me: true } });
      expect(body(claimable).tasks.map((t: { id: number }) => t.id)).toContain(id);
      expect((await worker.client.callTool({ name: 'claim_task', arguments: { task_id: id } })).isError).toBeFalsy();
      await worker.client.callTool({ name: 'post_message', arguments: { task_id: id, kind: 'progress', text: 'working' } });
      await worker.client.callTool({ name: 'submit_result', arguments: { task_id: id, result: 'done it' } });
      const reviewed = await leader.client.callTool({ name: 'review_task', arguments: { task_id: id, verdict: 'approve' } });
      expect(body(reviewed).task.status).toBe('done');

      const refused = await worker.client.callTool({ name: 'cancel_task', arguments: { task_id: id } });
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toBeUndefined();
      expect(body(refused).error.code).toBe('forbidden');
      const spoof = await worker.client.callTool({ name: 'whoami', arguments: { agent_name: 'lead' } });
      expect(body(spoof).error.code).toBe('invalid_input');
      const detail = body(await worker.client.callTool({ name: 'get_task', arguments: { task_id: id, order: 'oldest_first' } }));
      expect(detail.history.map((h: { action: string }) => h.action)).toEqual(['created', 'claimed', 'submitted', 'approved']);
      expect(detail.untrusted_content_warning).toBeTruthy();
    } finally {
      await done(leader);
      await done(worker);
    }
  });

  it('a wrong token in ROUNDTABLE_TOKEN gets an error that names that variable as the place to fix', async () => {
    const bridge = await startBridge({ args: ['--url', board.url, '--ca', pki.caCert], env: bridgeEnv({ ROUNDTABLE_TOKEN: 'rt_not_a_valid_token_at_all' }) });
    try {
      const result = await bridge.client.callTool({ name: 'whoami', arguments: {} });
      expect(result.isError).toBe(true);
      expect(body(result).error.code).toBe('unauthorized');
      expect(body(result).error.message).toContain('refused the token in ROUNDTABLE_TOKEN');
      expect(bridge.stderr()).not.toContain('rt_not_a_valid_token_at_all');
    } finally {
      await done(bridge);
    }
  });
});

describe('start-up', () => {
  it('serves initialize and tools/list without loading network or crypto code (loaded at the first call)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'roundtable-bridge-builtins-')), 'builtins.txt');
    const preload = join(ROOT, 'test/fixtures/loaded-builtins.mjs');
    const bridge = await bridgeFor('w1', [], { NODE_OPTIONS: `--import ${JSON.stringify(preload)}`, ROUNDTABLE_TEST_BUILTINS_FILE: file });
    expect(names(await bridge.client.listTools())).toEqual(TOOLS.map((t) => t.name));
    await done(bridge);
    const loaded = readFileSync(file, 'utf8').split('\n');
    // The list is real: what the bridge does load is in it.
    expect(loaded).toContain('fs');
    for (const heavy of ['http', 'https', 'tls', 'crypto']) expect(loaded, heavy).not.toContain(heavy);
  });
});

describe('process lifetime', () => {
  it('exits cleanly when stdin closes', async () => {
    const bridge = await bridgeFor('w2');
    await bridge.client.callTool({ name: 'whoami', arguments: {} });
    await bridge.close();
    expect(isAlive(bridge.pid)).toBe(false);
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('exits with code 0 on %s', async (signal) => {
    const child = spawnTracked(process.execPath, [BRIDGE_BIN, '--url', board.url, '--ca', pki.caCert], { env: bridgeEnv({ ROUNDTABLE_TOKEN: board.tokens['w2']! }), stdio: ['pipe', 'pipe', 'pipe'] });
    const firstLine = new Promise<string>((resolve) => child.stdout!.once('data', (d: Buffer) => resolve(d.toString())));
    child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } } })}\n`);
    expect(JSON.parse(await firstLine).result.serverInfo.name).toBe('roundtable');
    expect(await stopProcess(child, signal)).toBe(0);
  });

  it('exits with code 0, without a stack trace, when its client stops reading (EPIPE on stdout)', async () => {
    const child = spawnTracked(process.execPath, [BRIDGE_BIN, '--url', board.url, '--ca', pki.caCert], { env: bridgeEnv({ ROUNDTABLE_TOKEN: board.tokens['w2']! }), stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const send = (message: object) => child.stdin!.write(`${JSON.stringify(message)}\n`);
    const firstLine = new Promise<string>((resolve) => child.stdout!.once('data', (d: Buffer) => resolve(d.toString())));
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } } });
    expect(JSON.parse(await firstLine).result.serverInfo.name).toBe('roundtable');
    // The app closes its end of the bridge's stdout but not stdin; the next answer cannot be written.
    child.stdout!.destroy();
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} });
    expect(await within('the bridge to exit after EPIPE', exited, 10_000)).toBe(0);
    expect(stderr).not.toMatch(/EPIPE|Unhandled|at /);
  });

  it('refuses plain http:// to a non-loopback host, naming the rule', async () => {
    const { execFile } = await import('node:child_process');
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(process.execPath, [BRIDGE_BIN, '--url', 'http://board.example.com'], { env: bridgeEnv({ ROUNDTABLE_TOKEN: 'x' }) }, (error, _out, stderr) =>
        resolve({ code: error ? (error as { code: number }).code : 0, stderr }),
      );
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('http:// is allowed only to a loopback host');
  });
});
