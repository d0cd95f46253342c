// Parked waits per agent (issue 22, item 8): one token holds a few wait_for_activity calls at once, as it holds a few
// event streams; the next is refused with the limit named, and other agents are not held back by it.
import { afterEach, expect, it } from 'vitest';
import { api, startBoard, type AgentSpec, type TestBoard } from '../helpers/board.js';
import { describeEachStore } from '../helpers/stores.js';

const AGENTS: AgentSpec[] = [
  { name: 'lead', role: 'leader' },
  { name: 'w1', role: 'worker', skills: ['python'] },
  { name: 'eye', role: 'observer' },
];
/** WAITS_PER_AGENT in daemon/src/board/presence.ts, stated in SPEC §3. */
const PER_AGENT = 8;

const boards: TestBoard[] = [];
afterEach(async () => {
  await Promise.all(boards.splice(0).map((b) => b.stop()));
});

describeEachStore((store) => {
  it(`an agent's ${PER_AGENT + 1}th wait at once is refused naming the limit; once a wait answers, the next is let in`, async () => {
    const board = await startBoard({ agents: AGENTS, store });
    boards.push(board);
    // One more than the cap at once: the board counts them as they arrive, so exactly one (the last in) is refused
    // at once and the others stay parked.
    const calls = Array.from({ length: PER_AGENT + 1 }, (_, i) => api(board, 'eye', 'wait_for_activity', { timeout_s: 40, for: ['messages'] }).then((answer) => ({ i, answer })));
    const first = await Promise.race(calls);
    const refused = first.answer;
    expect(refused.status).toBe(429);
    const parked = calls.filter((_, i) => i !== first.i).map((call) => call.then(({ answer }) => answer));
    expect(refused.body.error).toEqual({
      code: 'rate_limited',
      message: `too many wait_for_activity calls open at once for agent eye (the limit is ${PER_AGENT} on this daemon; one ends when it answers); retry in 10 s`,
      retry_after_s: 10,
    });
    expect(refused.headers.get('retry-after')).toBe('10');
    // Another agent waits as before, and the observer's other calls are not held back.
    expect((await api(board, 'w1', 'wait_for_activity', { timeout_s: 0 })).status).toBe(200);
    expect((await api(board, 'eye', 'whoami')).status).toBe(200);

    // One post wakes the parked waits; every one answers, and the agent may wait again.
    expect((await api(board, 'lead', 'post', { to: 'all', text: 'wake up' })).status).toBe(200);
    const answers = await Promise.all(parked);
    expect(answers.map((a) => [a.status, a.body['reason']])).toEqual(Array(PER_AGENT).fill([200, 'activity']));
    expect((await api(board, 'eye', 'wait_for_activity', { timeout_s: 0, for: ['messages'] })).status).toBe(200);
  });
});
