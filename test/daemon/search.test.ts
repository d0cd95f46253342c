// The search tool (issue 36) on both stores: what is found (titles, results, messages, review notes, the room), what a
// caller may not read stays unfound, operator characters never fail, hits are ranked and paged, and the index changes
// in the transaction that changes the text (an edit moves the hit; a rolled-back write leaves none).
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startBoard, type TestBoard } from '../helpers/board.js';
import { connectTo } from '../helpers/postgres.js';
import { describeEachStore } from '../helpers/stores.js';

interface Hit {
  kind: string;
  task_id: number | null;
  message_id: number | null;
  field: string;
  excerpt: string;
  score: number;
  created_at: string;
}

let board: TestBoard;

async function call(agent: string, tool: string, args: Record<string, unknown>) {
  const answer = await api(board, agent, tool, args);
  expect(answer.status, `${tool}: ${JSON.stringify(answer.body)}`).toBe(200);
  return answer.body;
}

async function find(agent: string, query: string, more: Record<string, unknown> = {}): Promise<Hit[]> {
  return (await call(agent, 'search', { query, ...more })).hits as Hit[];
}

/** Inserts a task message straight into the database inside a transaction that then rolls back. */
async function rolledBackMessage(taskId: number, text: string): Promise<boolean> {
  if (board.databaseUrl) {
    const sql = connectTo(board.databaseUrl);
    let seenInside = false;
    try {
      await sql.begin(async (tx) => {
        await tx`INSERT INTO messages (task_id, author, kind, text, created_at) VALUES (${taskId}, 'lead', 'note', ${text}, ${new Date().toISOString()})`;
        const [row] = await tx`SELECT COUNT(*)::int AS n FROM messages WHERE text_search @@ plainto_tsquery('simple', ${text})`;
        seenInside = row?.['n'] === 1;
        throw new Error('roll back');
      });
    } catch (error) {
      if ((error as Error).message !== 'roll back') throw error;
    } finally {
      await sql.end();
    }
    return seenInside;
  }
  const db = new Database(board.dbPath);
  try {
    db.pragma('busy_timeout = 5000');
    db.exec('BEGIN IMMEDIATE');
    db.prepare("INSERT INTO messages (task_id, author, kind, text, created_at) VALUES (?, 'lead', 'note', ?, ?)").run(taskId, text, new Date().toISOString());
    const seenInside = db.prepare('SELECT COUNT(*) FROM search_index WHERE search_index MATCH ?').pluck().get(`"${text}"`) === 1;
    db.exec('ROLLBACK');
    return seenInside;
  } finally {
    db.close();
  }
}

describeEachStore((store) => {
  let taskId: number;

  beforeAll(async () => {
    board = await startBoard({ store, agents: [
      { name: 'lead', role: 'leader' },
      { name: 'w1', role: 'worker' },
      { name: 'w2', role: 'worker' },
      { name: 'obs', role: 'observer' },
    ] });
    taskId = (await call('lead', 'create_task', { title: 'Deploy the zebrafinch service', description: 'Config lives in src/app.ts and deploy/kestrel.yml' })).task.id;
    await call('w1', 'claim_task', { task_id: taskId });
    await call('w1', 'post_message', { task_id: taskId, kind: 'progress', text: 'Halfway: the quokka migration runs' });
    await call('w1', 'submit_result', { task_id: taskId, result: 'Done; the narwhal endpoint answers' });
    await call('lead', 'review_task', { task_id: taskId, verdict: 'approve', note: 'The axolotl check can come later' });
    await call('lead', 'post', { to: 'all', text: 'Standup: pangolin release tomorrow' });
    await call('lead', 'post', { to: 'w2', text: 'Private: the okapi key rotates' });
  });
  afterAll(async () => {
    await board.stop();
  });

  describe('what is found', () => {
    it('a word in a title, a description, a result, a message, a review note and the room', async () => {
      const expectations: Array<[string, Partial<Hit>]> = [
        ['zebrafinch', { kind: 'task', field: 'title', task_id: taskId, message_id: null }],
        ['kestrel', { kind: 'task', field: 'description', task_id: taskId }],
        ['narwhal', { kind: 'task', field: 'result', task_id: taskId }],
        ['quokka', { kind: 'message', field: 'text', task_id: taskId }],
        ['axolotl', { kind: 'review', field: 'note', task_id: taskId, message_id: null }],
        ['pangolin', { kind: 'room', field: 'text', task_id: null }],
      ];
      for (const [word, expected] of expectations) {
        const hits = await find('obs', word);
        expect(hits, word).toHaveLength(1);
        expect(hits[0], word).toMatchObject(expected);
        expect(hits[0]!.excerpt, word).toContain(`[[${word}]]`);
        expect(Date.parse(hits[0]!.created_at), word).not.toBeNaN();
      }
      const [message] = await find('w1', 'quokka');
      expect(message!.message_id).toEqual(expect.any(Number));
    });

    it('words are matched whole, in any case, all of them; punctuation splits words as on the other store', async () => {
      expect(await find('lead', 'ZEBRAFINCH')).toHaveLength(1);
      expect(await find('lead', 'zebra')).toHaveLength(0);
      expect(await find('lead', 'deploy zebrafinch')).toHaveLength(1);
      expect(await find('lead', 'zebrafinch narwhal')).toHaveLength(0);
      // `src/app.ts`: app is a word on both stores.
      expect((await find('lead', 'app'))[0]).toMatchObject({ field: 'description' });
    });

    it('in narrows what is searched', async () => {
      const everywhere = await find('lead', 'the', { limit: 50 });
      expect(new Set(everywhere.map((h) => h.kind))).toEqual(new Set(['task', 'message', 'review', 'room']));
      const onlyRoom = await find('lead', 'the', { in: ['room'] });
      expect(onlyRoom.map((h) => h.kind)).toEqual(['room']);
      const tasksAndReviews = await find('lead', 'the', { in: ['tasks', 'reviews'] });
      expect(new Set(tasksAndReviews.map((h) => h.kind))).toEqual(new Set(['task', 'review']));
    });
  });

  describe('under the caller\'s role', () => {
    it('a room message to one member is found by it and its author, not by another worker or an observer', async () => {
      expect(await find('w2', 'okapi')).toHaveLength(1);
      expect(await find('lead', 'okapi')).toHaveLength(1);
      expect(await find('w1', 'okapi')).toEqual([]);
      expect(await find('obs', 'okapi')).toEqual([]);
      // As read_log shows it: w1's log does not hold the message either.
      const log = (await call('w1', 'read_log', {})).messages as Array<{ text: string }>;
      expect(log.some((m) => m.text.includes('okapi'))).toBe(false);
    });
  });

  describe('queries are plain words', () => {
    it('FTS5 and tsquery operators never fail: they separate words or find nothing', async () => {
      const queries = ['"', '*', 'AND', ':', '(', '!', '"quokka', 'quokka*', 'quokka AND', 'NOT quokka', 'NEAR(quokka migration)', 'body:quokka',
        '{body}: quokka', 'quokka & !migration', 'quokka | narwhal', '(quokka', "quokka'", '^quokka', '-quokka', 'quokka:*', '!!', '&&', '<->', 'quokka <-> migration', '\\', '%_%', "'; DROP TABLE tasks; --"];
      for (const query of queries) {
        const answer = await api(board, 'lead', 'search', { query });
        expect(answer.status, query).toBe(200);
        expect(Array.isArray(answer.body.hits), query).toBe(true);
      }
      // The words around the operators are still searched.
      for (const query of ['"quokka', 'quokka*', '(quokka', '^quokka', 'quokka:*', 'quokka & !migration', '(quokka migration)']) {
        expect((await find('lead', query)).map((h) => h.kind), query).toEqual(['message']);
      }
      // A word the operators spell is a word: AND and NEAR are not operators, so nothing holds them.
      expect(await find('lead', 'quokka AND')).toEqual([]);
      expect(await find('lead', 'NEAR(quokka migration)')).toEqual([]);
    });

    it('an empty, over-long or malformed argument is refused naming the field; a forged cursor too', async () => {
      for (const [args, field] of [
        [{ query: '' }, 'query'],
        [{ query: 'x'.repeat(201) }, 'query'],
        [{ query: 'x', in: ['tasks', 'nowhere'] }, 'in'],
        [{ query: 'x', in: [] }, 'in'],
        [{ query: 'x', limit: 51 }, 'limit'],
        [{ query: 'x', cursor: 'not-a-cursor' }, 'cursor'],
        [{ query: 'x', cursor: Buffer.from('rt4:5000').toString('base64url') }, 'cursor'],
      ] as const) {
        const answer = await api(board, 'lead', 'search', args);
        expect(answer.status, JSON.stringify(args)).toBe(400);
        expect(answer.body.error!.code).toBe('invalid_input');
        expect(answer.body.error!.message).toContain(field);
      }
    });
  });

  describe('ranking and pages', () => {
    it('hits come best first; a page carries next_cursor until the last', async () => {
      const dense = (await call('lead', 'create_task', { title: 'tapir tapir tapir' })).task.id;
      const sparse = (await call('lead', 'create_task', {
        title: 'tapir notes',
        description: 'a long description that mentions the animal only in the title and otherwise talks about many other things at length',
      })).task.id;
      await call('lead', 'create_task', { title: 'about a tapir and many other words that dilute it greatly here' });
      const hits = await find('lead', 'tapir');
      expect(hits).toHaveLength(3);
      expect(hits[0]!.task_id).toBe(dense);
      for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
      expect(hits.map((h) => h.task_id)).toContain(sparse);

      const first = await call('lead', 'search', { query: 'tapir', limit: 2 });
      expect(first.hits).toHaveLength(2);
      expect(first.next_cursor).toEqual(expect.any(String));
      const second = await call('lead', 'search', { query: 'tapir', limit: 2, cursor: first.next_cursor });
      expect(second.hits).toHaveLength(1);
      expect(second.next_cursor).toBeNull();
      expect([...first.hits, ...second.hits].map((h: Hit) => h.task_id)).toEqual(hits.map((h) => h.task_id));
    });
  });

  describe('the index moves with the text, in its transaction', () => {
    it('an edit moves the hit from the old words to the new', async () => {
      const id = (await call('lead', 'create_task', { title: 'Feed the wombat', description: 'wombat diet' })).task.id;
      expect(await find('lead', 'wombat')).toHaveLength(2);
      await call('lead', 'update_task', { task_id: id, title: 'Feed the dingo', description: '' });
      expect(await find('lead', 'wombat')).toEqual([]);
      expect((await find('lead', 'dingo')).map((h) => [h.task_id, h.field])).toEqual([[id, 'title']]);
    });

    it('a refused write leaves no hit; a rolled-back write is seen inside its transaction and leaves no hit', async () => {
      const refused = await api(board, 'lead', 'post_message', { task_id: 999_999, kind: 'note', text: 'the marmoset note' });
      expect(refused.status).toBe(404);
      expect(await find('lead', 'marmoset')).toEqual([]);
      expect(await rolledBackMessage(taskId, 'capybara')).toBe(true);
      expect(await find('lead', 'capybara')).toEqual([]);
    });
  });

  describe('text stays data', () => {
    it('hostile text comes back as text in the excerpt', async () => {
      await call('lead', 'post', { to: 'all', text: '<img src=x onerror=alert(1)> ]] [[ hyena' });
      const [hit] = await find('w1', 'hyena');
      expect(hit!.excerpt).toContain('<img src=x onerror=alert(1)>');
      expect(hit!.excerpt).toContain('[[hyena]]');
    });
  });
});
