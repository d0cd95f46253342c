// A change whose answer was lost: the bridge says it may have been applied, and the same call made again goes out
// under the same idempotency key, so the retry the message recommends is applied once (issue 22, item C).
import { afterEach, describe, expect, it } from 'vitest';
import { api, startBoard, type TestBoard } from '../helpers/board.js';
import { body, bridgeEnv, startBridge, type BridgeSession } from '../helpers/bridge.js';
import { eventually } from '../helpers/eventually.js';
import { answerLosingProxy, standInServer } from '../helpers/net.js';
import { describeEachStore } from '../helpers/stores.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function titled(board: TestBoard, title: string): Promise<Array<{ id: number }>> {
  const tasks = (await api(board, 'lead', 'list_tasks', { limit: 100 })).body['tasks'] as Array<{ id: number; title: string }>;
  return tasks.filter((t) => t.title === title);
}

function call(bridge: BridgeSession, name: string, args: Record<string, unknown>) {
  return bridge.client.callTool({ name, arguments: args });
}

describeEachStore((store) => {
  it('a create_task timed out against a stopped daemon (SIGSTOP), applied when it resumes, and repeated: one task', async () => {
    const board = await startBoard({ store });
    let stopped = false;
    cleanups.push(async () => {
      if (stopped) process.kill(board.process.pid!, 'SIGCONT');
      await board.stop();
    });
    const bridge = await startBridge({ args: ['--url', board.url, '--timeout', '2'], env: bridgeEnv({ ROUNDTABLE_TOKEN: board.tokens['lead']! }) });
    cleanups.push(() => bridge.close());
    expect((await call(bridge, 'whoami', {})).isError).toBeFalsy();

    process.kill(board.process.pid!, 'SIGSTOP');
    stopped = true;
    const first = await call(bridge, 'create_task', { title: 'exactly once', description: 'd', priority: 'high' });
    expect(first.isError).toBe(true);
    const error = body(first).error;
    expect(error).toMatchObject({ code: 'timeout', source: 'bridge' });
    // The message says the first call may have been applied, and that repeating the same call is safe, and until when.
    expect(error.message).toContain('may already have applied this change');
    expect(error.message).toContain('Repeating the same call (same tool, same arguments) within 60 minutes is safe');

    process.kill(board.process.pid!, 'SIGCONT');
    stopped = false;
    // The request had reached the daemon: it is applied as the daemon resumes, before the repeat is sent.
    const [applied] = await eventually('the stalled create_task to be applied', async () => {
      const found = await titled(board, 'exactly once');
      return found.length === 1 ? found : undefined;
    });
    // The repeat the message recommends, its arguments in another order: the same call, answered from the first.
    const again = await call(bridge, 'create_task', { priority: 'high', description: 'd', title: 'exactly once' });
    expect(again.isError, JSON.stringify(again)).toBeFalsy();
    expect(body(again).task.id).toBe(applied!.id);
    expect(await titled(board, 'exactly once')).toHaveLength(1);

    // Settled by that answer: the same call once more is a new change.
    const third = await call(bridge, 'create_task', { title: 'exactly once', description: 'd', priority: 'high' });
    expect(third.isError).toBeFalsy();
    expect(await titled(board, 'exactly once')).toHaveLength(2);
    // Another call is never taken for the stalled one: only identical arguments reuse the key.
    expect(bridge.stderr()).not.toContain(board.tokens['lead']!);
  });
});

describe('a connection lost after the request was sent', () => {
  it('is reported as maybe applied, and the same post_message repeated once the path is back is applied once', async () => {
    const board = await startBoard();
    cleanups.push(() => board.stop());
    const keys: string[] = [];
    let cutting = true;
    // While cutting, the daemon's answer to post_message is lost after it was applied.
    const proxy = await answerLosingProxy(board.url, (req) => {
      if (!req.url?.endsWith('/post_message')) return false;
      keys.push(String(req.headers['idempotency-key']));
      return cutting;
    });
    cleanups.push(() => proxy.close());
    const { body: made } = await api(board, 'lead', 'create_task', { title: 'talked about' });
    const taskId = made['task'].id as number;
    const bridge = await startBridge({ args: ['--url', proxy.url, '--timeout', '10'], env: bridgeEnv({ ROUNDTABLE_TOKEN: board.tokens['lead']! }) });
    cleanups.push(() => bridge.close());

    const args = { task_id: taskId, kind: 'note', text: 'said once' };
    const lost = await call(bridge, 'post_message', args);
    expect(lost.isError).toBe(true);
    expect(body(lost).error.code).toBe('daemon_unreachable');
    expect(body(lost).error.message).toContain('may already have applied this change');
    cutting = false;
    const again = await call(bridge, 'post_message', args);
    expect(again.isError, JSON.stringify(again)).toBeFalsy();
    // Every attempt, in the call and in its repeat, went out under one key; the board holds one message.
    expect(new Set(keys).size).toBe(1);
    expect(keys.length).toBeGreaterThan(1);
    const messages = (await api(board, 'lead', 'get_task', { task_id: taskId })).body['messages'] as Array<{ text: string }>;
    expect(messages.filter((m) => m.text === 'said once')).toHaveLength(1);
  });

  it('a read that timed out is only told to retry: it changes nothing, so nothing is said of applying', async () => {
    const standIn = await standInServer(() => undefined);
    cleanups.push(() => standIn.close());
    const bridge = await startBridge({ args: ['--url', standIn.url, '--timeout', '1'], env: bridgeEnv({ ROUNDTABLE_TOKEN: 'rt_test_unused_token_0123456789' }) });
    cleanups.push(() => bridge.close());
    const result = await call(bridge, 'list_tasks', {});
    expect(body(result).error.code).toBe('timeout');
    expect(body(result).error.message).not.toContain('applied');
    expect(body(result).error.message).toContain('retry the call');
  });
});
