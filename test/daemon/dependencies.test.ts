// Plans as graphs through the real daemon: dependencies and the ready set, unblocking wake-ups, cancelled blockers,
// priority order, and update_task with its history, guards and limits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, mcpClient, resultJson, startBoard, type AgentSpec, type TestBoard } from '../helpers/board.js';
import { describeEachStore } from '../helpers/stores.js';
import { openBoardDb, type BoardDb } from '../helpers/board-db.js';
import { eventually } from '../helpers/eventually.js';

const AGENTS: AgentSpec[] = [
  { name: 'lead', role: 'leader' },
  { name: 'w1', role: 'worker', skills: ['python', 'sql'] },
  { name: 'w2', role: 'worker', skills: ['python'] },
  { name: 'w3', role: 'worker' },
  { name: 'obs', role: 'observer' },
];

let board: TestBoard;
let db: BoardDb;

type Body = Record<string, any>;

async function create(args: Record<string, unknown>): Promise<number> {
  const answer = await api(board, 'lead', 'create_task', args);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.task.id as number;
}

async function task(id: number): Promise<Body> {
  return (await api(board, 'lead', 'get_task', { task_id: id })).body;
}

/** Claims, submits and approves: the task is done. */
async function finish(id: number, worker = 'w1'): Promise<void> {
  expect((await api(board, worker, 'claim_task', { task_id: id })).status).toBe(200);
  expect((await api(board, worker, 'submit_result', { task_id: id, result: 'ok' })).status).toBe(200);
  expect((await api(board, 'lead', 'review_task', { task_id: id, verdict: 'approve' })).status).toBe(200);
}

async function claimableIds(agent: string, args: Record<string, unknown> = {}): Promise<number[]> {
  return ((await api(board, agent, 'list_tasks', { claimable_by_me: true, limit: 100, ...args })).body.tasks as Body[]).map((t) => t.id as number);
}

/** Whether `agent` is parked in wait_for_activity now, as members tells it. */
async function waiting(agent: string): Promise<boolean> {
  const members = (await api(board, 'lead', 'members')).body.members as Array<{ name: string; waiting: boolean }>;
  return members.find((m) => m.name === agent)!.waiting;
}

function waitCall(agent: string, args: Record<string, unknown>) {
  return api(board, agent, 'wait_for_activity', args).then((answer) => ({ ...answer.body, returnedAt: performance.now() }) as Body & { returnedAt: number });
}

/** Cancels every open task, so each test starts from a board where nothing is claimable. */
async function clearBoard(): Promise<void> {
  for (const status of ['open', 'claimed', 'submitted'] as const) {
    for (const t of (await api(board, 'lead', 'list_tasks', { status, limit: 100 })).body.tasks as Body[]) {
      await api(board, 'lead', 'cancel_task', { task_id: t.id });
    }
  }
  // Cancelling blockers stranded their dependents; those were cancelled too, so nothing is left to fix.
  expect((await api(board, 'lead', 'wait_for_activity', { timeout_s: 0 })).body.stranded_tasks).toEqual([]);
}

describeEachStore((store) => {
  beforeAll(async () => {
    board = await startBoard({ store, agents: AGENTS });
    db = openBoardDb(board);
  });
  afterAll(async () => {
    await db.close();
    await board.stop();
  });

  describe('a chain A -> B -> C', () => {
    it('only A is claimable; approving A makes B claimable and wakes a waiting worker within 100 ms; C stays blocked', async () => {
      await clearBoard();
      const a = await create({ title: 'write the schema' });
      const b = await create({ title: 'the API', depends_on: [a] });
      const c = await create({ title: 'the tests', depends_on: [b] });

      expect(await claimableIds('w2')).toEqual([a]);
      expect((await task(b)).task).toMatchObject({ depends_on: [a], blocked_by: [a], blocked_by_cancelled: [] });
      expect((await task(a)).dependents).toEqual([b]);
      const refused = await api(board, 'w2', 'claim_task', { task_id: b });
      expect(refused.status).toBe(409);
      expect(refused.body.error?.code).toBe('conflict');
      expect(refused.body.error?.message).toContain(`task ${a}`);
      const ready = (await api(board, 'lead', 'list_tasks', { ready: true })).body.tasks as Body[];
      expect(ready.map((t) => t.id)).toEqual([a]);

      // w1 takes A; now nothing is claimable for w2, which parks.
      expect((await api(board, 'w1', 'claim_task', { task_id: a })).status).toBe(200);
      expect((await api(board, 'w1', 'submit_result', { task_id: a, result: 'schema' })).status).toBe(200);
      const woken = waitCall('w2', { timeout_s: 20, for: ['tasks'] });
      await eventually('w2 to be waiting', () => waiting('w2'));
      const approved = await api(board, 'lead', 'review_task', { task_id: a, verdict: 'approve' });
      const approvedAt = performance.now();
      expect(approved.status).toBe(200);
      const answer = await woken;
      expect(answer).toMatchObject({ reason: 'activity', claimable_tasks: 1 });
      expect(answer.returnedAt - approvedAt).toBeLessThan(100);

      expect(await claimableIds('w2')).toEqual([b]);
      expect((await task(b)).task.blocked_by).toEqual([]);
      expect((await task(c)).task.blocked_by).toEqual([b]);
      const stillBlocked = await api(board, 'w2', 'claim_task', { task_id: c });
      expect(stillBlocked.status).toBe(409);
      expect(stillBlocked.body.error?.message).toContain(`task ${b}`);
    });
  });

  describe('a diamond A -> (B, C) -> D', () => {
    it('D waits for both B and C, and becomes ready only when both are done', async () => {
      await clearBoard();
      const a = await create({ title: 'A' });
      const b = await create({ title: 'B', depends_on: [a] });
      const c = await create({ title: 'C', depends_on: [a] });
      const d = await create({ title: 'D', depends_on: [b, c, b] });
      expect((await task(d)).task.depends_on).toEqual([b, c]);
      expect((await task(a)).dependents).toEqual([b, c]);
      expect(await claimableIds('w1')).toEqual([a]);

      await finish(a);
      expect(await claimableIds('w1')).toEqual([b, c]);
      expect((await task(d)).task.blocked_by).toEqual([b, c]);
      await finish(b);
      expect((await task(d)).task.blocked_by).toEqual([c]);
      expect(await claimableIds('w1')).toEqual([c]);
      await finish(c);
      expect((await task(d)).task.blocked_by).toEqual([]);
      expect(await claimableIds('w1')).toEqual([d]);
    });
  });

  describe('refused dependencies', () => {
    it('a cycle through update_task is refused, naming it, and nothing changes', async () => {
      const a = await create({ title: 'A' });
      const b = await create({ title: 'B', depends_on: [a] });
      const c = await create({ title: 'C', depends_on: [b] });
      const before = await db.snapshot();
      const refused = await api(board, 'lead', 'update_task', { task_id: a, depends_on: [c] });
      expect(refused.status).toBe(400);
      expect(refused.body.error?.code).toBe('invalid_input');
      expect(refused.body.error?.message).toContain(`${a} -> ${c} -> ${b} -> ${a}`);
      expect(await db.snapshot()).toEqual(before);
    });

    it('a missing task, the task itself, or a cancelled task is refused, naming the ids, at creation and at an edit', async () => {
      const a = await create({ title: 'A' });
      const gone = await create({ title: 'gone' });
      await api(board, 'lead', 'cancel_task', { task_id: gone });
      const before = await db.snapshot();
      const cases: Array<[string, Record<string, unknown>, RegExp]> = [
        ['create_task', { title: 't', depends_on: [999_999] }, /task 999999 does not exist/],
        ['create_task', { title: 't', depends_on: [gone] }, new RegExp(`task ${gone} was cancelled`)],
        ['update_task', { task_id: a, depends_on: [a] }, new RegExp(`task ${a} cannot depend on itself`)],
        ['update_task', { task_id: a, depends_on: [999_998] }, /task 999998 does not exist/],
        ['update_task', { task_id: a, depends_on: [gone] }, new RegExp(`task ${gone} was cancelled`)],
      ];
      for (const [tool, args, names] of cases) {
        const answer = await api(board, 'lead', tool, args);
        expect(answer.status, JSON.stringify(args)).toBe(400);
        expect(answer.body.error?.code).toBe('invalid_input');
        expect(answer.body.error?.message).toMatch(names);
        expect(answer.body.error?.message).toContain('depends_on');
      }
      expect(await db.snapshot()).toEqual(before);
    });
  });

  describe('a cancelled blocker', () => {
    it('wakes the leader with a reason of its own, marks its dependents, and they stay blocked until edited', async () => {
      await clearBoard();
      const a = await create({ title: 'A' });
      const b = await create({ title: 'B', depends_on: [a] });
      const c = await create({ title: 'C', depends_on: [a] });

      const leader = waitCall('lead', { timeout_s: 20, for: ['tasks'] });
      await eventually('the leader to be waiting', () => waiting('lead'));
      expect((await api(board, 'lead', 'cancel_task', { task_id: a, reason: 'not needed' })).status).toBe(200);
      const told = await leader;
      expect(told).toMatchObject({ reason: 'blocker_cancelled', stranded_tasks: [b, c] });
      // Woken by the cancel, not found at the end of its 20 s.
      expect(told.waited_ms).toBeLessThan(15_000);

      const detail = await task(b);
      expect(detail.task).toMatchObject({ status: 'open', blocked_by: [a], blocked_by_cancelled: [a] });
      const mark = (detail.history as Body[]).find((h) => h.action === 'blocker_cancelled');
      expect(mark).toMatchObject({ agent: 'roundtable', note: expect.stringContaining(`task ${a}`) });
      expect(await claimableIds('w1')).toEqual([]);
      // Told while it is so: a later wait answers at once, with the same reason.
      expect((await api(board, 'lead', 'wait_for_activity', { timeout_s: 5 })).body).toMatchObject({ reason: 'blocker_cancelled', stranded_tasks: [b, c] });

      // The leader fixes B by editing its dependencies: a waiting worker is woken, and B is no longer stranded.
      const worker = waitCall('w3', { timeout_s: 20, for: ['tasks'] });
      await eventually('w3 to be waiting', () => waiting('w3'));
      expect((await api(board, 'lead', 'update_task', { task_id: b, depends_on: [] })).status).toBe(200);
      const woken = await worker;
      expect(woken).toMatchObject({ reason: 'activity', claimable_tasks: 1 });
      expect(woken.waited_ms).toBeLessThan(15_000);
      expect(await claimableIds('w3')).toEqual([b]);
      expect((await api(board, 'lead', 'wait_for_activity', { timeout_s: 0 })).body.stranded_tasks).toEqual([c]);
    });

    it('in peer mode tells the creator of the stranded task', async () => {
      const peers = await startBoard({
        store,
        agents: [
          { name: 'p1', role: 'peer' },
          { name: 'p2', role: 'peer' },
        ],
      });
      try {
        const a = (await api(peers, 'p1', 'create_task', { title: 'A' })).body.task.id as number;
        const b = (await api(peers, 'p2', 'create_task', { title: 'B', depends_on: [a] })).body.task.id as number;
        // p1 has A to claim, so it waits for reviews only; p2 waits for tasks (nothing is claimable for it: A is its peer's, but open).
        await api(peers, 'p2', 'claim_task', { task_id: a });
        const p2 = api(peers, 'p2', 'wait_for_activity', { timeout_s: 20, for: ['tasks'] });
        await eventually('p2 to be waiting', async () => {
          const members = (await api(peers, 'p1', 'members')).body.members as Array<{ name: string; waiting: boolean }>;
          return members.find((m) => m.name === 'p2')!.waiting;
        });
        expect((await api(peers, 'p1', 'cancel_task', { task_id: a })).status).toBe(200);
        const told = (await p2).body;
        expect(told).toMatchObject({ reason: 'blocker_cancelled', stranded_tasks: [b] });
        expect(told.waited_ms).toBeLessThan(15_000);
        expect((await api(peers, 'p1', 'wait_for_activity', { timeout_s: 0 })).body.stranded_tasks).toEqual([]);
        // Only the creator may fix it.
        expect((await api(peers, 'p1', 'update_task', { task_id: b, depends_on: [] })).body.error?.code).toBe('forbidden');
        expect((await api(peers, 'p2', 'update_task', { task_id: b, depends_on: [] })).status).toBe(200);
      } finally {
        await peers.stop();
      }
    });
  });

  describe('priority', () => {
    it('claimable_by_me and the ready set go by priority then oldest; other listings keep id order unless asked', async () => {
      await clearBoard();
      const low = await create({ title: 'low', priority: 'low' });
      const normal = await create({ title: 'normal' });
      const urgent1 = await create({ title: 'urgent 1', priority: 'urgent' });
      const high = await create({ title: 'high', priority: 'high' });
      const urgent2 = await create({ title: 'urgent 2', priority: 'urgent' });
      const blockedUrgent = await create({ title: 'blocked urgent', priority: 'urgent', depends_on: [low] });
      const byPriority = [urgent1, urgent2, high, normal, low];

      expect(await claimableIds('w1')).toEqual(byPriority);
      expect(((await api(board, 'lead', 'list_tasks', { ready: true })).body.tasks as Body[]).map((t) => t.id)).toEqual(byPriority);
      const all = ((await api(board, 'lead', 'list_tasks', { status: 'open' })).body.tasks as Body[]).map((t) => t.id);
      expect(all).toEqual([low, normal, urgent1, high, urgent2, blockedUrgent]);
      const ordered = ((await api(board, 'lead', 'list_tasks', { status: 'open', order: 'priority' })).body.tasks as Body[]).map((t) => t.id);
      expect(ordered).toEqual([urgent1, urgent2, blockedUrgent, high, normal, low]);
      expect((await task(normal)).task.priority).toBe('normal');

      // Pages of two follow the same order.
      const paged: number[] = [];
      let cursor: string | null = null;
      do {
        const page: Body = (await api(board, 'w1', 'list_tasks', { claimable_by_me: true, limit: 2, ...(cursor && { cursor }) })).body;
        paged.push(...(page.tasks as Body[]).map((t) => t.id as number));
        cursor = page.next_cursor;
      } while (cursor);
      expect(paged).toEqual(byPriority);
      // A cursor of one order is not one of the other.
      const idCursor = (await api(board, 'lead', 'list_tasks', { status: 'open', limit: 1 })).body.next_cursor as string;
      const mixed = await api(board, 'w1', 'list_tasks', { claimable_by_me: true, cursor: idCursor });
      expect(mixed.status).toBe(400);
      expect(mixed.body.error?.message).toContain('cursor');
    });
  });

  describe('update_task', () => {
    it('keeps the old values of each edit in one history row per edit', async () => {
      const id = await create({ title: 'first title', description: 'first description', required_skills: ['python'], assignee: 'w2' });
      const edits: Array<[Record<string, unknown>, string[], Record<string, unknown>]> = [
        [{ title: 'second title', priority: 'high' }, ['title', 'priority'], { title: 'first title', priority: 'normal' }],
        [{ description: 'second description' }, ['description'], { description: 'first description' }],
        [{ required_skills: ['sql'], assignee: null }, ['required_skills', 'assignee'], { required_skills: ['python'], assignee: 'w2' }],
        [{ assignee: 'w1' }, ['assignee'], { assignee: null }],
      ];
      for (const [args, fields, old] of edits) {
        const answer = await api(board, 'lead', 'update_task', { task_id: id, ...args });
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        const history = (await task(id)).history as Body[];
        expect(history[0]).toMatchObject({ action: 'edited', agent: 'lead', edit: { fields, old } });
      }
      const after = (await task(id)).task;
      expect(after).toMatchObject({ title: 'second title', description: 'second description', required_skills: ['sql'], assignee: 'w1', priority: 'high' });
      expect(((await task(id)).history as Body[]).filter((h) => h.action === 'edited')).toHaveLength(4);
      // An edit that changes nothing writes nothing.
      expect((await api(board, 'lead', 'update_task', { task_id: id, title: 'second title' })).status).toBe(200);
      expect(((await task(id)).history as Body[]).filter((h) => h.action === 'edited')).toHaveLength(4);
    });

    it('refuses to change the skills or assignee of a claimed task, but not its priority', async () => {
      const id = await create({ title: 'held', required_skills: ['python'] });
      expect((await api(board, 'w2', 'claim_task', { task_id: id })).status).toBe(200);
      const before = await db.snapshot();
      for (const args of [{ required_skills: ['sql'] }, { assignee: 'w1' }]) {
        const refused = await api(board, 'lead', 'update_task', { task_id: id, ...args });
        expect(refused.status).toBe(409);
        expect(refused.body.error?.message).toMatch(/release it first/i);
      }
      expect(await db.snapshot()).toEqual(before);
      expect((await api(board, 'lead', 'update_task', { task_id: id, priority: 'urgent' })).body.task.priority).toBe('urgent');
    });

    it('wakes a worker a skills edit makes the task claimable for', async () => {
      await clearBoard();
      const id = await create({ title: 'needs sql', required_skills: ['sql'] });
      const w3 = waitCall('w3', { timeout_s: 20, for: ['tasks'] });
      await eventually('w3 to be waiting', () => waiting('w3'));
      expect((await api(board, 'lead', 'update_task', { task_id: id, required_skills: [] })).status).toBe(200);
      const woken = await w3;
      expect(woken).toMatchObject({ reason: 'activity', claimable_tasks: 1 });
      expect(woken.waited_ms).toBeLessThan(15_000);
    });

    it('refuses final tasks, empty edits, and every caller but the leader', async () => {
      const id = await create({ title: 'edit me' });
      const done = await create({ title: 'done' });
      await finish(done);
      const before = await db.snapshot();
      const cases: Array<[string, Record<string, unknown>, number, string]> = [
        ['w1', { task_id: id, title: 'x' }, 403, 'forbidden'],
        ['obs', { task_id: id, title: 'x' }, 403, 'forbidden'],
        ['lead', { task_id: done, title: 'x' }, 409, 'conflict'],
        ['lead', { task_id: id }, 400, 'invalid_input'],
        ['lead', { task_id: 999_999, title: 'x' }, 404, 'not_found'],
      ];
      for (const [agent, args, status, code] of cases) {
        const answer = await api(board, agent, 'update_task', args);
        expect(answer.status, `${agent} ${JSON.stringify(args)}`).toBe(status);
        expect(answer.body.error?.code).toBe(code);
      }
      expect(await db.snapshot()).toEqual(before);
    });
  });

  describe('limits on every new argument', () => {
    it('refuses each over-limit or ill-typed value, naming the field, and changes nothing', async () => {
      const id = await create({ title: 'limits' });
      const before = await db.snapshot();
      const ids = Array.from({ length: 21 }, (_, i) => i + 1);
      const cases: Array<[string, Record<string, unknown>, RegExp]> = [
        ['create_task', { title: 't', depends_on: ids }, /depends_on has more than 20 entries; the limit is 20/],
        ['create_task', { title: 't', depends_on: [0] }, /depends_on/],
        ['create_task', { title: 't', depends_on: ['1'] }, /depends_on/],
        ['create_task', { title: 't', priority: 'soon' }, /priority must be one of urgent, high, normal, low/],
        ['list_tasks', { ready: 'yes' }, /ready must be true or false/],
        ['list_tasks', { order: 'random' }, /order must be/],
        ['update_task', { task_id: id, depends_on: ids }, /depends_on has more than 20 entries/],
        ['update_task', { task_id: id, title: 'x'.repeat(201) }, /title is 201 characters; the limit is 200/],
        ['update_task', { task_id: id, title: '   ' }, /title must not be blank/],
        ['update_task', { task_id: id, description: 'x'.repeat(8001) }, /description is 8001 characters; the limit is 8000/],
        ['update_task', { task_id: id, required_skills: Array.from({ length: 11 }, (_, i) => `s${i}`) }, /required_skills has more than 10/],
        ['update_task', { task_id: id, required_skills: ['x'.repeat(101)] }, /each skill is 101 characters; the limit is 100/],
        ['update_task', { task_id: id, priority: 'soon' }, /priority must be one of/],
        ['update_task', { task_id: id, assignee: 'x'.repeat(101) }, /agent name is 101 characters/],
        ['update_task', { task_id: id, assignee: 'lead' }, /assignee: "lead" is the leader/],
        ['update_task', { task_id: id, assignee: 'nobody' }, /assignee: no agent is called "nobody"/],
        ['update_task', { task_id: id, created_by: 'w1' }, /unknown argument "created_by"/],
      ];
      for (const [tool, args, names] of cases) {
        const answer = await api(board, 'lead', tool, args);
        expect(answer.status, `${tool} ${JSON.stringify(args).slice(0, 80)}`).toBe(400);
        expect(answer.body.error?.code).toBe('invalid_input');
        expect(answer.body.error?.message).toMatch(names);
      }
      expect(await db.snapshot()).toEqual(before);
    });

    it('only a creator may give depends_on or priority: a worker is refused before anything is checked', async () => {
      const answer = await api(board, 'w1', 'create_task', { title: 't', depends_on: [1], priority: 'urgent' });
      expect(answer.status).toBe(403);
    });
  });

  describe('the MCP face and /status', () => {
    it('serves the new fields and update_task through the SDK client, which checks every output schema', async () => {
      const client = await mcpClient(board, 'lead');
      try {
        const a = resultJson(await client.callTool({ name: 'create_task', arguments: { title: 'via mcp', priority: 'low' } })).task.id as number;
        const b = await client.callTool({ name: 'create_task', arguments: { title: 'waits', depends_on: [a] } });
        expect(b.structuredContent).toMatchObject({ task: { depends_on: [a], blocked_by: [a], priority: 'normal' } });
        const edited = await client.callTool({ name: 'update_task', arguments: { task_id: a, title: 'renamed' } });
        expect(edited.isError).toBeFalsy();
        const detail = await client.callTool({ name: 'get_task', arguments: { task_id: a } });
        expect(detail.structuredContent).toMatchObject({ dependents: [(b.structuredContent as Body).task.id] });
        const refused = await client.callTool({ name: 'update_task', arguments: { task_id: a, depends_on: [a] } });
        expect(refused.isError).toBe(true);
        const listed = await client.callTool({ name: 'list_tasks', arguments: { ready: true, order: 'id' } });
        expect(listed.isError).toBeFalsy();
      } finally {
        await client.close();
      }
    });

    it('/status counts ready and blocked tasks, numbers only', async () => {
      await clearBoard();
      const a = await create({ title: 'ready one' });
      await create({ title: 'blocked one', depends_on: [a] });
      await create({ title: 'blocked two', depends_on: [a] });
      const status = (await (await fetch(`${board.url}/status`)).json()) as Body;
      expect(status).toMatchObject({ tasks_ready: 1, tasks_blocked: 2 });
    });
  });
});
