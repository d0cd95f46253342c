// The owner's rules (a person at the table), on both stores and both faces (the JSON API the bridge uses, and /mcp):
// an owner reads what an observer reads; creates, edits and cancels tasks; reviews submissions (the first review of
// one wins, the second gets conflict naming it); force-releases a claim with a note; posts to the room and on tasks;
// and never claims, submits or reserves paths. In peer mode an owner may do all that on any task.
import { ERROR_STATUS, type ErrorCode } from 'roundtable-shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, daemonEnv, mcpClient, resultJson, runCli, startBoard, type AgentSpec, type TestBoard, type TestClient } from '../helpers/board.js';
import { openBoardDb } from '../helpers/board-db.js';
import { eventually } from '../helpers/eventually.js';
import { describeEachStore } from '../helpers/stores.js';

const ROLE_AGENTS: AgentSpec[] = [
  { name: 'lead', role: 'leader' },
  { name: 'alice', role: 'owner' },
  { name: 'bob', role: 'owner' },
  { name: 'w1', role: 'worker', skills: ['python'] },
  { name: 'w2', role: 'worker' },
  { name: 'obs', role: 'observer' },
];
const PEER_AGENTS: AgentSpec[] = [
  { name: 'p1', role: 'peer' },
  { name: 'p2', role: 'peer' },
  { name: 'alice', role: 'owner' },
  { name: 'obs', role: 'observer' },
];
const FACES = ['api', 'mcp'] as const;
type Face = (typeof FACES)[number];

interface Answer {
  readonly status: number;
  readonly body: any;
  /** The error's code and message, when refused. */
  readonly code?: ErrorCode;
  readonly message?: string;
}

describeEachStore((store) => {
  let role: TestBoard;
  let peer: TestBoard;
  const clients = new Map<string, TestClient>();

  beforeAll(async () => {
    [role, peer] = await Promise.all([startBoard({ store, agents: ROLE_AGENTS }), startBoard({ store, agents: PEER_AGENTS })]);
  });
  afterAll(async () => {
    await Promise.all([...clients.values()].map((c) => c.close()));
    await Promise.all([role?.stop(), peer?.stop()]);
  });

  /** One tool call through a face, answered the same way whichever face it went through. */
  async function call(face: Face, board: TestBoard, agent: string, tool: string, args: Record<string, unknown> = {}): Promise<Answer> {
    if (face === 'api') {
      const answer = await api(board, agent, tool, args);
      const error = answer.body.error;
      return { status: answer.status, body: answer.body, ...(error && { code: error.code as ErrorCode, message: error.message }) };
    }
    const key = `${board.url} ${agent}`;
    let client = clients.get(key);
    if (!client) {
      client = await mcpClient(board, agent);
      clients.set(key, client);
    }
    const result = await client.callTool({ name: tool, arguments: args });
    const body = resultJson(result);
    if (!result.isError) return { status: 200, body };
    const code = body.error.code as ErrorCode;
    return { status: ERROR_STATUS[code], body, code, message: body.error.message };
  }

  async function ok(face: Face, board: TestBoard, agent: string, tool: string, args: Record<string, unknown> = {}): Promise<any> {
    const answer = await call(face, board, agent, tool, args);
    expect(answer.status, `${agent} ${tool}: ${answer.message ?? ''}`).toBe(200);
    return answer.body;
  }

  /** A task claimed by a worker (or a peer), and submitted if asked. */
  async function heldTask(face: Face, board: TestBoard, creator: string, holder: string, submit = false): Promise<number> {
    const id = (await ok(face, board, creator, 'create_task', { title: `held by ${holder}` })).task.id as number;
    await ok(face, board, holder, 'claim_task', { task_id: id });
    if (submit) await ok(face, board, holder, 'submit_result', { task_id: id, result: 'done, I think' });
    return id;
  }

  const historyOf = async (board: TestBoard, id: number) =>
    (await api(board, 'obs', 'get_task', { task_id: id, order: 'oldest_first', history_limit: 100 })).body.history as Array<{ action: string; agent: string; note: string | null }>;

  describe.each(FACES)('role mode, through %s', (face) => {
    it('whoami says owner, and tools/list shows what an owner may do and nothing it may not', async () => {
      expect((await ok(face, role, 'alice', 'whoami')).role).toBe('owner');
      const client = await mcpClient(role, 'alice');
      try {
        const names = (await client.listTools()).tools.map((t) => t.name);
        for (const tool of ['create_task', 'update_task', 'cancel_task', 'review_task', 'release_task', 'post_message', 'post', 'members', 'wait_for_activity']) expect(names).toContain(tool);
        for (const tool of ['claim_task', 'submit_result', 'reserve_paths', 'release_paths']) expect(names).not.toContain(tool);
      } finally {
        await client.close();
      }
    });

    it('an owner creates a task with a dependency and an assignee, edits it and cancels it; each history row names the owner', async () => {
      const blocker = (await ok(face, role, 'alice', 'create_task', { title: 'first' })).task.id as number;
      const created = await ok(face, role, 'alice', 'create_task', { title: 'second', depends_on: [blocker], assignee: 'w1', priority: 'high' });
      expect(created.task).toMatchObject({ created_by: 'alice', assignee: 'w1', depends_on: [blocker], blocked_by: [blocker], priority: 'high' });
      const edited = await ok(face, role, 'alice', 'update_task', { task_id: created.task.id, title: 'second, renamed', assignee: null });
      expect(edited.task).toMatchObject({ title: 'second, renamed', assignee: null });
      const cancelled = await ok(face, role, 'alice', 'cancel_task', { task_id: blocker, reason: 'not needed' });
      expect(cancelled.task.status).toBe('cancelled');
      expect((await historyOf(role, created.task.id)).map((h) => `${h.action}:${h.agent}`)).toEqual(['created:alice', 'edited:alice', 'blocker_cancelled:roundtable']);
      expect((await historyOf(role, blocker)).map((h) => `${h.action}:${h.agent}`)).toEqual(['created:alice', 'cancelled:alice']);
      // The leader steers the owner's tasks as it steers its own.
      expect((await call(face, role, 'lead', 'update_task', { task_id: created.task.id, priority: 'low' })).status).toBe(200);
    });

    it('an owner can not be assigned a task: only workers claim', async () => {
      const refused = await call(face, role, 'lead', 'create_task', { title: 'for alice', assignee: 'alice' });
      expect(refused.code).toBe('invalid_input');
      expect(refused.message).toContain('"alice" is an owner; only a worker can be assigned a task');
    });

    it('an owner never claims, submits or reserves paths: each is forbidden and changes nothing', async () => {
      const open = (await ok(face, role, 'lead', 'create_task', { title: 'open' })).task.id as number;
      const held = await heldTask(face, role, 'lead', 'w2');
      for (const [tool, args, words] of [
        ['claim_task', { task_id: open }, 'owners never claim'],
        ['submit_result', { task_id: held, result: 'mine' }, 'only its assignee may submit it'],
        ['reserve_paths', { task_id: held, paths: ['src/**'] }, 'owners never claim, so never reserve paths'],
        ['release_paths', { task_id: held }, 'owners never claim, so never release paths'],
      ] as const) {
        const answer = await call(face, role, 'alice', tool, args);
        expect(answer.code, `${tool}: ${answer.message}`).toBe('forbidden');
        expect(answer.message).toContain(words);
      }
      expect((await api(role, 'obs', 'get_task', { task_id: open })).body.task).toMatchObject({ status: 'open', assignee: null });
      expect((await api(role, 'obs', 'get_task', { task_id: held })).body).toMatchObject({ task: { status: 'claimed', assignee: 'w2' }, reservations: [] });
    });

    it('an owner reviews: reject needs a note and reopens the task; approve makes it done', async () => {
      const id = await heldTask(face, role, 'lead', 'w1', true);
      const noNote = await call(face, role, 'alice', 'review_task', { task_id: id, verdict: 'reject' });
      expect(noNote.code).toBe('invalid_input');
      expect(noNote.message).toContain('note: required to reject');
      expect((await ok(face, role, 'alice', 'review_task', { task_id: id, verdict: 'reject', note: 'add a test' })).task).toMatchObject({ status: 'open', assignee: null });
      await ok(face, role, 'w1', 'claim_task', { task_id: id });
      await ok(face, role, 'w1', 'submit_result', { task_id: id, result: 'with a test' });
      expect((await ok(face, role, 'alice', 'review_task', { task_id: id, verdict: 'approve' })).task.status).toBe('done');
      const detail = (await api(role, 'obs', 'get_task', { task_id: id })).body;
      expect(detail.reviews.map((r: { reviewer: string; verdict: string }) => `${r.reviewer}:${r.verdict}`)).toEqual(['alice:reject', 'alice:approve']);
    });

    it('the leader and an owner review one submission at once: exactly one decision is kept, the other is conflict naming it', async () => {
      for (let round = 0; round < 3; round++) {
        const id = await heldTask(face, role, 'lead', 'w1', true);
        const [a, b] = await Promise.all([
          call(face, role, 'lead', 'review_task', { task_id: id, verdict: 'approve' }),
          call(face, role, 'alice', 'review_task', { task_id: id, verdict: 'reject', note: 'not yet' }),
        ]);
        const winner = a.status === 200 ? { who: 'lead', decision: 'approved', answer: a } : { who: 'alice', decision: 'rejected', answer: b };
        const loser = a.status === 200 ? b : a;
        expect([a.status, b.status].sort()).toEqual([200, 409]);
        expect(loser.code).toBe('conflict');
        expect(loser.message).toMatch(new RegExp(`^task ${id} was already ${winner.decision} by ${winner.who} at \\S+; the first review of a submission wins`));
        const detail = (await api(role, 'obs', 'get_task', { task_id: id })).body;
        expect(detail.reviews).toHaveLength(1);
        expect(detail.reviews[0].reviewer).toBe(winner.who);
        expect(detail.task.status).toBe(winner.decision === 'approved' ? 'done' : 'open');
      }
      // Two owners, one after the other: the second is told who decided, and when.
      const id = await heldTask(face, role, 'lead', 'w1', true);
      await ok(face, role, 'bob', 'review_task', { task_id: id, verdict: 'approve', note: 'good' });
      const late = await call(face, role, 'alice', 'review_task', { task_id: id, verdict: 'approve' });
      expect(late.code).toBe('conflict');
      expect(late.message).toContain(`task ${id} was already approved by bob at`);
    });

    it('a review of a task never submitted is the plain conflict, naming no reviewer', async () => {
      const id = (await ok(face, role, 'lead', 'create_task', { title: 'never submitted' })).task.id as number;
      const answer = await call(face, role, 'alice', 'review_task', { task_id: id, verdict: 'approve' });
      expect(answer.code).toBe('conflict');
      expect(answer.message).toBe(`task ${id} is open, not submitted; only a submitted task can be reviewed`);
    });

    it("an owner force-releases a worker's claim, with a note it must give; the released row names the owner", async () => {
      const id = await heldTask(face, role, 'lead', 'w1');
      const noNote = await call(face, role, 'alice', 'release_task', { task_id: id });
      expect(noNote.code).toBe('invalid_input');
      expect(noNote.message).toContain('note: required to release task');
      const released = await ok(face, role, 'alice', 'release_task', { task_id: id, note: 'w1 crashed' });
      expect(released.task).toMatchObject({ status: 'open', assignee: null, claim_id: null });
      expect((await historyOf(role, id)).at(-1)).toMatchObject({ action: 'released', agent: 'alice', note: 'w1 crashed' });
      // An open task has no claim to take back.
      expect((await call(face, role, 'alice', 'release_task', { task_id: id, note: 'again' })).code).toBe('conflict');
    });

    it('an owner posts to the room, to all and to one member, and posts messages on a task', async () => {
      const all = await ok(face, role, 'alice', 'post', { to: 'all', text: 'stand-up in five' });
      expect(all.recipients).toEqual(['lead', 'w1', 'w2', 'bob', 'obs']);
      const one = await ok(face, role, 'alice', 'post', { to: 'w2', text: 'only for w2' });
      expect(one.recipients).toEqual(['w2']);
      const id = (await ok(face, role, 'lead', 'create_task', { title: 'talk on me' })).task.id as number;
      expect((await ok(face, role, 'alice', 'post_message', { task_id: id, kind: 'reply', text: 'see the room' })).message).toMatchObject({ author: 'alice', kind: 'reply' });
      // A member may write to an owner directly, too: the daemon tells that case apart (ids and names only).
      const direct = await ok(face, role, 'w1', 'post', { to: 'alice', text: 'a question for you' });
      expect(direct.recipients).toEqual(['alice']);
      const line = await eventually('the log line of a direct message to an owner', () =>
        role.output().stderr.split('\n').find((l) => l.includes('direct message to an owner') && l.includes(`"message_id":${direct.message.id}`)),
      );
      expect(JSON.parse(line)).toMatchObject({ from: 'w1', owners: ['alice'] });
      expect(line).not.toContain('a question for you');
      const unread = (await ok(face, role, 'alice', 'read_unread')).messages.map((m: { text: string }) => m.text);
      expect(unread).toContain('a question for you');
    });

    it('an observer still only reads: every writing tool is forbidden to it', async () => {
      const id = await heldTask(face, role, 'lead', 'w2', true);
      for (const [tool, args] of [
        ['create_task', { title: 'x' }],
        ['review_task', { task_id: id, verdict: 'approve' }],
        ['cancel_task', { task_id: id }],
        ['post', { to: 'all', text: 'x' }],
      ] as const) {
        expect((await call(face, role, 'obs', tool, args)).code, tool).toBe('forbidden');
      }
    });
  });

  describe.each(FACES)('peer mode, through %s', (face) => {
    it("an owner edits and cancels any peer's task; another peer may not", async () => {
      const id = (await ok(face, peer, 'p1', 'create_task', { title: "p1's task" })).task.id as number;
      expect((await call(face, peer, 'p2', 'update_task', { task_id: id, title: 'p2 renames it' })).code).toBe('forbidden');
      expect((await ok(face, peer, 'alice', 'update_task', { task_id: id, title: 'alice renames it' })).task.title).toBe('alice renames it');
      expect((await call(face, peer, 'p2', 'cancel_task', { task_id: id })).code).toBe('forbidden');
      expect((await ok(face, peer, 'alice', 'cancel_task', { task_id: id, reason: 'dropped' })).task.status).toBe('cancelled');
      const own = (await ok(face, peer, 'alice', 'create_task', { title: "alice's task", assignee: 'p2' })).task;
      expect(own).toMatchObject({ created_by: 'alice', assignee: 'p2' });
    });

    it('an owner reviews any submission, and force-releases any claim', async () => {
      // p2 holds a task p1 created: only p1 (its creator) and an owner may take the claim back.
      const held = await heldTask(face, peer, 'p1', 'p2');
      expect((await ok(face, peer, 'alice', 'release_task', { task_id: held, note: 'p2 went quiet' })).task.status).toBe('open');
      const submitted = await heldTask(face, peer, 'p2', 'p1', true);
      expect((await ok(face, peer, 'alice', 'review_task', { task_id: submitted, verdict: 'approve' })).task.status).toBe('done');
    });

    it('an owner never claims in peer mode either', async () => {
      const id = (await ok(face, peer, 'p1', 'create_task', { title: 'claimable' })).task.id as number;
      const answer = await call(face, peer, 'alice', 'claim_task', { task_id: id });
      expect(answer.code).toBe('forbidden');
      expect(answer.message).toContain('owners never claim');
    });
  });

  it("every call's audit row records the face it came through and the owner's name, refusals included", async () => {
    const viaApi = (await ok('api', role, 'alice', 'create_task', { title: 'audited through the API' })).task.id as number;
    const viaMcp = (await ok('mcp', role, 'alice', 'create_task', { title: 'audited through MCP' })).task.id as number;
    await call('mcp', role, 'alice', 'claim_task', { task_id: viaApi });
    const db = openBoardDb(role);
    try {
      const rows = await eventually('the refused call to be in the audit log', async () => {
        const found = await db.rows<{ tool: string; task_id: number; outcome: string; face: string | null }>(
          `SELECT tool, task_id, outcome, face FROM audit_log WHERE agent = 'alice' AND task_id IN (${viaApi}, ${viaMcp}) ORDER BY id`,
        );
        return found.length === 3 && found;
      });
      expect(rows).toEqual([
        { tool: 'create_task', task_id: viaApi, outcome: 'ok', face: 'api' },
        { tool: 'create_task', task_id: viaMcp, outcome: 'ok', face: 'mcp' },
        { tool: 'claim_task', task_id: viaApi, outcome: 'forbidden', face: 'mcp' },
      ]);
    } finally {
      await db.close();
    }
  });

  it('`roundtable agents add NAME --role owner` prints a token once, and it works as an owner at once', async () => {
    const env = daemonEnv(role.dir, role.databaseUrl ? { ROUNDTABLE_DATABASE_URL: role.databaseUrl } : {});
    const added = await runCli(['agents', 'add', 'carol', '--role', 'owner', '--json'], env);
    expect(added.code, added.stderr).toBe(0);
    const { token } = JSON.parse(added.stdout) as { token: string };
    const me = await eventually('the new owner token to work', async () => {
      const answer = await api(role, token, 'whoami');
      return answer.status === 200 && answer.body;
    });
    expect(me).toMatchObject({ name: 'carol', role: 'owner' });
    expect((await api(role, token, 'create_task', { title: "carol's first task" })).status).toBe(200);
  });
});
