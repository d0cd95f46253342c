// get_task pages a task's messages and history: newest first by default, oldest first on request, a cursor each, and the
// totals; on every store (PostgreSQL reads it all in one statement since issue 37, SQLite in one read transaction).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, mcpClient, resultJson, startBoard, type TestBoard } from '../helpers/board.js';
import { describeEachStore } from '../helpers/stores.js';

let board: TestBoard;
let taskId: number;
const MESSAGES = 25;

type Detail = Record<string, any>;
const getTask = async (args: Record<string, unknown>): Promise<Detail> => {
  const answer = await api(board, 'w3', 'get_task', { task_id: taskId, ...args });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
};

/** Follows one list's cursor to its end; returns every row's text (or action) in the order served. */
async function walk(list: 'messages' | 'history', args: Record<string, unknown>, pick: (row: any) => string): Promise<{ seen: string[]; pages: number; totals: number[] }> {
  const seen: string[] = [];
  const totals: number[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const body = await getTask({ ...args, [`${list}_limit`]: 10, ...(cursor !== null && { [`${list}_cursor`]: cursor }) });
    seen.push(...(body[list] as any[]).map(pick));
    totals.push(body[`${list}_total`]);
    cursor = body[`${list}_next_cursor`];
    pages++;
  } while (cursor !== null && pages < 20);
  return { seen, pages, totals };
}

const texts = Array.from({ length: MESSAGES }, (_, i) => `m${i + 1}`);

describeEachStore((store) => {
  beforeAll(async () => {
    board = await startBoard({ store });
    taskId = (await api(board, 'lead', 'create_task', { title: 'a long thread' })).body.task.id;
    await api(board, 'w1', 'claim_task', { task_id: taskId });
    for (let i = 1; i <= MESSAGES; i++) await api(board, 'w1', 'post_message', { task_id: taskId, kind: 'note', text: `m${i}` });
    await api(board, 'w1', 'release_task', { task_id: taskId });
    await api(board, 'w2', 'claim_task', { task_id: taskId });
  });
  afterAll(async () => {
    await board.stop();
  });

  it('messages newest first by default, ten at a time, with the total; then oldest first', async () => {
    const newest = await walk('messages', {}, (m) => m.text);
    expect(newest.seen).toEqual([...texts].reverse());
    expect(newest.pages).toBe(3);
    expect(new Set(newest.totals)).toEqual(new Set([MESSAGES]));
    const oldest = await walk('messages', { order: 'oldest_first' }, (m) => m.text);
    expect(oldest.seen).toEqual(texts);
    expect(oldest.pages).toBe(3);
  });

  it('history both ways: created first when oldest first, the latest claim first when newest first', async () => {
    const oldest = await walk('history', { order: 'oldest_first' }, (h) => `${h.action}:${h.agent}`);
    expect(oldest.seen).toEqual(['created:lead', 'claimed:w1', 'released:w1', 'claimed:w2']);
    expect(oldest.totals).toEqual([4]);
    const newest = await walk('history', {}, (h) => `${h.action}:${h.agent}`);
    expect(newest.seen).toEqual([...oldest.seen].reverse());
    const small = await getTask({ history_limit: 3 });
    expect(small.history).toHaveLength(3);
    expect(small.history_total).toBe(4);
    const rest = await getTask({ history_limit: 3, history_cursor: small.history_next_cursor });
    expect(rest.history.map((h: any) => h.action)).toEqual(['created']);
    expect(rest.history_next_cursor).toBeNull();
  });

  it('the first page by default is the newest 20, and a limit of 0 gives only the count', async () => {
    const first = await getTask({});
    expect(first.messages.map((m: any) => m.text)).toEqual([...texts].reverse().slice(0, 20));
    expect(first.messages_next_cursor).toEqual(expect.any(String));
    const counts = await getTask({ messages_limit: 0, history_limit: 0 });
    expect(counts).toMatchObject({ messages: [], messages_total: MESSAGES, messages_next_cursor: null, history: [], history_total: 4 });
  });

  it('the same on /mcp, and a bad cursor or a cursor against its order is refused naming the field', async () => {
    const client = await mcpClient(board, 'w3');
    try {
      const first = resultJson(await client.callTool({ name: 'get_task', arguments: { task_id: taskId, messages_limit: 5 } }));
      const second = resultJson(await client.callTool({ name: 'get_task', arguments: { task_id: taskId, messages_limit: 5, messages_cursor: first.messages_next_cursor } }));
      expect(second.messages.map((m: any) => m.text)).toEqual(['m20', 'm19', 'm18', 'm17', 'm16']);
    } finally {
      await client.close();
    }
    const bad = await api(board, 'w3', 'get_task', { task_id: taskId, history_cursor: 'nonsense' });
    expect(bad.status).toBe(400);
    expect(bad.body.error!.message).toMatch(/^history_cursor: /);
    const newestCursor = (await getTask({ messages_limit: 5 })).messages_next_cursor;
    const crossed = await api(board, 'w3', 'get_task', { task_id: taskId, order: 'oldest_first', messages_cursor: newestCursor });
    expect(crossed.status).toBe(400);
    expect(crossed.body.error!.message).toMatch(/messages_cursor continues a newest_first page/);
    const tooMany = await api(board, 'w3', 'get_task', { task_id: taskId, messages_limit: 101 });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error!.message).toMatch(/messages_limit must be between 0 and 100/);
  });

  it('the whole task in one answer: its edges, dependents, reviews, reservations, work and usage, and an unknown id refused', async () => {
    const blocker = (await api(board, 'lead', 'create_task', { title: 'blocker' })).body.task.id as number;
    const mine = (await api(board, 'lead', 'create_task', { title: 'reviewed', depends_on: [blocker] })).body.task.id as number;
    const after = (await api(board, 'lead', 'create_task', { title: 'waits on reviewed', depends_on: [mine] })).body.task.id as number;
    await api(board, 'w1', 'claim_task', { task_id: blocker });
    await api(board, 'w1', 'submit_result', { task_id: blocker, result: 'done' });
    expect((await api(board, 'lead', 'review_task', { task_id: blocker, verdict: 'approve' })).status).toBe(200);
    expect((await api(board, 'w1', 'claim_task', { task_id: mine })).status).toBe(200);
    expect((await api(board, 'w1', 'submit_result', { task_id: mine, result: 'first try', usage: { input_tokens: 10, output_tokens: 5 } })).status).toBe(200);
    expect((await api(board, 'lead', 'review_task', { task_id: mine, verdict: 'reject', note: 'again' })).status).toBe(200);
    expect((await api(board, 'w1', 'claim_task', { task_id: mine })).status).toBe(200);
    expect((await api(board, 'w1', 'reserve_paths', { task_id: mine, paths: ['src/a.ts'] })).status).toBe(200);
    const detail = (await api(board, 'w3', 'get_task', { task_id: mine })).body;
    expect(detail.task).toMatchObject({ id: mine, status: 'claimed', assignee: 'w1', depends_on: [blocker] });
    expect(detail.dependents).toEqual([after]);
    expect(detail.reviews).toEqual([expect.objectContaining({ task_id: mine, reviewer: 'lead', verdict: 'reject', note: 'again' })]);
    expect(detail.reservations).toEqual([expect.objectContaining({ task_id: mine, agent: 'w1', pattern: 'src/a.ts', exclusive: true })]);
    expect(detail.usage).toMatchObject({ reports: 1, input_tokens: 10, output_tokens: 5 });
    expect(detail.history.map((h: any) => h.action)).toEqual(['paths_reserved', 'claimed', 'rejected', 'submitted', 'claimed', 'created']);
    expect(detail.history_total).toBe(6);
    expect(detail.messages_total).toBe(0);
    const missing = await api(board, 'w3', 'get_task', { task_id: 987654 });
    expect(missing.status).toBe(404);
    expect(missing.body.error!.message).toMatch(/task 987654 does not exist/);
  });
});
