// The counters behind /status and wait_for_activity (migration 008, kept by triggers) agree with the tasks themselves
// through every kind of transition; and a board that existed before them is counted once when it is migrated.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, startBoard, type TestBoard } from '../helpers/board.js';
import { eventually } from '../helpers/eventually.js';

let board: TestBoard;
beforeAll(async () => {
  board = await startBoard({ env: { ROUNDTABLE_LEASE_TTL: '1s' } });
});
afterAll(async () => {
  await board.stop();
});

async function status(): Promise<Record<string, any>> {
  const answer = await fetch(`${board.url}/status`);
  return (await answer.json()) as Record<string, any>;
}

/** The truth, counted row by row through a read-only connection. */
function counted(): { byStatus: Record<string, number>; ready: number } {
  const db = new Database(board.dbPath, { readonly: true });
  try {
    const byStatus = Object.fromEntries(['open', 'claimed', 'submitted', 'done', 'cancelled'].map((s) => [s, 0]));
    for (const row of db.prepare('SELECT status, COUNT(*) AS n FROM tasks GROUP BY status').all() as Array<{ status: string; n: number }>) byStatus[row.status] = row.n;
    const ready = db.prepare("SELECT COUNT(*) FROM tasks WHERE status = 'open' AND blocker_count = 0").pluck().get() as number;
    return { byStatus, ready };
  } finally {
    db.close();
  }
}

async function expectAgreement(when: string): Promise<void> {
  const truth = counted();
  const shown = await status();
  expect(shown['tasks_by_status'], when).toEqual(truth.byStatus);
  expect(shown['tasks_ready'], when).toBe(truth.ready);
  expect(shown['tasks_blocked'], when).toBe(truth.byStatus['open']! - truth.ready);
}

it('create, block, claim, lapse, submit, reject, approve, cancel, edit: /status always equals a row count', async () => {
  const create = async (args: Record<string, unknown>) => (await api(board, 'lead', 'create_task', { title: 't', ...args })).body.task.id as number;
  const a = await create({});
  const b = await create({ depends_on: [a] });
  const c = await create({ depends_on: [a, b] });
  await expectAgreement('after creating one ready and two blocked');
  await api(board, 'w1', 'claim_task', { task_id: a });
  await expectAgreement('after a claim');
  await api(board, 'w1', 'submit_result', { task_id: a, result: 'r' });
  await api(board, 'lead', 'review_task', { task_id: a, verdict: 'reject', note: 'again' });
  await expectAgreement('after a rejection');
  await api(board, 'w2', 'claim_task', { task_id: a });
  await api(board, 'w2', 'submit_result', { task_id: a, result: 'r2' });
  await api(board, 'lead', 'review_task', { task_id: a, verdict: 'approve' });
  await expectAgreement('after approval unblocked one dependent');
  await api(board, 'lead', 'cancel_task', { task_id: b, reason: 'no' });
  await expectAgreement('after a cancel stranded one');
  await api(board, 'lead', 'update_task', { task_id: c, depends_on: [] });
  await expectAgreement('after an edit removed the dependencies');
  const lapsing = await create({});
  await api(board, 'w3', 'claim_task', { task_id: lapsing });
  // The lease (1 s) lapses and the sweep reopens it: the counters follow a transition no tool call made.
  await eventually('the lapsed claim to be reopened', async () => (await status())['tasks_by_status'].claimed === 0);
  await expectAgreement('after a lapsed claim was reopened');
});

it("wait_for_activity's claimable_tasks, from the counters, equals what claimable_by_me lists, for every worker", async () => {
  const create = (args: Record<string, unknown>) => api(board, 'lead', 'create_task', { title: 'c', ...args });
  for (let i = 0; i < 30; i++) await create({});
  for (let i = 0; i < 12; i++) await create({ required_skills: i % 2 ? ['python'] : ['sql', 'python'] });
  await create({ required_skills: ['python'], assignee: 'w2' });
  await create({ assignee: 'w3' });
  const blocker = (await create({})).body.task.id;
  await create({ depends_on: [blocker] });
  const claimed = (await create({ required_skills: ['sql'] })).body.task.id;
  await api(board, 'w1', 'claim_task', { task_id: claimed });
  for (const worker of ['w1', 'w2', 'w3']) {
    let listed = 0;
    let cursor: string | null = null;
    do {
      const page: Record<string, any> = (await api(board, worker, 'list_tasks', { claimable_by_me: true, limit: 100, ...(cursor && { cursor }) })).body;
      listed += page.tasks.length;
      cursor = page.next_cursor;
    } while (cursor);
    const waited = await api(board, worker, 'wait_for_activity', { timeout_s: 0, for: ['tasks'] });
    expect(waited.body.claimable_tasks, worker).toBe(listed);
  }
});
