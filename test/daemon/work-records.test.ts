// The git work and the usage a submission carries (issue 35), on every store: kept with the change or not at all,
// returned by get_task without the patch unless asked, refused field by field without quoting what was sent.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LIMITS } from 'roundtable-shared';
import { startBoard, type TestBoard } from '../helpers/board.js';
import { describeEachStore } from '../helpers/stores.js';

let board: TestBoard;

async function call(agent: string, tool: string, args: unknown, key?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${board.tokens[agent]}` };
  if (key !== undefined) headers['idempotency-key'] = key;
  const response = await fetch(`${board.url}/api/v1/tools/${tool}`, { method: 'POST', headers, body: JSON.stringify(args) });
  return { status: response.status, body: (await response.json()) as any };
}

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);
const MARK = 'AGENT-TEXT-7f3c';

function work(patch?: string) {
  return {
    branch: `rt/1-${MARK}`,
    base: A,
    head: C,
    dirty: false,
    commits: [
      { id: B, subject: `first ${MARK} <script>alert(1)</script>`, author_time: '2026-12-04T10:00:00Z' },
      { id: C, subject: 'second', author_time: '2026-12-04T10:05:00Z' },
    ],
    files: [
      { path: 'src/a.ts', status: 'modified', added: 3, removed: 1 },
      { path: 'img/logo.png', status: 'added', binary: true, added: 0, removed: 0 },
      { path: 'src/new.ts', old_path: 'src/old.ts', status: 'renamed', added: 0, removed: 0 },
    ],
    ...(patch !== undefined && { patch, patch_bytes: Buffer.byteLength(patch) }),
    pr_url: 'https://example.com/org/repo/pull/7',
  };
}

const PATCH = 'diff --git a/src/a.ts b/src/a.ts\n--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,1 +1,3 @@\n-old\n+new ✓\n+two\n+three\n';

async function claimed(title: string): Promise<{ id: number; claim: number }> {
  const id = (await call('lead', 'create_task', { title })).body.task.id as number;
  const claim = (await call('w1', 'claim_task', { task_id: id })).body.task.claim_id as number;
  return { id, claim };
}

describeEachStore((store) => {
  beforeAll(async () => {
    board = await startBoard({ store });
  });
  afterAll(async () => {
    await board.stop();
  });

  it('submit_result keeps the work record and usage; get_task returns the summary, and the patch only with include_patch', async () => {
    const { id, claim } = await claimed('with work');
    const usage = { input_tokens: 1200, output_tokens: 340, cached_tokens: 800, cost_usd: 0.0123, model: 'model-x' };
    const submitted = await call('w1', 'submit_result', { task_id: id, claim_id: claim, result: 'done', work: work(PATCH), usage });
    expect(submitted.status).toBe(200);
    const plain = (await call('lead', 'get_task', { task_id: id })).body;
    const { patch: _patch, ...summary } = work(PATCH);
    expect(plain.work).toEqual({ ...summary, submitted_by: 'w1', claim_id: claim, submitted_at: submitted.body.task.updated_at, patch_kept: true, patch_dropped: false });
    expect(plain.usage).toEqual({ reports: 1, input_tokens: 1200, output_tokens: 340, cached_tokens: 800, cost_usd: 0.0123, models: ['model-x'] });
    const full = (await call('lead', 'get_task', { task_id: id, include_patch: true })).body;
    expect(full.work.patch).toBe(PATCH);
    expect(full.work.commits[0].subject).toBe(`first ${MARK} <script>alert(1)</script>`);
  });

  it('a task never submitted with work has work null and zero usage', async () => {
    const { id, claim } = await claimed('without work');
    await call('w1', 'submit_result', { task_id: id, claim_id: claim, result: 'plain' });
    const detail = (await call('lead', 'get_task', { task_id: id })).body;
    expect(detail.work).toBeNull();
    expect(detail.usage).toEqual({ reports: 0, input_tokens: 0, output_tokens: 0, cached_tokens: 0, cost_usd: 0, models: [] });
  });

  it('a retried submit_result under one idempotency key keeps one work record and one usage report', async () => {
    const { id, claim } = await claimed('retried');
    const args = { task_id: id, claim_id: claim, result: 'r', work: work(PATCH), usage: { output_tokens: 5 } };
    const answers = await Promise.all([1, 2, 3].map(() => call('w1', 'submit_result', args, `submit-${store.name}-${id}`)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    const detail = (await call('lead', 'get_task', { task_id: id })).body;
    expect(detail.usage.reports).toBe(1);
    expect(detail.usage.output_tokens).toBe(5);
  });

  it('post_message adds usage to the task; a refused post adds none', async () => {
    const { id, claim } = await claimed('messages with usage');
    expect((await call('w1', 'post_message', { task_id: id, claim_id: claim, kind: 'progress', text: 'half', usage: { input_tokens: 10, model: 'm1' } })).status).toBe(200);
    expect((await call('w1', 'post_message', { task_id: id, claim_id: claim, kind: 'progress', text: 'more', usage: { input_tokens: 5, model: 'm2' } })).status).toBe(200);
    // A claim id that is not the task's: refused, and its usage is not kept.
    expect((await call('w1', 'post_message', { task_id: id, claim_id: claim + 1000, kind: 'progress', text: 'no', usage: { input_tokens: 999 } })).status).toBe(409);
    const detail = (await call('lead', 'get_task', { task_id: id })).body;
    expect(detail.usage).toMatchObject({ reports: 2, input_tokens: 15, models: ['m1', 'm2'] });
  });

  it('after a rejection and a second submission, get_task shows the newer work record', async () => {
    const { id, claim } = await claimed('resubmitted');
    await call('w1', 'submit_result', { task_id: id, claim_id: claim, result: 'one', work: work(PATCH) });
    await call('lead', 'review_task', { task_id: id, verdict: 'reject', note: 'src/a.ts:2: not this' });
    const again = (await call('w1', 'claim_task', { task_id: id })).body.task.claim_id as number;
    const second = { ...work('diff --git a/x b/x\n'), head: B, commits: [] };
    await call('w1', 'submit_result', { task_id: id, claim_id: again, result: 'two', work: second });
    const detail = (await call('lead', 'get_task', { task_id: id, include_patch: true })).body;
    expect(detail.work.head).toBe(B);
    expect(detail.work.claim_id).toBe(again);
    expect(detail.work.patch).toBe('diff --git a/x b/x\n');
    expect(detail.reviews.at(-1).note).toBe('src/a.ts:2: not this');
  });

  it.each([
    ['a short commit id', (w: any) => ({ ...w, head: 'abc123' }), 'work.head'],
    ['a commit id in capitals', (w: any) => ({ ...w, base: A.toUpperCase() }), 'work.base'],
    ['an http PR link', (w: any) => ({ ...w, pr_url: `http://example.com/${MARK}` }), 'work.pr_url'],
    ['a javascript: PR link', (w: any) => ({ ...w, pr_url: `javascript:alert('${MARK}')` }), 'work.pr_url'],
    ['a PR link with a user name', (w: any) => ({ ...w, pr_url: `https://${MARK}@example.com/x` }), 'work.pr_url'],
    ['a patch over the cap', (w: any) => ({ ...w, patch: `${MARK}\n`.repeat(Math.ceil((LIMITS.workPatchBytes + 10) / (MARK.length + 1))) }), 'work.patch'],
    ['a patch over the cap in bytes, under it in characters', (w: any) => ({ ...w, patch: '✓'.repeat(LIMITS.workPatchBytes / 2) }), 'work.patch'],
    ['too many commits', (w: any) => ({ ...w, commits: Array.from({ length: LIMITS.workCommits + 1 }, () => w.commits[0]) }), 'work.commits'],
    ['a negative line count', (w: any) => ({ ...w, files: [{ path: MARK, added: -1, removed: 0 }] }), 'work.files: each added'],
    ['an unknown field', (w: any) => ({ ...w, extra_field: MARK }), 'work: unknown field "extra_field"'],
    ['a blank usage', () => undefined, 'usage'],
  ])('%s is refused naming the field, without quoting what was sent, and nothing changes', async (_label, edit, field) => {
    const { id, claim } = await claimed(`refused ${_label}`);
    const args = edit.length === 0 ? { task_id: id, claim_id: claim, result: 'r', usage: { model: 'only a name' } } : { task_id: id, claim_id: claim, result: 'r', work: edit(work(PATCH)) };
    const refused = await call('w1', 'submit_result', args);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_input');
    expect(refused.body.error.message).toContain(field);
    expect(JSON.stringify(refused.body)).not.toContain(MARK);
    expect(JSON.stringify(refused.body)).not.toContain('only a name');
    const detail = (await call('lead', 'get_task', { task_id: id })).body;
    expect(detail.task.status).toBe('claimed');
    expect(detail.work).toBeNull();
    expect(detail.usage.reports).toBe(0);
  });

  it('a 1 MiB patch, whole, goes through and comes back byte for byte', async () => {
    const { id, claim } = await claimed('big patch');
    const line = '+' + 'x'.repeat(99) + '\n';
    const patch = line.repeat(LIMITS.workPatchBytes / line.length);
    const submitted = await call('w1', 'submit_result', { task_id: id, claim_id: claim, result: 'big', work: work(patch) });
    expect(submitted.status).toBe(200);
    const detail = (await call('lead', 'get_task', { task_id: id, include_patch: true })).body;
    expect(detail.work.patch.length).toBe(patch.length);
    expect(detail.work.patch === patch).toBe(true);
    const summary = (await call('lead', 'get_task', { task_id: id })).body;
    expect(JSON.stringify(summary).length).toBeLessThan(10_000);
  });
});
