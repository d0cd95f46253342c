// GET /overview on both stores (issue 33): each project of the signed-in principal with its role, its tasks by state,
// what waits on them there (submissions to review, help requests nobody answered, room messages to them by name,
// unread) and the agents active now. PostgreSQL serves only the project `default` for now, so one project is enough.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, startBoard, type AgentSpec, type TestBoard } from '../helpers/board.js';
import { signInPage } from '../helpers/page-session.js';
import { describeEachStore } from '../helpers/stores.js';

const AGENTS: AgentSpec[] = [
  { name: 'lead', role: 'leader' },
  { name: 'w1', role: 'worker' },
  { name: 'w2', role: 'worker' },
  { name: 'alice', role: 'owner' },
  { name: 'viewer', role: 'observer' },
];

interface OverviewProject {
  slug: string;
  role: string;
  tasks: Record<string, number> | null;
  waiting: { to_review: number; help_requests: number; messages: number } | null;
  active_agents: number | null;
}

describeEachStore((store) => {
  let board: TestBoard;
  beforeAll(async () => {
    board = await startBoard({ store, agents: AGENTS });
  });
  afterAll(async () => {
    await board?.stop();
  });

  async function overviewOf(name: string): Promise<OverviewProject[]> {
    const session = await signInPage(board, name);
    const response = await fetch(`${board.url}/overview`, { headers: { cookie: `rt_session=${session.cookie}` } });
    expect(response.status).toBe(200);
    return ((await response.json()) as { projects: OverviewProject[] }).projects;
  }

  const ok = async (agent: string, tool: string, args: unknown) => {
    const answer = await api(board, agent, tool, args);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  };

  it('counts what waits on each person by their role, and the agents active now', async () => {
    const submitted = (await ok('lead', 'create_task', { title: 'to submit' }))['task']['id'];
    const helped = (await ok('lead', 'create_task', { title: 'needs help' }))['task']['id'];
    await ok('lead', 'create_task', { title: 'open one' });
    await ok('w1', 'claim_task', { task_id: submitted });
    await ok('w1', 'submit_result', { task_id: submitted, result: 'done' });
    await ok('w1', 'claim_task', { task_id: helped });
    await ok('w1', 'post_message', { task_id: helped, kind: 'help_request', text: 'stuck on the schema' });
    await ok('lead', 'post', { to: 'alice', text: 'a word for alice' });
    await ok('lead', 'post', { to: 'all', text: 'for everyone: not "to them"' });

    const [owner] = await overviewOf('alice');
    expect(owner).toMatchObject({ slug: 'default', role: 'owner', tasks: { open: 1, claimed: 1, submitted: 1, done: 0, cancelled: 0 } });
    expect(owner!.waiting).toEqual({ to_review: 1, help_requests: 1, messages: 1 });
    // lead and w1 called just now; w2 never did; the people are not counted as agents.
    expect(owner!.active_agents).toBe(2);

    // An observer acts on nothing: only messages to them wait.
    const [observer] = await overviewOf('viewer');
    expect(observer).toMatchObject({ role: 'observer', waiting: { to_review: 0, help_requests: 0, messages: 0 } });

    // A reply answers the help request; a message read over MCP is no longer waiting.
    await ok('lead', 'post_message', { task_id: helped, kind: 'reply', text: 'use the draft' });
    await ok('lead', 'post', { to: ['viewer'], text: 'a word for the viewer' });
    expect((await overviewOf('alice'))[0]!.waiting).toEqual({ to_review: 1, help_requests: 0, messages: 1 });
    expect((await overviewOf('viewer'))[0]!.waiting).toEqual({ to_review: 0, help_requests: 0, messages: 1 });
    await ok('alice', 'read_unread', {});
    expect((await overviewOf('alice'))[0]!.waiting).toEqual({ to_review: 1, help_requests: 0, messages: 0 });

    // A worker reviews nothing and answers no help request.
    const [worker] = await overviewOf('w1');
    expect(worker).toMatchObject({ role: 'worker', waiting: { to_review: 0, help_requests: 0, messages: 0 } });
  });
});
