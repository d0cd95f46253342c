// The event log under SIGKILL (issue 24), on both stores: writers on the JSON API, the real daemon killed mid-load;
// every acknowledged change has exactly one event row, and every change that stands (acknowledged or not) has its row.
import { expect, it } from 'vitest';
import { api, startBoard, type TestBoard } from '../helpers/board.js';
import { openBoardDb } from '../helpers/board-db.js';
import { eventually } from '../helpers/eventually.js';
import { describeEachStore } from '../helpers/stores.js';

interface EventRow {
  kind: string;
  task_id: number | string | null;
  event: string;
}

describeEachStore((store) => {
  it('every acknowledged change has exactly one event row after a SIGKILL under write load', async () => {
    const board: TestBoard = await startBoard({ store, env: { ROUNDTABLE_BACKUP_INTERVAL: '0' } });
    const acked = { created: [] as number[], claimed: [] as number[], messages: new Map<number, number>(), room: [] as number[] };
    let killed = false;
    let acks = 0;
    const queue: number[] = [];
    const call = async (agent: string, tool: string, args: Record<string, unknown>) => {
      try {
        const answer = await api(board, agent, tool, args);
        if (answer.status === 200) {
          acks++;
          return answer.body;
        }
      } catch {
        // cut off by the kill
      }
      return undefined;
    };
    const leader = async (label: string) => {
      for (let i = 0; !killed; i++) {
        const created = await call('lead', 'create_task', { title: `${label} ${i}` });
        if (created) {
          acked.created.push(created.task.id);
          queue.push(created.task.id);
        }
        if (i % 4 === 3) {
          const posted = await call('lead', 'post', { to: 'all', text: `${label} room ${i}` });
          if (posted) acked.room.push(posted.message.id);
        }
      }
    };
    const worker = async (agent: string) => {
      while (!killed) {
        const id = queue.shift();
        if (id === undefined) {
          await new Promise((r) => setTimeout(r, 5));
          continue;
        }
        if (!(await call(agent, 'claim_task', { task_id: id }))) continue;
        acked.claimed.push(id);
        if (await call(agent, 'post_message', { task_id: id, kind: 'progress', text: `${agent} on ${id}` })) acked.messages.set(id, (acked.messages.get(id) ?? 0) + 1);
      }
    };
    const writers = [leader('a'), leader('b'), worker('w1'), worker('w2')];
    try {
      await eventually('enough acknowledged writes', () => acks >= 120, { timeoutMs: 60_000 });
      killed = true;
      await board.stop('SIGKILL');
      await Promise.all(writers);
      const db = openBoardDb(board);
      try {
        const rows = await db.rows<EventRow>('SELECT kind, task_id, event FROM event_log ORDER BY id');
        const taskActions = new Map<string, number>();
        const messageEvents = new Map<number, number>();
        const roomEvents = new Map<number, number>();
        for (const row of rows) {
          const event = JSON.parse(row.event);
          if (row.kind === 'task') taskActions.set(`${event.action}:${event.task.id}`, (taskActions.get(`${event.action}:${event.task.id}`) ?? 0) + 1);
          if (row.kind === 'task_message') messageEvents.set(Number(row.task_id), (messageEvents.get(Number(row.task_id)) ?? 0) + 1);
          if (row.kind === 'room') roomEvents.set(event.message_id, (roomEvents.get(event.message_id) ?? 0) + 1);
        }
        for (const id of acked.created) expect(taskActions.get(`created:${id}`), `created ${id}`).toBe(1);
        for (const id of acked.claimed) expect(taskActions.get(`claimed:${id}`), `claimed ${id}`).toBe(1);
        for (const id of acked.room) expect(roomEvents.get(id), `room message ${id}`).toBe(1);
        // What stands, acknowledged or cut off by the kill, came with its rows: one each, none for what did not stand.
        const tasks = await db.rows<{ id: number | string; status: string }>('SELECT id, status FROM tasks');
        for (const task of tasks) {
          expect(taskActions.get(`created:${task.id}`), `created ${task.id}`).toBe(1);
          expect(taskActions.get(`claimed:${task.id}`) ?? 0, `claims of ${task.id}`).toBe(task.status === 'open' ? 0 : 1);
        }
        expect([...taskActions.keys()].filter((k) => k.startsWith('created:')).length).toBe(tasks.length);
        const messages = await db.rows<{ task_id: number | string; n: number | string }>('SELECT task_id, COUNT(*) AS n FROM messages GROUP BY task_id');
        for (const m of messages) {
          expect(messageEvents.get(Number(m.task_id)), `messages on ${m.task_id}`).toBe(Number(m.n));
          expect(Number(m.n)).toBeGreaterThanOrEqual(acked.messages.get(Number(m.task_id)) ?? 0);
        }
        const room = await db.rows<{ id: number | string }>('SELECT id FROM room_messages');
        expect(room.map((r) => roomEvents.get(Number(r.id)))).toEqual(room.map(() => 1));
        console.log(`event-log-durability (${store.name}): ${acks} acknowledged, ${rows.length} event rows`);
      } finally {
        await db.close();
      }
    } finally {
      killed = true;
      await board.stop().catch(() => undefined);
    }
  });
});
