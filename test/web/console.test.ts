// The person's console on both stores (issue 36): GET /view/needs lists what waits on the signed-in person by role
// (submissions to review, help requests, direct messages, tasks stranded by a cancelled blocker, lapsed claims), each
// leaving when handled; GET /view/progress gives the burn-up, tasks finished per day, cycle time (median, p90) per
// agent and overall, and work in progress, equal to the figures this test computes from the tasks' own history.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, startBoard, type AgentSpec, type TestBoard } from '../helpers/board.js';
import { openBoardDb, type BoardDb } from '../helpers/board-db.js';
import { eventually } from '../helpers/eventually.js';
import { pageAction, signInPage, type PageSession } from '../helpers/page-session.js';
import { describeEachStore } from '../helpers/stores.js';

const AGENTS: AgentSpec[] = [
  { name: 'lead', role: 'leader' },
  { name: 'w1', role: 'worker' },
  { name: 'w2', role: 'worker' },
  { name: 'alice', role: 'owner' },
  { name: 'viewer', role: 'observer' },
];

interface Need {
  kind: string;
  task_id?: number;
  message_id?: number;
  title?: string;
  who?: string;
}

interface Progress {
  from: string;
  to: string;
  days: Array<{ day: string; total: number; done_total: number; done: number }>;
  cycle_time: { overall: Cycle; per_agent: Array<Cycle & { agent: string }> };
  wip: Array<{ agent: string; claimed: number }>;
}
interface Cycle {
  tasks: number;
  median_hours: number | null;
  p90_hours: number | null;
}

const DAY = 86_400_000;

describeEachStore((store) => {
  let board: TestBoard;
  let db: BoardDb;
  const sessions = new Map<string, PageSession>();
  beforeAll(async () => {
    board = await startBoard({ store, agents: AGENTS });
    db = openBoardDb(board);
  });
  afterAll(async () => {
    await db?.close();
    await board?.stop();
  });

  async function view<T>(name: string, path: string): Promise<{ status: number; body: T }> {
    if (!sessions.has(name)) sessions.set(name, await signInPage(board, name));
    const response = await fetch(`${board.url}/view/${path}`, { headers: { cookie: `rt_session=${sessions.get(name)!.cookie}` } });
    return { status: response.status, body: (await response.json()) as T };
  }
  const needs = async (name: string) => {
    const answer = await view<{ items: Need[]; count: number }>(name, 'needs');
    expect(answer.status).toBe(200);
    return answer.body;
  };
  const keys = async (name: string) => (await needs(name)).items.map((n) => `${n.kind}:${n.task_id ?? n.message_id}`).sort();

  const ok = async (agent: string, tool: string, args: unknown) => {
    const answer = await api(board, agent, tool, args);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  };
  const create = async (title: string, extra: Record<string, unknown> = {}) => (await ok('lead', 'create_task', { title, ...extra }))['task']['id'] as number;

  it('lists what needs each person by role, and each item leaves when handled', async () => {
    const submitted = await create('to review');
    const helped = await create('needs help');
    const blocker = await create('a blocker');
    const stranded = await create('waits on the blocker', { depends_on: [blocker] });
    await ok('w1', 'claim_task', { task_id: submitted });
    await ok('w1', 'submit_result', { task_id: submitted, result: 'done' });
    await ok('w2', 'claim_task', { task_id: helped });
    await ok('w2', 'post_message', { task_id: helped, kind: 'help_request', text: 'stuck' });
    const direct = (await ok('lead', 'post', { to: 'alice', text: 'a word for alice' }))['message']['id'] as number;
    await ok('lead', 'post', { to: 'all', text: 'to everyone: not a direct message' });
    await ok('lead', 'cancel_task', { task_id: blocker, reason: 'not needed' });

    const owner = await needs('alice');
    expect(owner.items.map((n) => `${n.kind}:${n.task_id ?? n.message_id}`).sort()).toEqual(
      [`blocked:${stranded}`, `help:${helped}`, `message:${direct}`, `review:${submitted}`].sort(),
    );
    expect(owner.count).toBe(4);
    expect(owner.items.find((n) => n.kind === 'review')).toMatchObject({ title: 'to review', who: 'w1' });
    expect(owner.items.find((n) => n.kind === 'help')).toMatchObject({ title: 'needs help', who: 'w2' });
    expect(owner.items.find((n) => n.kind === 'message')).toMatchObject({ who: 'lead' });
    // The leader steers too, but the direct message was not to it; a worker and an observer have nothing here.
    expect(await keys('lead')).toEqual([`blocked:${stranded}`, `help:${helped}`, `review:${submitted}`].sort());
    expect(await keys('w1')).toEqual([]);
    expect(await keys('viewer')).toEqual([]);

    // Handled: reviewed, answered on the task, edited off the cancelled blocker, and the message read.
    await ok('lead', 'review_task', { task_id: submitted, verdict: 'approve' });
    await ok('lead', 'post_message', { task_id: helped, kind: 'reply', text: 'try the draft' });
    await ok('lead', 'update_task', { task_id: stranded, depends_on: [] });
    expect(await keys('alice')).toEqual([`message:${direct}`]);
    const session = sessions.get('alice')!;
    const read = await pageAction(board, session, 'read_unread', {});
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(await needs('alice')).toEqual({ items: [], count: 0 });

    // A reply in the room answers a direct message too: alice posts to its author after it.
    const second = (await ok('lead', 'post', { to: ['alice'], text: 'and another' }))['message']['id'] as number;
    expect(await keys('alice')).toEqual([`message:${second}`]);
    expect((await pageAction(board, session, 'post', { to: 'lead', text: 'seen, thanks' })).status).toBe(200);
    expect(await keys('alice')).toEqual([]);
  });

  it('a lapsed claim is listed for those who steer until the task is claimed again', async () => {
    const short = await startBoard({ store, agents: AGENTS, env: { ROUNDTABLE_LEASE_TTL: '1s' } });
    try {
      const alice = await signInPage(short, 'alice');
      const read = async () => {
        const response = await fetch(`${short.url}/view/needs`, { headers: { cookie: `rt_session=${alice.cookie}` } });
        return ((await response.json()) as { items: Need[] }).items;
      };
      const id = (await api(short, 'lead', 'create_task', { title: 'will lapse' })).body['task']['id'] as number;
      expect((await api(short, 'w1', 'claim_task', { task_id: id })).status).toBe(200);
      await eventually('the lapse to be listed', async () => (await read()).some((n) => n.kind === 'lapsed' && n.task_id === id));
      expect((await read()).find((n) => n.kind === 'lapsed')).toMatchObject({ task_id: id, who: 'w1', title: 'will lapse' });
      expect((await api(short, 'w2', 'claim_task', { task_id: id })).status).toBe(200);
      expect((await read()).filter((n) => n.kind === 'lapsed')).toEqual([]);
    } finally {
      await short.stop();
    }
  });

  it('progress equals the figures computed from the tasks\' history', async () => {
    // A plan spread over ten days: the history's times are moved back, as if the work had taken that long.
    const now = Date.now();
    const ids: number[] = [];
    for (let i = 0; i < 8; i++) ids.push(await create(`progress ${i}`));
    for (const [i, id] of ids.entries()) {
      if (i >= 6) continue; // two stay open
      const worker = i % 2 === 0 ? 'w1' : 'w2';
      await ok(worker, 'claim_task', { task_id: id });
      if (i === 5) continue; // one stays claimed: work in progress
      await ok(worker, 'submit_result', { task_id: id, result: `result ${i}` });
      if (i === 4) await ok('lead', 'review_task', { task_id: id, verdict: 'reject', note: 'again' });
      else await ok('lead', 'review_task', { task_id: id, verdict: 'approve' });
    }
    await ok('lead', 'cancel_task', { task_id: ids[7], reason: 'dropped' });
    for (const [i, id] of ids.entries()) {
      const rows = await db.rows<{ id: number; action: string }>(`SELECT id, action FROM activity WHERE task_id = ${id} ORDER BY id`);
      const start = now - (9 - i) * DAY - 3_600_000;
      for (const [j, row] of rows.entries()) {
        // Each step of task i takes (i + 1) * 1.5 hours.
        const at = new Date(start + j * (i + 1) * 5_400_000).toISOString();
        await db.exec(`UPDATE activity SET created_at = '${at}' WHERE id = ${row.id}`);
      }
    }

    // The expected figures, from each task's history as get_task gives it (every row, oldest first).
    const history: Array<{ id: number; task_id: number; action: string; assignee: string | null; created_at: string }> = [];
    const all = (await ok('lead', 'list_tasks', { limit: 100 }))['tasks'] as Array<{ id: number }>;
    for (const t of all) history.push(...((await ok('lead', 'get_task', { task_id: t.id, history_limit: 100 }))['history'] as typeof history));
    history.sort((a, b) => a.id - b.id);
    const days = Array.from({ length: 30 }, (_, k) => new Date(now - (29 - k) * DAY).toISOString().slice(0, 10));
    const upTo = (action: string, day: string) => history.filter((h) => h.action === action && h.created_at.slice(0, 10) <= day).length;
    const expectedDays = days.map((day) => ({
      day,
      total: upTo('created', day) - upTo('cancelled', day),
      done_total: upTo('approved', day),
      done: history.filter((h) => h.action === 'approved' && h.created_at.slice(0, 10) === day).length,
    }));
    const cycles = new Map<string, number[]>();
    for (const done of history.filter((h) => h.action === 'approved' && h.created_at.slice(0, 10) >= days[0]!)) {
      const claim = history.filter((h) => h.task_id === done.task_id && h.action === 'claimed' && h.id < done.id).at(-1)!;
      const hours = (Date.parse(done.created_at) - Date.parse(claim.created_at)) / 3_600_000;
      for (const key of ['*', done.assignee!]) cycles.set(key, [...(cycles.get(key) ?? []), hours]);
    }
    const nearestRank = (values: number[], p: number) => {
      const sorted = [...values].sort((a, b) => a - b);
      return Math.round(sorted[Math.ceil((p / 100) * sorted.length) - 1]! * 100) / 100;
    };
    const figures = (values: number[]) => ({ tasks: values.length, median_hours: nearestRank(values, 50), p90_hours: nearestRank(values, 90) });

    const answer = await view<Progress>('alice', 'progress');
    expect(answer.status).toBe(200);
    const progress = answer.body;
    expect(progress.from).toBe(days[0]);
    expect(progress.to).toBe(days.at(-1));
    expect(progress.days).toEqual(expectedDays);
    expect(progress.cycle_time.overall).toEqual(figures(cycles.get('*')!));
    expect(progress.cycle_time.per_agent).toEqual(['w1', 'w2'].filter((a) => cycles.has(a)).map((agent) => ({ agent, ...figures(cycles.get(agent)!) })));
    const claimed = (await ok('lead', 'list_tasks', { status: 'claimed', limit: 100 }))['tasks'] as Array<{ assignee: string }>;
    const wip = new Map<string, number>();
    for (const t of claimed) wip.set(t.assignee, (wip.get(t.assignee) ?? 0) + 1);
    expect(progress.wip).toEqual([...wip.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([agent, n]) => ({ agent, claimed: n })));
    expect(wip.get('w2')).toBeGreaterThanOrEqual(1);
    // Sanity: four approvals spread over days, with cycle times in hours, not zero.
    expect(cycles.get('*')!.length).toBeGreaterThanOrEqual(4);
    expect(progress.cycle_time.overall.median_hours).toBeGreaterThan(1);

    // A shorter window; a bad one names the field.
    expect((await view<Progress>('viewer', 'progress?days=7')).body.days).toHaveLength(7);
    const bad = await view<{ error: { code: string; message: string } }>('alice', 'progress?days=0');
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^days:/);
  });
});
