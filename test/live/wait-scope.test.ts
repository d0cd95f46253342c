// What a wait waits for (`for`), how a wait ends when its token is removed or rotated, and the wording of refusals.
import { describe, expect, it } from 'vitest';
import { api, daemonEnv, mcpClient, resultJson, runCli, startBoard, type AgentSpec, type TestBoard } from '../helpers/board.js';
import { eventually, within } from '../helpers/eventually.js';

async function withBoard<T>(agents: AgentSpec[] | undefined, run: (board: TestBoard) => Promise<T>): Promise<T> {
  const board = await startBoard(agents ? { agents } : {});
  try {
    return await run(board);
  } finally {
    await board.stop();
  }
}

/** Whether the board shows the member as parked in wait_for_activity now. */
async function isWaiting(board: TestBoard, name: string): Promise<boolean> {
  const members = (await api(board, 'lead', 'members')).body.members as Array<{ name: string; waiting: boolean }>;
  return members.find((m) => m.name === name)?.waiting === true;
}

/** A wait through the JSON API that records when it was answered. */
function parkWait(board: TestBoard, agent: string, args: Record<string, unknown>) {
  let settled = false;
  const answer = api(board, agent, 'wait_for_activity', args).finally(() => (settled = true));
  return { answer, settled: () => settled };
}

describe('wait_for_activity with "for"', () => {
  it('waiting for tasks, an unread broadcast neither answers "pending" nor ends the wait; a new claimable task does', async () => {
    await withBoard(undefined, async (board) => {
      // Posted before the wait: w1 has it unread.
      expect((await api(board, 'lead', 'post', { to: 'all', text: 'hello all' })).status).toBe(200);
      const everything = await api(board, 'w1', 'wait_for_activity', { timeout_s: 5 });
      expect(everything.body).toMatchObject({ reason: 'pending', unread_messages: 1 });

      const wait = parkWait(board, 'w1', { timeout_s: 40, for: ['tasks'] });
      await eventually('w1 to be parked', () => isWaiting(board, 'w1'));
      // Another broadcast while it waits: still parked.
      await api(board, 'w2', 'post', { to: 'all', text: 'more chatter' });
      await eventually('w1 to be parked after the message', () => isWaiting(board, 'w1'));
      expect(wait.settled()).toBe(false);

      const created = await api(board, 'lead', 'create_task', { title: 'for w1' });
      expect(created.status).toBe(200);
      const woke = await within('the wait to answer after the task was created', wait.answer, 10_000);
      expect(woke.status).toBe(200);
      expect(woke.body).toMatchObject({ reason: 'activity', claimable_tasks: 1, unread_messages: 2 });
      expect(woke.body['waited_ms']).toBeLessThan(40_000);

      // Now a task is pending: a task wait answers at once.
      const pending = await api(board, 'w1', 'wait_for_activity', { timeout_s: 5, for: ['tasks'] });
      expect(pending.body).toMatchObject({ reason: 'pending', claimable_tasks: 1 });
    });
  });

  it('waiting for messages, a new task does not end the wait; a message does', async () => {
    await withBoard(undefined, async (board) => {
      const wait = parkWait(board, 'w1', { timeout_s: 40, for: ['messages'] });
      await eventually('w1 to be parked', () => isWaiting(board, 'w1'));
      expect((await api(board, 'lead', 'create_task', { title: 'not what w1 waits for' })).status).toBe(200);
      await eventually('w1 to be parked after the task', () => isWaiting(board, 'w1'));
      expect(wait.settled()).toBe(false);
      await api(board, 'lead', 'post', { to: 'w1', text: 'a word' });
      const woke = await within('the wait to answer after the message', wait.answer, 10_000);
      expect(woke.body).toMatchObject({ reason: 'activity', unread_messages: 1, claimable_tasks: 1 });
    });
  });

  it('a wait that leaves out reviews does not use them up: the next wait for reviews is told', async () => {
    await withBoard(undefined, async (board) => {
      const id = (await api(board, 'lead', 'create_task', { title: 't' })).body.task.id as number;
      await api(board, 'w1', 'claim_task', { task_id: id });
      await api(board, 'w1', 'submit_result', { task_id: id, result: 'r' });
      // The leader waits for tasks: a submission to review is one.
      expect((await api(board, 'lead', 'wait_for_activity', { timeout_s: 5, for: ['tasks'] })).body).toMatchObject({ reason: 'pending', to_review: 1 });
      await api(board, 'lead', 'review_task', { task_id: id, verdict: 'approve' });
      const tasksOnly = await api(board, 'w1', 'wait_for_activity', { timeout_s: 0.2, for: ['tasks'] });
      expect(tasksOnly.body).toMatchObject({ reason: 'timeout', reviews: [] });
      const reviews = await api(board, 'w1', 'wait_for_activity', { timeout_s: 5, for: ['reviews'] });
      expect(reviews.body).toMatchObject({ reason: 'pending', reviews: [{ task_id: id, verdict: 'approve' }] });
    });
  });

  it('refuses an empty list and an unknown category, naming "for" and the categories', async () => {
    await withBoard(undefined, async (board) => {
      const empty = await api(board, 'w1', 'wait_for_activity', { for: [] });
      expect(empty.status).toBe(400);
      expect(empty.body.error!.message).toMatch(/for: give at least one of messages, tasks, reviews/);
      const unknown = await api(board, 'w1', 'wait_for_activity', { for: ['chores'] });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error!.message).toMatch(/for: each entry must be one of messages, tasks, reviews/);
    });
  });
});

describe('a parked wait whose token is removed or rotated', () => {
  it('answers 401 within seconds, on the JSON API and on /mcp, not counts 40 s later', async () => {
    await withBoard(undefined, async (board) => {
      const env = daemonEnv(board.dir);
      // One agent per wait, so the members list tells that each one is parked.
      const viaApi = parkWait(board, 'w1', { timeout_s: 40 });
      const mcp = await mcpClient(board, 'w3');
      try {
        const viaMcp = mcp.callTool({ name: 'wait_for_activity', arguments: { timeout_s: 40 } }, undefined, { timeout: 60_000 });
        const rotatedWait = parkWait(board, 'w2', { timeout_s: 40 });
        await eventually('w1, w2 and w3 to be parked', async () => (await isWaiting(board, 'w1')) && (await isWaiting(board, 'w2')) && (await isWaiting(board, 'w3')));
        for (const name of ['w1', 'w3']) {
          const removed = await runCli(['agents', 'remove', name], env);
          expect(removed.code, removed.stderr).toBe(0);
        }
        const rotated = await runCli(['agents', 'rotate', 'w2', '--json'], env);
        expect(rotated.code, rotated.stderr).toBe(0);
        const changedAt = Date.now();

        const apiAnswer = await within('the JSON API wait to end', viaApi.answer, 10_000);
        expect(apiAnswer.status).toBe(401);
        expect(apiAnswer.body.error).toMatchObject({ code: 'unauthorized' });
        expect(apiAnswer.body.error!.message).toMatch(/your token was removed or rotated/);
        expect(apiAnswer.body).not.toHaveProperty('unread_messages');

        const mcpAnswer = await within('the /mcp wait to end', viaMcp, 10_000);
        expect(mcpAnswer.isError).toBe(true);
        expect(resultJson(mcpAnswer).error).toMatchObject({ code: 'unauthorized' });
        expect(resultJson(mcpAnswer).error.message).toMatch(/your token was removed or rotated/);

        const rotatedAnswer = await within('the rotated wait to end', rotatedWait.answer, 10_000);
        expect(rotatedAnswer.status).toBe(401);
        expect(rotatedAnswer.body.error!.message).toMatch(/your token was removed or rotated/);
        expect(Date.now() - changedAt).toBeLessThan(10_000);
        const { token } = JSON.parse(rotated.stdout) as { token: string };
        // The new token waits as usual.
        const fresh = await api(board, token, 'wait_for_activity', { timeout_s: 0.2 });
        expect(fresh.body).toMatchObject({ reason: 'timeout' });
      } finally {
        await mcp.close();
      }
    });
  });
});

describe('refusal wording', () => {
  it('a 401 on /mcp speaks to an HTTP client: send a Bearer token the board\'s owner issued; the bridge login only as an aside', async () => {
    await withBoard(undefined, async (board) => {
      const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } } };
      const post = (headers: Record<string, string>) =>
        fetch(`${board.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(init) });
      const wrong = await post({ authorization: 'Bearer rt_not_a_token_of_this_board_at_all' });
      expect(wrong.status).toBe(401);
      const message = ((await wrong.json()) as { error: { message: string } }).error.message;
      expect(message).toMatch(/^this token is not valid for this board/);
      expect(message).toContain('send "Authorization: Bearer <token>" with an agent token that the board\'s owner issued');
      // The bridge is named only as the way for its own users, after the HTTP instruction.
      expect(message.indexOf('roundtable-bridge login')).toBeGreaterThan(message.indexOf('Authorization: Bearer'));
      expect(message).toMatch(/Through roundtable-bridge, `roundtable-bridge login`/);
      const missing = await post({});
      expect(missing.status).toBe(401);
      expect(((await missing.json()) as { error: { message: string } }).error.message).toContain('Authorization: Bearer <token>');
    });
  });

  it('calls an observer "an observer"', async () => {
    await withBoard([{ name: 'lead', role: 'leader' }, { name: 'eyes', role: 'observer' }], async (board) => {
      const refused = await api(board, 'eyes', 'create_task', { title: 'x' });
      expect(refused.status).toBe(403);
      expect(refused.body.error!.message).toContain('you are eyes, an observer');
      expect(refused.body.error!.message).not.toMatch(/\ba observer/);
    });
  });
});
