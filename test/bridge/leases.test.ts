// The bridge keeps its agent's claims alive with heartbeats while the agent app (its parent) lives, and stops when killed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startBoard, type TestBoard } from '../helpers/board.js';
import { body, bridgeEnv, startBridge } from '../helpers/bridge.js';
import { eventually, sleep } from '../helpers/eventually.js';

const TTL_S = 3;
let board: TestBoard;

beforeAll(async () => {
  board = await startBoard({ env: { ROUNDTABLE_LEASE_TTL: `${TTL_S}s` } });
});
afterAll(async () => {
  await board.stop();
});

describe('heartbeats from the bridge', () => {
  it('an agent that claims through the bridge and then falls silent keeps its claim past 3x the TTL; killed, it loses it within one TTL', async () => {
    const id = (await api(board, 'lead', 'create_task', { title: 'long job' })).body.task.id as number;
    const bridge = await startBridge({ args: ['--url', board.url], env: bridgeEnv({ ROUNDTABLE_TOKEN: board.tokens['w1']! }) });
    let killed = false;
    try {
      const claimed = body(await bridge.client.callTool({ name: 'claim_task', arguments: { task_id: id } }));
      expect(claimed.task).toMatchObject({ status: 'claimed', assignee: 'w1' });
      // No more calls through the bridge: only its heartbeats can keep the claim. Watch it as the leader.
      const until = Date.now() + 3 * TTL_S * 1000 + 500;
      while (Date.now() < until) {
        const task = (await api(board, 'lead', 'get_task', { task_id: id })).body.task;
        expect(task, 'the claim held while the bridge lived').toMatchObject({ status: 'claimed', claim_id: claimed.task.claim_id });
        await sleep(250);
      }
      process.kill(bridge.pid, 'SIGKILL');
      killed = true;
      const killedAt = Date.now();
      await eventually('the task to reopen', async () => (await api(board, 'lead', 'get_task', { task_id: id })).body.task.status === 'open', {
        timeoutMs: TTL_S * 1000 + 1000 + 5000,
      });
      // Within one TTL (+1 s sweep slack, +1 s for polling on a loaded machine).
      expect(Date.now() - killedAt).toBeLessThan(TTL_S * 1000 + 2000);
      const history = (await api(board, 'lead', 'get_task', { task_id: id })).body.history;
      expect(history[0]).toMatchObject({ action: 'lease_expired', agent: 'roundtable', claim_id: claimed.task.claim_id });
    } finally {
      if (!killed) await bridge.close();
      for (const token of Object.values(board.tokens)) expect(bridge.stderr()).not.toContain(token);
    }
  });
});
