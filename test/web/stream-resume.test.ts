// GET /events resumed with Last-Event-ID (issue 24), over real HTTP against the real daemon, on both stores: a page
// whose stream was cut is sent what happened meanwhile, in order, with ids, only what it may see, then the live tail.
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { api, startBoard, type AgentSpec, type TestBoard } from '../helpers/board.js';
import { describeEachStore, type StoreKind } from '../helpers/stores.js';

const AGENTS: AgentSpec[] = [
  { name: 'lead', role: 'leader' },
  { name: 'w1', role: 'worker' },
  { name: 'eye', role: 'observer' },
];
const WAIT = { timeout: 20_000, interval: 50 };

interface SseEvent {
  readonly id: string | undefined;
  readonly type: string;
  readonly data: string;
}

interface Stream {
  readonly status: number;
  readonly events: SseEvent[];
  close(): void;
}

async function signIn(board: TestBoard, agent: string): Promise<string> {
  const response = await fetch(`${board.url}/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: board.tokens[agent] }) });
  expect(response.status).toBe(200);
  return /rt_session=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')![1]!;
}

function openStream(board: TestBoard, cookie: string, lastEventId?: string): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { cookie: `rt_session=${cookie}`, ...(lastEventId !== undefined && { 'last-event-id': lastEventId }) };
    const req: ClientRequest = request({ host: '127.0.0.1', port: board.port, path: '/events', headers, agent: false }, (res: IncomingMessage) => {
      const events: SseEvent[] = [];
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (d: string) => {
        buffer += d;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const type = /^event: (.*)$/m.exec(block)?.[1];
          if (type !== undefined) events.push({ id: /^id: (.*)$/m.exec(block)?.[1], type, data: /^data: (.*)$/m.exec(block)?.[1] ?? '' });
        }
      });
      res.on('error', () => undefined);
      resolve({ status: res.statusCode!, events, close: () => req.destroy() });
    });
    req.on('error', (error) => {
      if (!req.destroyed || (error as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(error);
    });
    req.end();
  });
}

const tasks = (stream: Stream) => stream.events.filter((e) => e.type === 'task').map((e) => JSON.parse(e.data) as { action: string; task_id: number });

let store: StoreKind;

describeEachStore((kind) => {
  beforeAll(() => {
    store = kind;
  });

  describe('a live page stream resumed with Last-Event-ID', () => {
    it('gets what happened while it was cut, in order and only what its viewer may see, then the live events', async () => {
      const board = await startBoard({ agents: AGENTS, store });
      const open: Stream[] = [];
      try {
        const cookie = await signIn(board, 'eye');
        const first = await openStream(board, cookie);
        open.push(first);
        expect(first.status).toBe(200);
        await vi.waitFor(() => expect(first.events[0]?.type).toBe('ready'), WAIT);
        const before = (await api(board, 'lead', 'create_task', { title: 'seen live' })).body.task.id as number;
        await vi.waitFor(() => expect(tasks(first).map((e) => e.task_id)).toEqual([before]), WAIT);
        const lastId = first.events.filter((e) => e.type === 'task').at(-1)!.id;
        expect(lastId).toBeTruthy();
        first.close();

        // Meanwhile, with no stream open: two tasks, a claim, a word to w1 alone, and one to everyone.
        const made = [];
        for (const title of ['missed one', 'missed two']) made.push((await api(board, 'lead', 'create_task', { title })).body.task.id as number);
        await api(board, 'w1', 'claim_task', { task_id: made[0] });
        await api(board, 'lead', 'post', { to: ['w1'], text: 'not for the observer' });
        const toAll = (await api(board, 'lead', 'post', { to: 'all', text: 'for everyone' })).body.message.id as number;

        const resumed = await openStream(board, cookie, lastId);
        open.push(resumed);
        expect(resumed.status).toBe(200);
        await vi.waitFor(() => expect(resumed.events.filter((e) => e.type === 'room')).toHaveLength(1), WAIT);
        expect(resumed.events[0]!.type).toBe('ready');
        expect(tasks(resumed)).toEqual([
          expect.objectContaining({ action: 'created', task_id: made[0] }),
          expect.objectContaining({ action: 'created', task_id: made[1] }),
          expect.objectContaining({ action: 'claimed', task_id: made[0] }),
        ]);
        expect(JSON.parse(resumed.events.find((e) => e.type === 'room')!.data)).toMatchObject({ message_id: toAll, to: 'all' });
        // Every change carries an id, each one different, and the one it resumed from is not sent again.
        const ids = resumed.events.filter((e) => e.type !== 'ready').map((e) => e.id);
        expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids).not.toContain(lastId);

        // Then the live tail, after what it missed.
        const after = (await api(board, 'lead', 'create_task', { title: 'live again' })).body.task.id as number;
        await vi.waitFor(() => expect(tasks(resumed).at(-1)).toMatchObject({ action: 'created', task_id: after }), WAIT);
        expect(tasks(resumed)).toHaveLength(4);

        // An id this board did not make: the page is told to read everything again (resync), nothing else replayed.
        const forged = await openStream(board, cookie, 'bm90LWEtY3Vyc29y.AAAAAAAAAAAAAAAA');
        open.push(forged);
        await vi.waitFor(() => expect(forged.events.map((e) => e.type)).toEqual(['ready', 'resync']), WAIT);
      } finally {
        for (const stream of open) stream.close();
        await board.stop();
      }
    });
  });
});
