// PostgreSQL only (SQLite has one writer, so its ids are commit order): a transaction that appended an event row
// first but commits last must not be skipped by a reader (issue 24). The reader reads in (xid, id) order below the
// oldest transaction still running, so a row committed after it is held back until the older one ends.
import { describe, expect, it } from 'vitest';
import { api, startBoard } from '../helpers/board.js';
import { sleep } from '../helpers/eventually.js';
import { connectTo, PG_SKIP_REASON } from '../helpers/postgres.js';

const LATE_TASK = 999_999;

describe.skipIf(PG_SKIP_REASON)(`the event log's order on PostgreSQL${PG_SKIP_REASON ? ` (skipped: ${PG_SKIP_REASON})` : ''}`, () => {
  it('a row whose transaction commits late is read in order, not skipped: rows committed after it wait for it', async () => {
    const board = await startBoard({ store: 'postgres' });
    const sql = connectTo(board.databaseUrl!);
    try {
      const { cursor } = (await api(board, 'w3', 'wait_for_activity', { timeout_s: 0, for: ['tasks'] })).body;
      // Another writer's transaction takes its xid and appends a row (a task event that concerns w3), and stays open.
      let commit!: () => void;
      const gate = new Promise<void>((resolve) => (commit = resolve));
      let appended!: () => void;
      const inserted = new Promise<void>((resolve) => (appended = resolve));
      const late = sql.begin(async (tx) => {
        const event = { type: 'task', action: 'created', actor: 'lead', task: { id: LATE_TASK, status: 'open', assignee: null, required_skills: [], blocked: false, created_by: 'lead', lease_expires_at: null } };
        await tx`INSERT INTO event_log (kind, task_id, event) VALUES ('task', ${LATE_TASK}, ${JSON.stringify(event)})`;
        appended();
        await gate;
      });
      await inserted;
      // A change through the daemon commits meanwhile, with a later xid and a later id.
      const created = (await api(board, 'lead', 'create_task', { title: 'committed first' })).body.task.id as number;
      let answered = false;
      const waiting = api(board, 'w3', 'wait_for_activity', { timeout_s: 30, for: ['tasks'], since: cursor }).then((answer) => {
        answered = true;
        return answer;
      });
      // Reading by id alone would answer now with the daemon's task and a cursor past the open transaction's row.
      await sleep(1_500);
      expect(answered).toBe(false);
      commit();
      await late;
      const answer = await waiting;
      expect(answer.body.changes).toEqual([`task:${LATE_TASK}:created`, `task:${created}:created`]);
      // And nothing is left before the new cursor: a wait from it sees only what comes next.
      const next = await api(board, 'w3', 'wait_for_activity', { timeout_s: 0, for: ['tasks'], since: answer.body.cursor });
      expect(next.body.changes).toEqual([]);
    } finally {
      await sql.end({ timeout: 1 });
      await board.stop();
    }
  });
});
