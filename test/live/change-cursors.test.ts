// wait_for_activity({since}) (issue 24): edge-triggered waits over the event log, on both stores. A cursor answers only
// what is newer even while older items are pending; a forged one is invalid_input, an expired one a conflict.
import { beforeAll, describe, expect, it } from 'vitest';
import { api, startBoard, type TestBoard } from '../helpers/board.js';
import { openBoardDb } from '../helpers/board-db.js';
import { describeEachStore, type StoreKind } from '../helpers/stores.js';

let store: StoreKind;

async function withBoard<T>(run: (board: TestBoard) => Promise<T>): Promise<T> {
  const board = await startBoard({ store });
  try {
    return await run(board);
  } finally {
    await board.stop();
  }
}

const create = (board: TestBoard, title: string) => api(board, 'lead', 'create_task', { title });

describeEachStore((kind) => {
  beforeAll(() => {
    store = kind;
  });

  describe('wait_for_activity with since', () => {
    it('answers only what is newer than the cursor, while an older claimable task stays pending', async () => {
      await withBoard(async (board) => {
        const first = await create(board, 'first');
        // Without since: as before, at once, since a task is pending; with a cursor to go on from.
        const level = await api(board, 'w3', 'wait_for_activity', { timeout_s: 5, for: ['tasks'] });
        expect(level.body).toMatchObject({ reason: 'pending', claimable_tasks: 1 });
        expect(typeof level.body.cursor).toBe('string');
        expect(level.body.changes).toBeUndefined();

        // With it: the pending first task does not answer; nothing new within the timeout.
        const quiet = await api(board, 'w3', 'wait_for_activity', { timeout_s: 1, for: ['tasks'], since: level.body.cursor });
        expect(quiet.body).toMatchObject({ reason: 'timeout', changes: [], claimable_tasks: 1 });

        // A second task, created while the wait is parked, answers it and names only that task.
        const parked = api(board, 'w3', 'wait_for_activity', { timeout_s: 30, for: ['tasks'], since: quiet.body.cursor });
        await new Promise((r) => setTimeout(r, 300));
        const second = await create(board, 'second');
        const woke = await parked;
        expect(woke.body.reason).toBe('activity');
        expect(woke.body.changes).toEqual([`task:${second.body.task.id}:created`]);
        expect(woke.body.claimable_tasks).toBe(2);
        expect(woke.body.waited_ms).toBeLessThan(25_000);

        // A third, written before the next call: answered at once from the log, and only it.
        const third = await create(board, 'third');
        const next = await api(board, 'w3', 'wait_for_activity', { timeout_s: 30, for: ['tasks'], since: woke.body.cursor });
        expect(next.body.changes).toEqual([`task:${third.body.task.id}:created`]);
        expect(next.body.changes).not.toContain(`task:${first.body.task.id}:created`);

        // A burst of three after that cursor: one answer naming all three, in order.
        const burst = [];
        for (const title of ['b1', 'b2', 'b3']) burst.push((await create(board, title)).body.task.id);
        const all = await api(board, 'w3', 'wait_for_activity', { timeout_s: 30, for: ['tasks'], since: next.body.cursor });
        expect(all.body.changes).toEqual(burst.map((id) => `task:${id}:created`));

        // Changes that do not concern the caller are passed over: a claim by someone else moves the cursor, tells nothing.
        await api(board, 'w1', 'claim_task', { task_id: first.body.task.id });
        const other = await api(board, 'w3', 'wait_for_activity', { timeout_s: 1, for: ['tasks'], since: all.body.cursor });
        expect(other.body).toMatchObject({ reason: 'timeout', changes: [] });
      });
    });

    it('refuses a forged or altered cursor with invalid_input, and an expired one with conflict, changing nothing', async () => {
      await withBoard(async (board) => {
        await create(board, 'one');
        const { cursor } = (await api(board, 'w3', 'wait_for_activity', { timeout_s: 0 })).body;
        for (const forged of ['abc', 'MC4x.AAAAAAAAAAAAAAAA', `${cursor}x`, cursor.replace(/^./, (c: string) => (c === 'M' ? 'N' : 'M'))]) {
          const refused = await api(board, 'w3', 'wait_for_activity', { timeout_s: 0, since: forged });
          expect(refused.status, forged).toBe(400);
          expect(refused.body.error).toMatchObject({ code: 'invalid_input' });
          expect(refused.body.error!.message).toContain('since');
          expect(refused.body.error!.message).not.toContain(forged);
        }
        // Retention passed the cursor: what came after it is gone, and the caller is told, not given a gap.
        for (let i = 0; i < 3; i++) await create(board, `more ${i}`);
        const db = openBoardDb(board);
        try {
          if (board.databaseUrl) await db.exec("UPDATE event_log_state SET pruned_xid = (SELECT max(xid) FROM event_log), pruned_id = (SELECT max(id) FROM event_log)");
          else await db.exec('UPDATE event_log_state SET pruned_through = (SELECT max(id) FROM event_log)');
        } finally {
          await db.close();
        }
        const expired = await api(board, 'w3', 'wait_for_activity', { timeout_s: 0, since: cursor });
        expect(expired.status).toBe(409);
        expect(expired.body.error!.message).toContain('older than the event log keeps');
        // Starting over without since gives a fresh cursor that works.
        const fresh = (await api(board, 'w3', 'wait_for_activity', { timeout_s: 0 })).body.cursor;
        expect((await api(board, 'w3', 'wait_for_activity', { timeout_s: 0, since: fresh })).body.reason).toBe('timeout');
      });
    });

    it('a cursor ahead of the log (the board restored from an older copy) is refused as such, and the page stream resyncs (issue 31, item 9)', async () => {
      const board = await startBoard({ store });
      let restarted: TestBoard | undefined;
      try {
        await create(board, 'kept');
        const kept = (await api(board, 'w3', 'wait_for_activity', { timeout_s: 0 })).body.cursor as string;
        for (const title of ['lost 1', 'lost 2']) await create(board, title);
        const ahead = (await api(board, 'w3', 'wait_for_activity', { timeout_s: 0 })).body.cursor as string;
        await board.stop();
        // The older copy: the log as it was when the first cursor was given.
        const db = openBoardDb(board);
        try {
          const [last] = await db.rows<{ id: number }>("SELECT max(id) AS id FROM event_log WHERE kind = 'task'");
          await db.exec(`DELETE FROM event_log WHERE id > ${Number(last!.id) - 2}`);
        } finally {
          await db.close();
        }
        restarted = await startBoard({ store, dir: board.dir, tokens: board.tokens, databaseUrl: board.databaseUrl });
        const refused = await api(restarted, 'w3', 'wait_for_activity', { timeout_s: 0, since: ahead });
        expect(refused.status).toBe(409);
        expect(refused.body.error).toEqual({
          code: 'conflict',
          message: 'since: this cursor is ahead of the event log: the board was restored from an older copy, so the changes it names are not on this board; leave since out to read the board as it stands, and use the cursor that answer gives',
        });
        // A cursor the older copy did give still works.
        expect((await api(restarted, 'w3', 'wait_for_activity', { timeout_s: 0, since: kept })).status).toBe(200);

        // The page's stream resumed from the same position is told to read the board again.
        const signIn = await fetch(`${restarted.url}/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: restarted.tokens['lead'] }) });
        const cookie = /rt_session=[^;]+/.exec(signIn.headers.get('set-cookie') ?? '')![0];
        const stop = new AbortController();
        const stream = await fetch(`${restarted.url}/events`, { headers: { cookie, 'last-event-id': ahead }, signal: stop.signal });
        expect(stream.status).toBe(200);
        const reader = stream.body!.getReader();
        let text = '';
        const deadline = Date.now() + 3_000;
        try {
          while (!/event: resync/.test(text) && Date.now() < deadline) {
            const next = await Promise.race([reader.read(), new Promise<undefined>((r) => setTimeout(() => r(undefined), Math.max(1, deadline - Date.now())))]);
            if (!next || next.done) break;
            text += new TextDecoder().decode(next.value);
          }
        } finally {
          stop.abort();
        }
        expect(text).toMatch(/event: ready\ndata: \{\}\n\nevent: resync\n/);
      } finally {
        await restarted?.stop();
        if (board.process.exitCode === null) await board.stop();
      }
    });

    it('writes one event row per change, with ids and states but never board text', async () => {
      await withBoard(async (board) => {
        const task = (await create(board, 'SECRET-TITLE-TEXT')).body.task;
        const claimed = (await api(board, 'w3', 'claim_task', { task_id: task.id })).body.task;
        await api(board, 'w3', 'post_message', { task_id: task.id, kind: 'note', text: 'SECRET-MESSAGE-TEXT' });
        await api(board, 'w3', 'submit_result', { task_id: task.id, claim_id: claimed.claim_id, result: 'SECRET-RESULT-TEXT' });
        await api(board, 'lead', 'post', { to: 'all', text: 'SECRET-ROOM-TEXT' });
        const db = openBoardDb(board);
        try {
          const rows = await db.rows<{ kind: string; event: string }>('SELECT kind, event FROM event_log ORDER BY id');
          expect(rows.map((r) => r.kind)).toEqual(['task', 'task', 'task_message', 'task', 'room']);
          expect(rows.map((r) => JSON.parse(r.event).action ?? null)).toEqual(['created', 'claimed', null, 'submitted', null]);
          for (const row of rows) expect(row.event).not.toMatch(/SECRET/);
        } finally {
          await db.close();
        }
      });
    });
  });
});
