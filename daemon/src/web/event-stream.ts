// GET /events: board events as server-sent events for a signed-in page; ids, names and states only, never board text.
import { Hono } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import type { Agent } from '../agents.js';
import type { BoardEvent, EventBus } from '../events.js';
import type { SessionVariables } from './session-auth.js';
import type { SessionStore } from './sessions.js';

export const HEARTBEAT_MS = 20_000;
/** How long a browser waits before reconnecting a dropped stream. */
const RETRY_MS = 3_000;
/** Writes a slow client has not taken yet; past this it is dropped and reconnects (then re-reads the state). */
const MAX_QUEUED_WRITES = 256;

interface OpenStream {
  readonly sessionId: string;
  send(text: string): void;
  end(): void;
}

/** What a signed-in page is told about an event; room events only when the message is one it may see. */
export function eventForPage(event: BoardEvent, viewer: string): { type: string; data: Record<string, unknown> } | undefined {
  switch (event.type) {
    case 'task':
      return {
        type: 'task',
        data: { action: event.action, actor: event.actor, task_id: event.task.id, status: event.task.status, assignee: event.task.assignee },
      };
    case 'task_message':
      return { type: 'task_message', data: { task_id: event.task_id, author: event.author } };
    case 'room':
      if (event.to !== 'all' && event.from !== viewer && !event.to.includes(viewer)) return undefined;
      return { type: 'room', data: { message_id: event.message_id, from: event.from, to: event.to } };
    case 'presence':
      return { type: 'presence', data: { agent: event.agent } };
    default:
      return undefined;
  }
}

/** The open event streams. Idle ones cost nothing but one shared heartbeat timer: the event bus pushes, nothing polls. */
export class LiveStreams {
  private readonly open = new Set<OpenStream>();
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly events: EventBus,
    private readonly sessions: SessionStore,
  ) {}

  get size(): number {
    return this.open.size;
  }

  /** Serves one stream until the client goes away, its session ends, or the board shuts down. */
  async serve(stream: SSEStreamingApi, agent: Agent, sessionId: string, signal: AbortSignal): Promise<void> {
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    let queued = 0;
    const entry: OpenStream = {
      sessionId,
      end,
      send(text) {
        if (queued >= MAX_QUEUED_WRITES) return end();
        queued++;
        void stream.write(text).finally(() => queued--);
      },
    };
    const unsubscribe = this.events.subscribe((event) => {
      // Checked on every event too, so a removed agent or rotated token hears nothing more.
      if (!this.sessions.agentOf(sessionId)) return end();
      const message = eventForPage(event, agent.name);
      if (message) entry.send(`event: ${message.type}\ndata: ${JSON.stringify(message.data)}\n\n`);
    });
    this.add(entry);
    stream.onAbort(end);
    signal.addEventListener('abort', end, { once: true });
    try {
      entry.send(`retry: ${RETRY_MS}\nevent: ready\ndata: {}\n\n`);
      await ended;
    } finally {
      unsubscribe();
      signal.removeEventListener('abort', end);
      this.remove(entry);
    }
  }

  /** Ends the streams of one session (on sign-out). */
  endSession(sessionId: string): void {
    for (const entry of this.open) if (entry.sessionId === sessionId) entry.end();
  }

  /** Ends every stream, so the server can close (on shutdown). */
  close(): void {
    for (const entry of this.open) entry.end();
  }

  private add(entry: OpenStream): void {
    this.open.add(entry);
    if (!this.heartbeat) {
      this.heartbeat = setInterval(() => this.beat(), HEARTBEAT_MS);
      this.heartbeat.unref();
    }
  }

  private remove(entry: OpenStream): void {
    this.open.delete(entry);
    if (this.open.size === 0 && this.heartbeat) {
      clearInterval(this.heartbeat);
      this.heartbeat = undefined;
    }
  }

  /** A comment line keeps proxies from closing an idle stream; a session that ended meanwhile is closed instead. */
  private beat(): void {
    for (const entry of this.open) {
      if (!this.sessions.agentOf(entry.sessionId)) entry.end();
      else entry.send(': heartbeat\n\n');
    }
  }
}

export function eventRoutes(live: LiveStreams): Hono<{ Variables: SessionVariables }> {
  const routes = new Hono<{ Variables: SessionVariables }>();
  routes.get('/', (c) => {
    const agent = c.get('agent');
    const sessionId = c.get('sessionId');
    const signal = c.req.raw.signal;
    const response = streamSSE(c, (stream) => live.serve(stream, agent, sessionId, signal));
    response.headers.set('Cache-Control', 'no-store');
    // The connection ends with the stream, so a shutting-down server is not held open by an idle keep-alive socket.
    response.headers.set('Connection', 'close');
    // Tells nginx not to buffer the stream (the shipped config proxies the board).
    response.headers.set('X-Accel-Buffering', 'no');
    return response;
  });
  return routes;
}
