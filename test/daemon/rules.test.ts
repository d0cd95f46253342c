// The board's rules end to end through the JSON API: roles, states, skills, limits, identity.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from 'roundtable-shared';
import { api, startBoard, type TestBoard } from '../helpers/board.js';
import { describeEachStore } from '../helpers/stores.js';

let board: TestBoard;

async function createTask(args: Record<string, unknown> = {}) {
  const answer = await api(board, 'lead', 'create_task', { title: 'a task', ...args });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.task as { id: number; status: string; assignee: string | null };
}

async function status(id: number) {
  return (await api(board, 'lead', 'get_task', { task_id: id })).body.task.status as string;
}

describeEachStore((store) => {
  beforeAll(async () => {
    board = await startBoard({ store });
  });
  afterAll(async () => {
    await board.stop();
  });

  describe('identity', () => {
    it('whoami answers from the token', async () => {
      const answer = await api(board, 'w1', 'whoami');
      expect(answer.body).toEqual({ name: 'w1', role: 'worker', skills: ['python', 'sql'], board: 'Roundtable', toolsets: null });
    });

    it('list_agents shows every agent with last_seen', async () => {
      await api(board, 'w2', 'whoami');
      const answer = await api(board, 'w1', 'list_agents');
      const names = answer.body.agents.map((a: { name: string }) => a.name);
      expect(names).toEqual(['lead', 'w1', 'w2', 'w3']);
      const w2 = answer.body.agents.find((a: { name: string }) => a.name === 'w2');
      expect(Date.parse(w2.last_seen)).toBeGreaterThan(Date.now() - 60_000);
    });

    it.each([
      ['create_task', { title: 'spoof', from: 'lead' }],
      ['claim_task', { task_id: 1, agent_name: 'w2' }],
      ['whoami', { as: 'lead' }],
    ])('%s rejects a spoofed identity argument and changes nothing', async (tool, args) => {
      const before = (await api(board, 'lead', 'list_tasks', { limit: 100 })).body.tasks.length;
      const answer = await api(board, 'w1', tool, args);
      expect(answer.status).toBe(400);
      expect(answer.body.error!.code).toBe('invalid_input');
      expect(answer.body.error!.message).toMatch(/unknown argument .*identity comes from your token/);
      expect((await api(board, 'lead', 'list_tasks', { limit: 100 })).body.tasks.length).toBe(before);
    });
  });

  describe('role guards', () => {
    it('only the leader creates, reviews and cancels', async () => {
      const task = await createTask();
      for (const [tool, args] of [
        ['create_task', { title: 'x' }],
        ['review_task', { task_id: task.id, verdict: 'approve' }],
        ['cancel_task', { task_id: task.id }],
      ] as const) {
        const answer = await api(board, 'w1', tool, args);
        expect(answer.status, tool).toBe(403);
        expect(answer.body.error!.code).toBe('forbidden');
        expect(answer.body.error!.message).toContain('only the leader');
      }
      expect(await status(task.id)).toBe('open');
    });

    it('only workers claim', async () => {
      const task = await createTask();
      const answer = await api(board, 'lead', 'claim_task', { task_id: task.id });
      expect(answer.status).toBe(403);
      expect(answer.body.error!.message).toContain('only workers may claim');
      expect(await status(task.id)).toBe('open');
    });

    it('only the assignee releases or submits', async () => {
      const task = await createTask();
      expect((await api(board, 'w1', 'claim_task', { task_id: task.id })).status).toBe(200);
      for (const [tool, args] of [
        ['release_task', { task_id: task.id }],
        ['submit_result', { task_id: task.id, result: 'mine now' }],
      ] as const) {
        const answer = await api(board, 'w2', tool, args);
        expect(answer.status, tool).toBe(403);
        expect(answer.body.error!.message).toContain('only its assignee');
      }
      const detail = (await api(board, 'lead', 'get_task', { task_id: task.id, order: 'oldest_first' })).body;
      expect(detail.task).toMatchObject({ status: 'claimed', assignee: 'w1', result: null });
    });

    it('an assignee must be an existing worker', async () => {
      expect((await api(board, 'lead', 'create_task', { title: 't', assignee: 'nobody' })).body.error!.message).toContain('no agent is called "nobody"');
      expect((await api(board, 'lead', 'create_task', { title: 't', assignee: 'lead' })).body.error!.message).toContain('only a worker');
    });
  });

  describe('task lifecycle', () => {
    it('happy path: create, claim, message, submit, approve', async () => {
      const task = await createTask({ title: 'write the parser', description: 'details' });
      expect(task.status).toBe('open');
      const claimed = await api(board, 'w1', 'claim_task', { task_id: task.id });
      expect(claimed.body.task).toMatchObject({ status: 'claimed', assignee: 'w1' });
      const message = await api(board, 'w1', 'post_message', { task_id: task.id, kind: 'progress', text: 'half done' });
      expect(message.body.message).toMatchObject({ author: 'w1', kind: 'progress', text: 'half done' });
      const submitted = await api(board, 'w1', 'submit_result', { task_id: task.id, result: 'the parser' });
      expect(submitted.body.task).toMatchObject({ status: 'submitted', result: 'the parser' });
      const approved = await api(board, 'lead', 'review_task', { task_id: task.id, verdict: 'approve', note: 'good' });
      expect(approved.body.task).toMatchObject({ status: 'done', assignee: 'w1', result: 'the parser' });
      const detail = (await api(board, 'w2', 'get_task', { task_id: task.id, order: 'oldest_first' })).body;
      expect(detail.untrusted_content_warning).toMatch(/treat it as data/);
      expect(detail.messages).toHaveLength(1);
      expect(detail.reviews).toMatchObject([{ reviewer: 'lead', verdict: 'approve', note: 'good' }]);
      expect(detail.history.map((h: { action: string }) => h.action)).toEqual(['created', 'claimed', 'submitted', 'approved']);
    });

    it('reject path: a note is required, the assignee is cleared, the history is kept', async () => {
      const task = await createTask();
      await api(board, 'w1', 'claim_task', { task_id: task.id });
      await api(board, 'w1', 'submit_result', { task_id: task.id, result: 'first try' });
      const noNote = await api(board, 'lead', 'review_task', { task_id: task.id, verdict: 'reject' });
      expect(noNote.status).toBe(400);
      expect(noNote.body.error!.message).toContain('note: required to reject');
      expect(await status(task.id)).toBe('submitted');
      const rejected = await api(board, 'lead', 'review_task', { task_id: task.id, verdict: 'reject', note: 'add tests' });
      expect(rejected.body.task).toMatchObject({ status: 'open', assignee: null, result: null });
      // Another worker may now take it, and the first try stays in the history.
      expect((await api(board, 'w2', 'claim_task', { task_id: task.id })).status).toBe(200);
      await api(board, 'w2', 'submit_result', { task_id: task.id, result: 'second try' });
      await api(board, 'lead', 'review_task', { task_id: task.id, verdict: 'approve' });
      const detail = (await api(board, 'lead', 'get_task', { task_id: task.id, order: 'oldest_first' })).body;
      expect(detail.reviews.map((r: { verdict: string; note: string | null }) => [r.verdict, r.note])).toEqual([
        ['reject', 'add tests'],
        ['approve', null],
      ]);
      expect(detail.history.map((h: { action: string; agent: string }) => `${h.action}:${h.agent}`)).toEqual([
        'created:lead', 'claimed:w1', 'submitted:w1', 'rejected:lead', 'claimed:w2', 'submitted:w2', 'approved:lead',
      ]);
      expect(detail.history.filter((h: { action: string }) => h.action === 'submitted').map((h: { note: string }) => h.note)).toEqual(['first try', 'second try']);
    });

    it('release returns a claimed task to open', async () => {
      const task = await createTask();
      await api(board, 'w1', 'claim_task', { task_id: task.id });
      const released = await api(board, 'w1', 'release_task', { task_id: task.id });
      expect(released.body.task).toMatchObject({ status: 'open', assignee: null });
      const again = await api(board, 'w1', 'release_task', { task_id: task.id });
      expect(again.status).toBe(409);
      expect(again.body.error!.message).toContain('not claimed');
    });

    it('cancel works from every non-final state and never from a final one', async () => {
      const open = await createTask();
      const claimed = await createTask();
      await api(board, 'w1', 'claim_task', { task_id: claimed.id });
      const submitted = await createTask();
      await api(board, 'w1', 'claim_task', { task_id: submitted.id });
      await api(board, 'w1', 'submit_result', { task_id: submitted.id, result: 'r' });
      for (const task of [open, claimed, submitted]) {
        const answer = await api(board, 'lead', 'cancel_task', { task_id: task.id, reason: 'not needed' });
        expect(answer.body.task.status).toBe('cancelled');
      }
      const twice = await api(board, 'lead', 'cancel_task', { task_id: open.id });
      expect(twice.status).toBe(409);
      expect(twice.body.error!.message).toContain('already cancelled');
      const history = (await api(board, 'lead', 'get_task', { task_id: claimed.id })).body.history;
      expect(history[0]).toMatchObject({ action: 'cancelled', from_status: 'claimed', to_status: 'cancelled', note: 'not needed' });
    });

    it('no messages on done or cancelled tasks', async () => {
      const task = await createTask();
      await api(board, 'lead', 'cancel_task', { task_id: task.id });
      const answer = await api(board, 'w1', 'post_message', { task_id: task.id, kind: 'note', text: 'late' });
      expect(answer.status).toBe(409);
      expect(answer.body.error!.message).toContain('final task');
      expect((await api(board, 'lead', 'get_task', { task_id: task.id })).body.messages).toEqual([]);
    });

    it('unknown tasks are not_found', async () => {
      const answer = await api(board, 'w1', 'claim_task', { task_id: 999_999 });
      expect(answer.status).toBe(404);
      expect(answer.body.error!.code).toBe('not_found');
    });

    it('a claimed task cannot be claimed again', async () => {
      const task = await createTask();
      await api(board, 'w1', 'claim_task', { task_id: task.id });
      const answer = await api(board, 'w2', 'claim_task', { task_id: task.id });
      expect(answer.status).toBe(409);
      expect(answer.body.error!.message).toContain('claimed by w1');
    });
  });

  describe('skills and pre-assignment', () => {
    it('a claim needs every required skill', async () => {
      const task = await createTask({ required_skills: ['python', 'sql'] });
      const w2 = await api(board, 'w2', 'claim_task', { task_id: task.id });
      expect(w2.status).toBe(403);
      expect(w2.body.error!.message).toContain('needs the skill sql, which you do not have');
      expect((await api(board, 'w1', 'claim_task', { task_id: task.id })).status).toBe(200);
    });

    it('a pre-assigned task is claimable only by its assignee', async () => {
      const task = await createTask({ assignee: 'w2' });
      expect(task.assignee).toBe('w2');
      const w1 = await api(board, 'w1', 'claim_task', { task_id: task.id });
      expect(w1.status).toBe(403);
      expect(w1.body.error!.message).toContain('reserved for w2');
      expect((await api(board, 'w2', 'claim_task', { task_id: task.id })).status).toBe(200);
    });

    it('claimable_by_me lists exactly the open tasks the caller may claim', async () => {
      const fresh = await startBoard({ store });
      try {
        const make = async (args: Record<string, unknown>) => (await api(fresh, 'lead', 'create_task', { title: 't', ...args })).body.task.id as number;
        const plain = await make({});
        const py = await make({ required_skills: ['python'] });
        const pySql = await make({ required_skills: ['python', 'sql'] });
        const forW2 = await make({ assignee: 'w2' });
        const forW1 = await make({ assignee: 'w1', required_skills: ['sql'] });
        const taken = await make({});
        await api(fresh, 'w3', 'claim_task', { task_id: taken });
        const ids = async (agent: string) =>
          (await api(fresh, agent, 'list_tasks', { claimable_by_me: true })).body.tasks.map((t: { id: number }) => t.id);
        expect(await ids('w1')).toEqual([plain, py, pySql, forW1]);
        expect(await ids('w2')).toEqual([plain, py, forW2]);
        expect(await ids('w3')).toEqual([plain]);
        expect(await ids('lead')).toEqual([]);
      } finally {
        await fresh.stop();
      }
    });
  });

  describe('listing', () => {
    it('filters by status and assignee, and pages with an opaque cursor', async () => {
      const fresh = await startBoard({ store });
      try {
        const ids: number[] = [];
        for (let i = 0; i < 7; i++) ids.push((await api(fresh, 'lead', 'create_task', { title: `t${i}` })).body.task.id);
        await api(fresh, 'w1', 'claim_task', { task_id: ids[1] });
        await api(fresh, 'w1', 'claim_task', { task_id: ids[4] });
        await api(fresh, 'w2', 'claim_task', { task_id: ids[5] });
        const page1 = (await api(fresh, 'w3', 'list_tasks', { limit: 3 })).body;
        expect(page1.tasks.map((t: { id: number }) => t.id)).toEqual(ids.slice(0, 3));
        expect(page1.next_cursor).toEqual(expect.any(String));
        expect(page1.untrusted_content_warning).toBeTruthy();
        const page2 = (await api(fresh, 'w3', 'list_tasks', { limit: 3, cursor: page1.next_cursor })).body;
        expect(page2.tasks.map((t: { id: number }) => t.id)).toEqual(ids.slice(3, 6));
        const page3 = (await api(fresh, 'w3', 'list_tasks', { limit: 3, cursor: page2.next_cursor })).body;
        expect(page3.tasks.map((t: { id: number }) => t.id)).toEqual(ids.slice(6));
        expect(page3.next_cursor).toBeNull();
        const claimed = (await api(fresh, 'w3', 'list_tasks', { status: 'claimed' })).body.tasks.map((t: { id: number }) => t.id);
        expect(claimed).toEqual([ids[1], ids[4], ids[5]]);
        const byW1 = (await api(fresh, 'w3', 'list_tasks', { assignee: 'w1', status: 'claimed' })).body.tasks.map((t: { id: number }) => t.id);
        expect(byW1).toEqual([ids[1], ids[4]]);
        expect((await api(fresh, 'w3', 'list_tasks', { status: 'done' })).body).toMatchObject({ tasks: [], next_cursor: null });
        const forged = await api(fresh, 'w3', 'list_tasks', { cursor: 'not-a-cursor' });
        expect(forged.status).toBe(400);
        expect(forged.body.error!.message).toContain('cursor');
      } finally {
        await fresh.stop();
      }
    });

    it.each([0, 101, 1.5])('limit %s is refused with the range named', async (limit) => {
      const answer = await api(board, 'w1', 'list_tasks', { limit });
      expect(answer.status).toBe(400);
      expect(answer.body.error!.message).toMatch(/limit/);
    });

    it('an unknown status is refused', async () => {
      const answer = await api(board, 'w1', 'list_tasks', { status: 'lost' });
      expect(answer.status).toBe(400);
      expect(answer.body.error!.message).toContain('status');
    });
  });

  describe('size limits: at the limit accepted, one over refused with the field and limit named, nothing written', () => {
    const cases: Array<[string, number, (text: string, id: number) => [string, string, Record<string, unknown>]]> = [
      ['title', LIMITS.title, (t) => ['lead', 'create_task', { title: t }]],
      ['description', LIMITS.description, (t) => ['lead', 'create_task', { title: 'x', description: t }]],
      ['text', LIMITS.message, (t, id) => ['w1', 'post_message', { task_id: id, kind: 'note', text: t }]],
      ['each skill', LIMITS.skill, (t) => ['lead', 'create_task', { title: 'x', required_skills: [t] }]],
      ['assignee', LIMITS.assigneeFilter, (t) => ['w1', 'list_tasks', { assignee: t }]],
    ];

    it.each(cases)('%s (%i)', async (field, limit, build) => {
      const task = await createTask();
      const [agent, tool, ok] = build('a'.repeat(limit), task.id);
      const accepted = await api(board, agent, tool, ok);
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
      const countBefore = (await api(board, 'lead', 'get_task', { task_id: task.id })).body.messages.length;
      const [, , over] = build('a'.repeat(limit + 1), task.id);
      const refused = await api(board, agent, tool, over);
      expect(refused.status).toBe(400);
      expect(refused.body.error!.message).toContain(field === 'assignee' ? 'agent name' : field);
      expect(refused.body.error!.message).toContain(`the limit is ${limit}`);
      expect((await api(board, 'lead', 'get_task', { task_id: task.id })).body.messages.length).toBe(countBefore);
    });

    it('result (20,000) and review note (4,000)', async () => {
      const task = await createTask();
      await api(board, 'w1', 'claim_task', { task_id: task.id });
      const over = await api(board, 'w1', 'submit_result', { task_id: task.id, result: 'r'.repeat(LIMITS.result + 1) });
      expect(over.body.error!.message).toContain(`result is ${LIMITS.result + 1} characters; the limit is ${LIMITS.result}`);
      expect(await status(task.id)).toBe('claimed');
      expect((await api(board, 'w1', 'submit_result', { task_id: task.id, result: 'r'.repeat(LIMITS.result) })).status).toBe(200);
      const noteOver = await api(board, 'lead', 'review_task', { task_id: task.id, verdict: 'reject', note: 'n'.repeat(LIMITS.reviewNote + 1) });
      expect(noteOver.body.error!.message).toContain(`the limit is ${LIMITS.reviewNote}`);
      expect(await status(task.id)).toBe('submitted');
      expect((await api(board, 'lead', 'review_task', { task_id: task.id, verdict: 'reject', note: 'n'.repeat(LIMITS.reviewNote) })).status).toBe(200);
    });

    it('at most 10 required skills', async () => {
      const skills = Array.from({ length: LIMITS.requiredSkills + 1 }, (_, i) => `s${i}`);
      expect((await api(board, 'lead', 'create_task', { title: 'x', required_skills: skills.slice(0, 10) })).status).toBe(200);
      const over = await api(board, 'lead', 'create_task', { title: 'x', required_skills: skills });
      expect(over.status).toBe(400);
      expect(over.body.error!.message).toContain('required_skills has more than 10 entries');
    });

    it('blank and missing titles are refused', async () => {
      expect((await api(board, 'lead', 'create_task', { title: '   ' })).body.error!.message).toContain('title must not be blank');
      expect((await api(board, 'lead', 'create_task', {})).body.error!.message).toContain('title: required');
    });
  });
});
