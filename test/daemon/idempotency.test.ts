// Idempotency keys on the JSON API: a retried mutation is applied once and answered with the first response.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startBoard, type TestBoard } from '../helpers/board.js';
import { describeEachStore } from '../helpers/stores.js';

let board: TestBoard;

async function call(agent: string, tool: string, args: unknown, key?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${board.tokens[agent]}` };
  if (key !== undefined) headers['idempotency-key'] = key;
  const response = await fetch(`${board.url}/api/v1/tools/${tool}`, { method: 'POST', headers, body: JSON.stringify(args) });
  return { status: response.status, body: (await response.json()) as any };
}

async function countTasks(title: string) {
  const { body } = await call('lead', 'list_tasks', { limit: 100 });
  return body.tasks.filter((t: { title: string }) => t.title === title).length;
}

describeEachStore((store) => {
  beforeAll(async () => {
    board = await startBoard({ store });
  });
  afterAll(async () => {
    await board.stop();
  });

  it('a create_task retried with the same key makes one task and gets the first answer again', async () => {
    const first = await call('lead', 'create_task', { title: 'once' }, 'key-create-1');
    const again = await call('lead', 'create_task', { title: 'once' }, 'key-create-1');
    expect(first.status).toBe(200);
    expect(again).toEqual(first);
    expect(await countTasks('once')).toBe(1);
  });

  it('racing requests with one key apply the mutation once', async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, () => call('lead', 'create_task', { title: 'raced' }, 'key-race')));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(new Set(answers.map((a) => a.body.task.id)).size).toBe(1);
    expect(await countTasks('raced')).toBe(1);
  });

  it('a claim and a submission each retried five times at once under one key: every answer is the first one', async () => {
    const id = (await call('lead', 'create_task', { title: 'raced transition' })).body.task.id;
    const claims = await Promise.all(Array.from({ length: 5 }, () => call('w1', 'claim_task', { task_id: id }, `race-claim-${id}`)));
    expect(claims.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(claims.map((a) => JSON.stringify(a.body))).size).toBe(1);
    const claim = claims[0]!.body.task.claim_id;
    const submits = await Promise.all(Array.from({ length: 5 }, () => call('w1', 'submit_result', { task_id: id, claim_id: claim, result: 'r' }, `race-submit-${id}`)));
    expect(submits.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(submits.map((a) => JSON.stringify(a.body))).size).toBe(1);
    const history = (await call('lead', 'get_task', { task_id: id })).body.history;
    expect(history.filter((h: { action: string }) => h.action === 'claimed')).toHaveLength(1);
    expect(history.filter((h: { action: string }) => h.action === 'submitted')).toHaveLength(1);
  });

  it('a key reused with other arguments is an error and changes nothing', async () => {
    await call('lead', 'create_task', { title: 'first use' }, 'key-reuse');
    const reused = await call('lead', 'create_task', { title: 'other args' }, 'key-reuse');
    expect(reused.status).toBe(400);
    expect(reused.body.error.message).toContain('already used for a different call');
    expect(await countTasks('other args')).toBe(0);
  });

  it('keys are per agent, and a replayed claim does not fail as already claimed', async () => {
    const id = (await call('lead', 'create_task', { title: 'claim me' })).body.task.id;
    const claim = await call('w1', 'claim_task', { task_id: id }, 'shared-key');
    const replay = await call('w1', 'claim_task', { task_id: id }, 'shared-key');
    expect(replay).toEqual(claim);
    const otherAgent = await call('w2', 'claim_task', { task_id: id }, 'shared-key');
    expect(otherAgent.status).toBe(409);
    const history = (await call('lead', 'get_task', { task_id: id })).body.history;
    expect(history.filter((h: { action: string }) => h.action === 'claimed')).toHaveLength(1);
  });

  it('a failed mutation is not recorded: the retry runs again', async () => {
    const id = (await call('lead', 'create_task', { title: 'not yet' })).body.task.id;
    const early = await call('w1', 'submit_result', { task_id: id, result: 'r' }, 'key-fail');
    expect(early.status).toBe(409);
    await call('w1', 'claim_task', { task_id: id });
    const retried = await call('w1', 'submit_result', { task_id: id, result: 'r' }, 'key-fail');
    expect(retried.status).toBe(200);
    expect(retried.body.task.status).toBe('submitted');
  });

  it('a malformed key is refused, naming the header', async () => {
    const answer = await call('lead', 'create_task', { title: 'bad key' }, 'has spaces and /slashes');
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toContain('Idempotency-Key header');
    expect(await countTasks('bad key')).toBe(0);
  });
});
