// Path reservations end to end over loopback: conflicts between two workers, scope, all-or-nothing, limits,
// release, the end of a reservation with its claim (submit, release, forced release, cancel, lapse), lookups, and
// visibility in get_task, members and the audit log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from 'roundtable-shared';
import { api, mcpClient, resultJson, startBoard, type TestBoard } from '../helpers/board.js';
import { describeEachStore } from '../helpers/stores.js';
import { openBoardDb, type BoardDb } from '../helpers/board-db.js';
import { eventually } from '../helpers/eventually.js';

let board: TestBoard;
let db: BoardDb;

async function claimed(agent: string, b: TestBoard = board): Promise<{ id: number; claim_id: number }> {
  const created = await api(b, 'lead', 'create_task', { title: `work for ${agent}` });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const claim = await api(b, agent, 'claim_task', { task_id: created.body.task.id });
  expect(claim.status, JSON.stringify(claim.body)).toBe(200);
  return { id: claim.body.task.id, claim_id: claim.body.task.claim_id };
}

async function reserve(agent: string, taskId: number, paths: string[], extra: Record<string, unknown> = {}, b: TestBoard = board) {
  return api(b, agent, 'reserve_paths', { task_id: taskId, paths, ...extra });
}

/** Runs a refused call and proves it changed nothing but its audit row. */
async function refused(call: () => Promise<{ status: number; body: any }>, status: number, code: string) {
  const before = await db.snapshot();
  const answer = await call();
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.body.error.code).toBe(code);
  expect(await db.snapshot()).toEqual(before);
  return answer.body.error.message as string;
}

describeEachStore((store) => {
  beforeAll(async () => {
    board = await startBoard({ store });
    db = openBoardDb(board);
  });
  afterAll(async () => {
    await db.close();
    await board.stop();
  });

  describe('two workers on two claimed tasks', () => {
    let one: { id: number; claim_id: number };
    let two: { id: number; claim_id: number };
    beforeAll(async () => {
      one = await claimed('w1');
      two = await claimed('w2');
    });

    it('exclusive against exclusive is refused, naming the holder, its task and both patterns', async () => {
      const held = await reserve('w1', one.id, ['pkg-ee/src/**'], { reason: 'refactoring auth' });
      expect(held.status, JSON.stringify(held.body)).toBe(200);
      expect(held.body.reservations).toEqual([
        expect.objectContaining({ task_id: one.id, claim_id: one.claim_id, agent: 'w1', pattern: 'pkg-ee/src/**', exclusive: true, scope: null, reason: 'refactoring auth' }),
      ]);
      const message = await refused(() => reserve('w2', two.id, ['pkg-ee/src/a.ts']), 409, 'conflict');
      expect(message).toContain('"pkg-ee/src/a.ts" overlaps "pkg-ee/src/**"');
      expect(message).toContain(`by w1 on task ${one.id}`);
    });

    it('exclusive against shared is refused both ways; shared against shared is allowed', async () => {
      expect((await reserve('w1', one.id, ['pkg-es/docs/**'], { exclusive: false })).status).toBe(200);
      const exclusiveOverShared = await refused(() => reserve('w2', two.id, ['pkg-es/docs/API.md']), 409, 'conflict');
      expect(exclusiveOverShared).toMatch(new RegExp(`reserved shared by w1 on task ${one.id}`));
      expect((await reserve('w1', one.id, ['pkg-se/x.ts'])).status).toBe(200);
      const sharedOverExclusive = await refused(() => reserve('w2', two.id, ['pkg-se/*.ts'], { exclusive: false }), 409, 'conflict');
      expect(sharedOverExclusive).toMatch(new RegExp(`"pkg-se/\\*\\.ts" overlaps "pkg-se/x\\.ts", reserved exclusively by w1 on task ${one.id}`));
      const shared = await reserve('w2', two.id, ['pkg-es/docs/API.md'], { exclusive: false });
      expect(shared.status, JSON.stringify(shared.body)).toBe(200);
    });

    it('patterns that do not overlap, or overlap in another scope, are both granted', async () => {
      expect((await reserve('w1', one.id, ['pkg-nn/a/**'])).status).toBe(200);
      expect((await reserve('w2', two.id, ['pkg-nn/b/**'])).status).toBe(200);
      expect((await reserve('w1', one.id, ['shared/**'], { scope: 'repo-one' })).status).toBe(200);
      const otherRepo = await reserve('w2', two.id, ['shared/**'], { scope: 'repo-two' });
      expect(otherRepo.status, JSON.stringify(otherRepo.body)).toBe(200);
      expect(otherRepo.body.reservations.find((r: any) => r.pattern === 'shared/**')).toMatchObject({ scope: 'repo-two' });
      await refused(() => reserve('w2', two.id, ['shared/x.ts'], { scope: 'repo-one' }), 409, 'conflict');
    });

    it('a call is all or nothing: one conflicting pattern among several reserves none', async () => {
      expect((await reserve('w1', one.id, ['pkg-all/held.ts'])).status).toBe(200);
      await refused(() => reserve('w2', two.id, ['pkg-all/free-1.ts', 'pkg-all/held.ts', 'pkg-all/free-2.ts']), 409, 'conflict');
      const mine = (await api(board, 'w2', 'get_task', { task_id: two.id })).body.reservations.map((r: any) => r.pattern);
      expect(mine).not.toContain('pkg-all/free-1.ts');
    });

    it('a non-holder, an open task and the leader (who holds no claim) are refused', async () => {
      const notMine = await refused(() => reserve('w2', one.id, ['elsewhere/**']), 403, 'forbidden');
      expect(notMine).toContain(`claimed by w1`);
      const open = (await api(board, 'lead', 'create_task', { title: 'unclaimed' })).body.task.id;
      expect(await refused(() => reserve('w1', open, ['x/**']), 409, 'conflict')).toMatch(/not claimed/);
      await refused(() => reserve('lead', one.id, ['x/**']), 403, 'forbidden');
    });

    it('check_paths says which paths another agent holds exclusively, and by whom; never the caller\'s own', async () => {
      const answer = await api(board, 'w2', 'check_paths', { paths: ['pkg-ee/src/deep/a.ts', 'pkg-es/docs/API.md', 'pkg-nn/b/x.ts', 'free.txt'] });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.paths).toEqual([
        { path: 'pkg-ee/src/deep/a.ts', held: true, holders: [{ agent: 'w1', task_id: one.id, claim_id: one.claim_id, pattern: 'pkg-ee/src/**' }] },
        { path: 'pkg-es/docs/API.md', held: false, holders: [] }, // held shared only
        { path: 'pkg-nn/b/x.ts', held: false, holders: [] }, // its own
        { path: 'free.txt', held: false, holders: [] },
      ]);
      const byOwner = await api(board, 'w1', 'check_paths', { paths: ['pkg-ee/src/deep/a.ts'] });
      expect(byOwner.body.paths[0].held).toBe(false);
    });

    it('list_reservations shows who holds what, by scope and by path, page by page', async () => {
      const byPath = await api(board, 'lead', 'list_reservations', { path: 'pkg-ee/src/x.ts' });
      expect(byPath.body.reservations.map((r: any) => [r.agent, r.pattern])).toEqual([['w1', 'pkg-ee/src/**']]);
      const scoped = await api(board, 'lead', 'list_reservations', { scope: 'repo-two' });
      expect(scoped.body.reservations.map((r: any) => [r.agent, r.pattern])).toEqual([['w2', 'shared/**']]);
      const first = await api(board, 'lead', 'list_reservations', { limit: 2 });
      expect(first.body.reservations).toHaveLength(2);
      const rest = await api(board, 'lead', 'list_reservations', { limit: 100, cursor: first.body.next_cursor });
      const ids = [...first.body.reservations, ...rest.body.reservations].map((r: any) => r.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(rest.body.next_cursor).toBeNull();
    });

    it('get_task and members show reservations beside the claim; every call is audited', async () => {
      const detail = (await api(board, 'lead', 'get_task', { task_id: one.id })).body;
      expect(detail.reservations.map((r: any) => r.pattern)).toContain('pkg-ee/src/**');
      expect(detail.history.filter((h: any) => h.action === 'paths_reserved').length).toBeGreaterThan(0);
      const members = (await api(board, 'lead', 'members')).body.members;
      const holding = members.find((m: any) => m.name === 'w1').holding.find((h: any) => h.id === one.id);
      expect(holding.reservations).toContainEqual({ pattern: 'pkg-ee/src/**', scope: null, exclusive: true });
      const outcomes = (await db.rows<{ outcome: string }>("SELECT outcome FROM audit_log WHERE tool = 'reserve_paths' AND agent = 'w2'")).map((r) => r.outcome);
      expect(outcomes).toContain('ok');
      expect(outcomes).toContain('conflict');
    });

    it('release_paths releases some early, refuses a pattern not held (releasing nothing), then releases the rest', async () => {
      const notHeld = await refused(() => api(board, 'w1', 'release_paths', { task_id: one.id, paths: ['pkg-ee/src/**', 'never/reserved'] }), 400, 'invalid_input');
      expect(notHeld).toContain('paths.1');
      const some = await api(board, 'w1', 'release_paths', { task_id: one.id, paths: ['pkg-ee/src/**'] });
      expect(some.status, JSON.stringify(some.body)).toBe(200);
      expect(some.body.released).toBe(1);
      expect(some.body.reservations.map((r: any) => r.pattern)).not.toContain('pkg-ee/src/**');
      // w2 may now take what w1 let go.
      expect((await reserve('w2', two.id, ['pkg-ee/src/a.ts'])).status).toBe(200);
      const rest = await api(board, 'w1', 'release_paths', { task_id: one.id });
      expect(rest.body.reservations).toEqual([]);
      expect(rest.body.released).toBeGreaterThan(0);
      await refused(() => api(board, 'w2', 'release_paths', { task_id: one.id }), 403, 'forbidden');
    });

    it('through MCP too: a granted reservation and a conflict', async () => {
      const w1 = await mcpClient(board, 'w1');
      const w2 = await mcpClient(board, 'w2');
      try {
        await w1.listTools();
        await w2.listTools();
        const granted = await w1.callTool({ name: 'reserve_paths', arguments: { task_id: one.id, paths: ['mcp/**'] } });
        expect(granted.isError).toBeFalsy();
        expect((granted.structuredContent as any).reservations[0].pattern).toBe('mcp/**');
        const clash = await w2.callTool({ name: 'reserve_paths', arguments: { task_id: two.id, paths: ['mcp/a.ts'] } });
        expect(clash.isError).toBe(true);
        expect(resultJson(clash).error).toMatchObject({ code: 'conflict', message: expect.stringContaining('by w1') });
      } finally {
        await w1.close();
        await w2.close();
      }
    });
  });

  describe('size limits and pattern rules, each refused with nothing changed', () => {
    let task: { id: number };
    beforeAll(async () => {
      task = await claimed('w3');
    });

    it.each([
      ['too many paths', { paths: Array.from({ length: LIMITS.reservePaths + 1 }, (_, i) => `f${i}.ts`) }, /paths has more than 50 entries/],
      ['a pattern too long', { paths: [`${'a'.repeat(LIMITS.pathPattern)}x`] }, /paths\.0: path is 301 characters; the limit is 300/],
      ['an absolute path', { paths: ['/etc/passwd'] }, /paths\.0: path is absolute/],
      ['..', { paths: ['src/../../secret'] }, /paths\.0: path holds "\.\."/],
      ['an empty segment', { paths: ['ok.ts', 'src//a.ts'] }, /paths\.1: path has an empty segment/],
      ['no paths', { paths: [] }, /paths: give at least one/],
      ['a reason too long', { paths: ['r.ts'], reason: 'x'.repeat(LIMITS.reservationReason + 1) }, /reason is 1001 characters; the limit is 1000/],
      ['an empty scope', { paths: ['r.ts'], scope: '' }, /scope must not be empty/],
    ])('%s', async (_what, args, message) => {
      const text = await refused(() => api(board, 'w3', 'reserve_paths', { task_id: task.id, ...args }), 400, 'invalid_input');
      expect(text).toMatch(message);
      expect(text).toContain('Nothing was changed');
    });

    it(`more than ${LIMITS.reservationsPerTask} on one claim is refused`, async () => {
      for (let i = 0; i < LIMITS.reservationsPerTask / 50; i++) {
        const batch = Array.from({ length: 50 }, (_, j) => `cap/${i}/${j}.ts`);
        expect((await reserve('w3', task.id, batch)).status).toBe(200);
      }
      // Reserving one already held again is fine (it replaces it); one more is not.
      expect((await reserve('w3', task.id, ['cap/0/0.ts'], { exclusive: false })).status).toBe(200);
      expect(await refused(() => reserve('w3', task.id, ['cap/one-more.ts']), 400, 'invalid_input')).toMatch(/the limit is 200 a claim/);
      expect((await api(board, 'w3', 'release_paths', { task_id: task.id })).body.released).toBe(LIMITS.reservationsPerTask);
    });
  });

  describe('reservations end with their claim', () => {
    async function heldThenEnded(end: (task: { id: number; claim_id: number }) => Promise<unknown>, how: string, agent = 'w1') {
      const task = await claimed(agent);
      const pattern = `ends-${how}/**`;
      expect((await reserve(agent, task.id, [pattern])).status).toBe(200);
      await end(task);
      const detail = (await api(board, 'lead', 'get_task', { task_id: task.id })).body;
      expect(detail.reservations).toEqual([]);
      const row = detail.history.find((h: any) => h.action === 'paths_released' && h.agent === 'roundtable');
      expect(row).toMatchObject({ claim_id: task.claim_id, note: expect.stringContaining(`ended with the claim (${how})`) });
      // Nobody holds it any more: another worker may take it at once.
      const other = await claimed('w2');
      expect((await reserve('w2', other.id, [pattern])).status).toBe(200);
      await api(board, 'w2', 'release_task', { task_id: other.id });
    }

    it('on submit', () => heldThenEnded((t) => api(board, 'w1', 'submit_result', { task_id: t.id, result: 'done' }), 'submitted'));
    it('on release', () => heldThenEnded((t) => api(board, 'w1', 'release_task', { task_id: t.id }), 'released'));
    it("on the leader's forced release", () => heldThenEnded((t) => api(board, 'lead', 'release_task', { task_id: t.id, note: 'agent crashed' }), 'released'));
    it('on cancel', () => heldThenEnded((t) => api(board, 'lead', 'cancel_task', { task_id: t.id, reason: 'not needed' }), 'cancelled'));

    it('on lease lapse, with the lease_expired row', async () => {
      const short = await startBoard({ store, env: { ROUNDTABLE_LEASE_TTL: '2s' } });
      try {
        const task = await claimed('w1', short);
        expect((await reserve('w1', task.id, ['lapse/**'], {}, short)).status).toBe(200);
        await eventually('the lapsed claim to reopen', async () => (await api(short, 'lead', 'get_task', { task_id: task.id })).body.task.status === 'open', {
          timeoutMs: 30_000,
        });
        const detail = (await api(short, 'lead', 'get_task', { task_id: task.id, order: 'oldest_first' })).body;
        expect(detail.reservations).toEqual([]);
        const actions = detail.history.map((h: any) => h.action);
        expect(actions.slice(-2)).toEqual(['lease_expired', 'paths_released']);
        expect(detail.history.at(-1)).toMatchObject({ agent: 'roundtable', claim_id: task.claim_id, note: expect.stringContaining('(lease_expired)') });
        expect((await api(short, 'w2', 'check_paths', { paths: ['lapse/a.ts'] })).body.paths[0].held).toBe(false);
        const other = await claimed('w2', short);
        expect((await reserve('w2', other.id, ['lapse/a.ts'], {}, short)).status).toBe(200);
      } finally {
        await short.stop();
      }
    });
  });
});
