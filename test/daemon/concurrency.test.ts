// Exactly one of many racing claimants wins, every time.
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

it(`${CLAIMANTS} concurrent claimants: exactly one winner, ${ROUNDS} times`, async () => {
  for (let round = 0; round < ROUNDS; round++) {
    const id = (await api(board, 'lead', 'create_task', { title: `race ${round}` })).body.task.id as number;
    const answers = await Promise.all(agents.slice(1).map((a) => api(board, a.name, 'claim_task', { task_id: id })));
    const winners = answers.filter((a) => a.status === 200);
    expect(winners, `round ${round}`).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(CLAIMANTS - 1);
    const detail = (await api(board, 'lead', 'get_task', { task_id: id })).body;
    expect(detail.task.assignee).toBe(winners[0]!.body.task.assignee);
    expect(detail.history.filter((h: { action: string }) => h.action === 'claimed')).toHaveLength(1);
  }
});
