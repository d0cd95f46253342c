// Exactly one of many racing claimants wins a task that just became ready, every time.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, startBoard, type AgentSpec, type TestBoard } from '../helpers/board.js';

const CLAIMANTS = 20;
const ROUNDS = 50;
const agents: AgentSpec[] = [
  { name: 'lead', role: 'leader' },
  ...Array.from({ length: CLAIMANTS }, (_, i): AgentSpec => ({ name: `w${i}`, role: 'worker' })),
];

let board: TestBoard;
beforeAll(async () => {
  board = await startBoard({ agents });
});
afterAll(async () => {
  await board.stop();
});

it(`${CLAIMANTS} claimants on a task that just became ready: exactly one winner, ${ROUNDS} times`, async () => {
  for (let round = 0; round < ROUNDS; round++) {
    const blocker = (await api(board, 'lead', 'create_task', { title: `blocker ${round}` })).body.task.id as number;
    const id = (await api(board, 'lead', 'create_task', { title: `race ${round}`, depends_on: [blocker] })).body.task.id as number;
    expect((await api(board, 'w0', 'claim_task', { task_id: blocker })).status).toBe(200);
    expect((await api(board, 'w0', 'submit_result', { task_id: blocker, result: 'done' })).status).toBe(200);
    // The racers start as the approval is sent: some arrive while the task is still blocked, some just after.
    const approval = api(board, 'lead', 'review_task', { task_id: blocker, verdict: 'approve' });
    const racers = agents.slice(1).map((a) => api(board, a.name, 'claim_task', { task_id: id }));
    expect((await approval).status).toBe(200);
    let answers = await Promise.all(racers);
    // Those that came too early were refused as blocked; they try again now that it is ready.
    const early = agents.slice(1).filter((_, i) => answers[i]!.status === 409 && /waits on/.test(answers[i]!.body.error?.message ?? ''));
    answers = [...answers.filter((a) => !(a.status === 409 && /waits on/.test(a.body.error?.message ?? ''))), ...(await Promise.all(early.map((a) => api(board, a.name, 'claim_task', { task_id: id }))))];
    const winners = answers.filter((a) => a.status === 200);
    expect(winners, `round ${round}`).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(CLAIMANTS - 1);
    const detail = (await api(board, 'lead', 'get_task', { task_id: id })).body;
    expect(detail.task.assignee).toBe(winners[0]!.body.task.assignee);
    expect(detail.history.filter((h: { action: string }) => h.action === 'claimed')).toHaveLength(1);
  }
});
