// GET /events over real HTTP against the real daemon: the caps on open streams (per session, per agent, on the
// board), what a refused stream is told, a closed stream freeing its slot, and every stream hearing every event in order.
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { api, startBoard, type AgentSpec, type TestBoard } from '../helpers/board.js';

const AGENTS: AgentSpec[] = [
  { name: 'lead', role: 'leader' },
  { name: 'w1', role: 'worker', skills: ['python'] },
  { name: 'eye', role: 'observer' },
  { name: 'eye2', role: 'observer' },
];
const WAIT = { timeout: 20_000, interval: 50 };

interface Stream {
  readonly status: number;
  /** The JSON body of a refused stream. */
  readonly refusal: { error: { code: string; message: string; retry_after_s?: number } } | undefined;
  readonly retryAfter: string | undefined;
  /** The events received so far, as [type, data]. */
  readonly events: Array<[string, string]>;
  close(): void;
}

async function signIn(board: TestBoard, agent: string): Promise<string> {
  const response = await fetch(`${board.url}/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: board.tokens[agent] }),
  });
  expect(response.status).toBe(200);
  return /rt_session=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')![1]!;
}

/** Opens GET /events with a session cookie; resolves once the answer's head (and a refusal's body) is in. */
function openStream(board: TestBoard, cookie: string): Promise<Stream> {
  return new Promise((resolve, reject) => {
    let req: ClientRequest | undefined;
    req = request({ host: '127.0.0.1', port: board.port, path: '/events', headers: { cookie: `rt_session=${cookie}` }, agent: false }, (res: IncomingMessage) => {
      const events: Array<[string, string]> = [];
      const stream = (refusal?: Stream['refusal']): Stream => ({
        status: res.statusCode!,
        refusal,
        retryAfter: res.headers['retry-after'] as string | undefined,
        events,
        close: () => req!.destroy(),
      });
      res.setEncoding('utf8');
      if (res.statusCode !== 200) {
        let body = '';
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve(stream(JSON.parse(body))));
        return;
      }
      let buffer = '';
      res.on('data', (d: string) => {
        buffer += d;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const type = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (type !== undefined) events.push([type, data ?? '']);
        }
      });
      res.on('error', () => undefined);
      resolve(stream());
    });
    req.on('error', (error) => {
      // A stream the test closed itself ends with an abort; anything before the head is a failure.
      if (!req!.destroyed || (error as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(error);
    });
    req.end();
  });
}

/** Opens a stream, waiting for its `ready` so the daemon has counted it. */
async function openReady(board: TestBoard, cookie: string): Promise<Stream> {
  const stream = await openStream(board, cookie);
  expect(stream.status, JSON.stringify(stream.refusal)).toBe(200);
  await vi.waitFor(() => expect(stream.events[0]?.[0]).toBe('ready'), WAIT);
  return stream;
}

/** Retries opening until the daemon has noticed a closed stream and admits a new one. */
async function openOnceFreed(board: TestBoard, cookie: string): Promise<Stream> {
  let admitted: Stream | undefined;
  await vi.waitFor(async () => {
    const stream = await openStream(board, cookie);
    expect(stream.status).toBe(200);
    admitted = stream;
  }, WAIT);
  await vi.waitFor(() => expect(admitted!.events[0]?.[0]).toBe('ready'), WAIT);
  return admitted!;
}

describe('caps on open event streams', () => {
  let board: TestBoard;
  const open: Stream[] = [];
  beforeAll(async () => {
    board = await startBoard({ agents: AGENTS });
  });
  afterAll(async () => {
    for (const stream of open) stream.close();
    await board?.stop();
  });

  it('a fifth stream of one session is refused with 429 naming the limit; closing one lets a new one in', async () => {
    const session = await signIn(board, 'eye');
    const streams: Stream[] = [];
    for (let i = 0; i < 4; i++) streams.push(await openReady(board, session));
    open.push(...streams);

    const fifth = await openStream(board, session);
    expect(fifth.status).toBe(429);
    expect(fifth.refusal?.error.code).toBe('rate_limited');
    expect(fifth.refusal?.error.message).toMatch(/event streams open for this session \(the limit is 4\)/);
    expect(fifth.refusal?.error.message).toMatch(/close another tab/);
    expect(Number(fifth.retryAfter)).toBeGreaterThan(0);

    streams[0]!.close();
    open.push(await openOnceFreed(board, session));
    for (const stream of open.splice(0)) stream.close();
  });

  it("past 8 streams across an agent's sessions the next is refused, naming the agent's limit; closing one lets a new one in", async () => {
    const sessions = [await signIn(board, 'eye2'), await signIn(board, 'eye2'), await signIn(board, 'eye2')];
    const streams: Stream[] = [];
    for (let i = 0; i < 8; i++) streams.push(await openReady(board, sessions[i % 2]!));
    open.push(...streams);

    const ninth = await openStream(board, sessions[2]!);
    expect(ninth.status).toBe(429);
    expect(ninth.refusal?.error.message).toMatch(/event streams open for agent eye2 \(the limit is 8 across its sessions\)/);
    expect(ninth.refusal?.error.message).toMatch(/close another tab/);

    streams[3]!.close();
    open.push(await openOnceFreed(board, sessions[2]!));
    // Another agent is not held back by eye2's streams.
    open.push(await openReady(board, await signIn(board, 'w1')));
    for (const stream of open.splice(0)) stream.close();
  });

  it('past ROUNDTABLE_MAX_EVENT_STREAMS on the board the next is refused, naming the setting; closing one lets a new one in', async () => {
    const small = await startBoard({ agents: AGENTS, env: { ROUNDTABLE_MAX_EVENT_STREAMS: '3' } });
    const streams: Stream[] = [];
    try {
      const eye = await signIn(small, 'eye');
      const w1 = await signIn(small, 'w1');
      streams.push(await openReady(small, eye), await openReady(small, eye), await openReady(small, w1));
      const fourth = await openStream(small, w1);
      expect(fourth.status).toBe(429);
      expect(fourth.refusal?.error.message).toMatch(/event streams open on this board \(the limit is 3, ROUNDTABLE_MAX_EVENT_STREAMS\)/);
      expect(fourth.refusal?.error.message).toMatch(/close another tab/);
      streams[0]!.close();
      streams.push(await openOnceFreed(small, w1));
    } finally {
      for (const stream of streams) stream.close();
      await small.stop();
    }
  });
});

describe('delivery', () => {
  it('every open stream hears every event, in order, and a direct room message only where its member may see it', async () => {
    const board = await startBoard({ agents: AGENTS });
    const streams: Array<{ viewer: string; stream: Stream }> = [];
    try {
      for (const viewer of ['eye', 'eye2', 'w1']) {
        const session = await signIn(board, viewer);
        for (let i = 0; i < 3; i++) streams.push({ viewer, stream: await openReady(board, session) });
      }
      const ids: number[] = [];
      for (let i = 0; i < 15; i++) {
        const created = await api(board, 'lead', 'create_task', { title: `ordered ${i}` });
        expect(created.status).toBe(200);
        ids.push(created.body.task.id as number);
      }
      // Concurrent calls too: their events arrive in the order the board published them, the same on every stream.
      await Promise.all(ids.slice(0, 5).map((id) => api(board, 'lead', 'cancel_task', { task_id: id, reason: 'enough' })));
      expect((await api(board, 'lead', 'post', { to: ['eye'], text: 'for eye only' })).status).toBe(200);
      expect((await api(board, 'lead', 'post', { to: 'all', text: 'for everyone' })).status).toBe(200);

      const taskEvents = (stream: Stream) =>
        stream.events.filter(([type]) => type === 'task').map(([, data]) => JSON.parse(data) as { action: string; task_id: number });
      await vi.waitFor(() => {
        for (const { viewer, stream } of streams) {
          expect(stream.events.filter(([type]) => type === 'room').length, viewer).toBe(viewer === 'eye' ? 2 : 1);
        }
      }, WAIT);
      const reference = taskEvents(streams[0]!.stream);
      expect(reference.filter((e) => e.action === 'created').map((e) => e.task_id)).toEqual(ids);
      expect(reference.filter((e) => e.action === 'cancelled').map((e) => e.task_id).sort((a, b) => a - b)).toEqual(ids.slice(0, 5));
      for (const { stream } of streams) {
        expect(stream.events[0]![0]).toBe('ready');
        expect(taskEvents(stream)).toEqual(reference);
      }
      const eyeRoom = streams.find((s) => s.viewer === 'eye')!.stream.events.filter(([type]) => type === 'room');
      expect(eyeRoom.map(([, data]) => JSON.parse(data).to)).toEqual([['eye'], 'all']);
    } finally {
      for (const { stream } of streams) stream.close();
      await board.stop();
    }
  });
});
