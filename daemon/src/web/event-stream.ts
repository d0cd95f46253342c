// GET /events: board events as server-sent events for a signed-in page; ids, names and states only, never board text.
import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono } from 'hono';
import type { Agent } from '../agents/directory.js';
import { Internal } from '../errors.js';
import type { BoardEvent, EventBus } from '../events.js';
import { StreamFanOut, type Outgoing, type StreamSink } from './fan-out.js';
import { SECURITY_HEADERS } from './security-headers.js';
import type { SessionVariables } from './session-auth.js';
import type { SessionStore } from './sessions.js';
import { StreamCaps, STREAMS_PER_AGENT, STREAMS_PER_SESSION } from './stream-caps.js';
import { isLogged, StreamLog, type EventLogReader, type Missed } from './stream-log.js';

export const HEARTBEAT_MS = 20_000;
/** How long a browser waits before reconnecting a dropped stream. */
const RETRY_MS = 3_000;

/** What a signed-in page is told about an event; room events only when the message is one it may see. */
export function eventForPage(event: BoardEvent, viewer: string): { type: string; data: Record<string, unknown> } | undefined {
  const message = pageMessage(event);
  return message && (!message.visibleTo || message.visibleTo(viewer)) ? { type: message.type, data: message.data } : undefined;
}

/** The page's view of an event, the same for every stream, and who may see it (room messages only). */
function pageMessage(event: BoardEvent): { type: string; data: Record<string, unknown>; visibleTo?: (viewer: string) => boolean } | undefined {
  switch (event.type) {
    case 'task':
      return {
        type: 'task',
        data: { action: event.action, actor: event.actor, task_id: event.task.id, status: event.task.status, assignee: event.task.assignee },
      };
    case 'task_message':
      return { type: 'task_message', data: { task_id: event.task_id, author: event.author } };
    case 'room': {
      const { from, to } = event;
      return {
        type: 'room',
        data: { message_id: event.message_id, from, to },
        ...(to !== 'all' && { visibleTo: (viewer: string) => viewer === from || to.includes(viewer) }),
      };
    }
    case 'presence':
      return { type: 'presence', data: { agent: event.agent } };
    case 'resync':
      // Events were missed (see events.ts): the page reads everything again, as after a reconnect.
      return { type: 'resync', data: {} };
    case 'session_ended':
      // Between daemons only (web/index.ts): a page is never told of sessions.
      return undefined;
    default:
      return undefined;
  }
}

/**
 * An event as the bytes every stream that may see it is sent; computed once per event, not once per stream. A change
 * from the event log carries its position as the SSE id, which the browser sends back as Last-Event-ID.
 */
function outgoingFor(event: BoardEvent, id?: string): Outgoing | undefined {
  const message = pageMessage(event);
  if (!message) return undefined;
  const text = `${id === undefined ? '' : `id: ${id}\n`}event: ${message.type}\ndata: ${JSON.stringify(message.data)}\n\n`;
  return message.visibleTo ? { text, visibleTo: message.visibleTo } : { text };
}

/** What a stream needs of its HTTP response; Node's ServerResponse has all of it. */
export interface StreamResponse {
  writeHead(status: number, headers: Record<string, string>): unknown;
  write(chunk: string): boolean;
  end(): unknown;
  destroy(): unknown;
  readonly writableLength: number;
  readonly writableEnded: boolean;
  readonly destroyed: boolean;
  once(event: 'close', listener: () => void): unknown;
}

export interface LiveStreamsOptions {
  readonly events: EventBus;
  readonly sessions: SessionStore;
  /** ROUNDTABLE_MAX_EVENT_STREAMS: open streams on the whole board. */
  readonly maxStreams: number;
  /** For tests; see StreamFanOut. */
  readonly coalesceMs?: number;
  /** The board's event log: changes reach the streams from it, with ids a reconnecting page resumes from. */
  readonly log?: EventLogReader;
}

/**
 * The open event streams. They are written straight to the socket, in batches, off the request path (StreamFanOut);
 * idle ones cost one shared heartbeat timer and one event-bus subscription, made while any stream is open.
 */
export class LiveStreams {
  private readonly fanOut: StreamFanOut;
  private readonly caps: StreamCaps;
  private readonly ends = new Map<StreamSink, () => void>();
  private unsubscribe: (() => void) | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private log: StreamLog | undefined;

  constructor(private readonly options: LiveStreamsOptions) {
    this.log = this.newLog();
    this.caps = new StreamCaps({ perSession: STREAMS_PER_SESSION, perAgent: STREAMS_PER_AGENT, total: options.maxStreams });
    this.fanOut = new StreamFanOut({
      // Checked at every batch too, so a removed agent or rotated token hears nothing more.
      isLive: (sessionId) => options.sessions.agentOf(sessionId) !== undefined,
      ...(options.coalesceMs !== undefined && { coalesceMs: options.coalesceMs }),
    });
  }

  get size(): number {
    return this.fanOut.size;
  }

  private newLog(): StreamLog | undefined {
    const reader = this.options.log;
    if (!reader) return undefined;
    return new StreamLog(reader, (entry, id) => {
      const outgoing = outgoingFor(entry.event, id);
      if (outgoing) this.fanOut.push(outgoing);
    });
  }

  /**
   * Serves one stream on this response until the client goes away, its session ends or the board shuts down.
   * Throws RateLimited, before anything is written, when a limit on open streams refuses it. With `lastEventId` (the
   * browser reconnecting) it first sends what the stream missed since that id, from the event log.
   */
  async open(response: StreamResponse, agent: Agent, sessionId: string, extraHeaders: Record<string, string> = {}, lastEventId?: string): Promise<void> {
    const release = this.caps.take(agent.name, sessionId);
    let closed = false;
    const sink: StreamSink = {
      sessionId,
      viewer: agent.name,
      bufferedBytes: () => response.writableLength,
      write: (text) => {
        if (!response.writableEnded && !response.destroyed) response.write(text);
      },
      end: () => {
        if (!response.writableEnded) response.end();
      },
      drop: () => void response.destroy(),
    };
    const cleanUp = () => {
      if (closed) return;
      closed = true;
      release();
      this.fanOut.remove(sink);
      this.ends.delete(sink);
      if (this.fanOut.size === 0) this.idle();
    };
    response.once('close', cleanUp);
    const attach = (readyId: string | undefined, missed: Missed | undefined) => {
      if (closed) return;
      this.ends.set(sink, () => {
        sink.end();
        cleanUp();
      });
      response.writeHead(200, {
        ...SECURITY_HEADERS,
        ...extraHeaders,
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-store',
        // The connection ends with the stream, so a shutting-down server is not held open by an idle keep-alive socket.
        Connection: 'close',
        // Tells nginx not to buffer the stream (the shipped config proxies the board).
        'X-Accel-Buffering': 'no',
      });
      response.write(`retry: ${RETRY_MS}\n${readyId === undefined ? '' : `id: ${readyId}\n`}event: ready\ndata: {}\n\n`);
      if (missed === 'resync') response.write('event: resync\ndata: {}\n\n');
      else
        for (const { entry, id } of missed ?? []) {
          const outgoing = outgoingFor(entry.event, id);
          if (outgoing && (!outgoing.visibleTo || outgoing.visibleTo(agent.name))) response.write(outgoing.text);
        }
      this.fanOut.add(sink);
      this.busy();
    };
    const log = this.log;
    if (!log) return attach(undefined, undefined);
    if (lastEventId !== undefined) {
      // Joins in the same turn as the check that it has caught up: nothing is lost between the catch-up and the tail.
      await log.resume(lastEventId, (missed) => attach(undefined, missed ?? 'resync'));
      return;
    }
    const readyId = await log.currentId().catch(() => undefined);
    attach(readyId, undefined);
  }

  /** Ends the streams of one session (on sign-out). */
  endSession(sessionId: string): void {
    for (const [sink, end] of [...this.ends]) if (sink.sessionId === sessionId) end();
  }

  /** Ends every stream, so the server can close (on shutdown); answers how many were open. */
  close(): number {
    const open = [...this.ends.values()];
    for (const end of open) end();
    this.fanOut.close();
    return open.length;
  }

  /** The first stream opened: listen to the board, and beat. */
  private busy(): void {
    this.unsubscribe ??= this.options.events.subscribe((event) => {
      if (event.type === 'resync') void this.recheckSessions();
      // Changes are read from the log (with their ids); the rest (presence, resync) go out as they come.
      if (this.log && isLogged(event)) return this.log.changed();
      const outgoing = outgoingFor(event);
      if (outgoing) this.fanOut.push(outgoing);
    });
    if (!this.heartbeat) {
      // A comment line keeps proxies from closing an idle stream; a session that ended meanwhile is closed instead.
      this.heartbeat = setInterval(() => this.fanOut.push({ text: ': heartbeat\n\n' }), HEARTBEAT_MS);
      this.heartbeat.unref();
    }
  }

  /**
   * Events were missed (several daemons: the database listener reconnected), a sign-out through another daemon among
   * them perhaps: each open stream's session is asked of the shared store again, one query per session, and a session
   * no longer there has its streams ended. A failed query keeps the stream; the next resync asks again.
   */
  private async recheckSessions(): Promise<void> {
    const ids = new Set([...this.ends.keys()].map((sink) => sink.sessionId));
    for (const id of ids) {
      const agent = await this.options.sessions.lookUp(id).catch(() => 'unknown' as const);
      if (agent === undefined) this.endSession(id);
    }
  }

  /** The last stream closed: the board's events cost nothing here any more. */
  private idle(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    // The next stream starts from the log's head then, not from where this one left off.
    this.log = this.newLog();
  }
}

export function eventRoutes(live: LiveStreams): Hono<{ Variables: SessionVariables } & { Bindings: HttpBindings }> {
  const routes = new Hono<{ Variables: SessionVariables } & { Bindings: HttpBindings }>();
  routes.get('/', async (c) => {
    const response = c.env?.outgoing;
    if (!response) throw new Internal();
    // Written to the socket directly: a stream through Hono's web-stream layer costs tens of microseconds per write.
    await live.open(response, c.get('agent'), c.get('sessionId'), { 'X-Request-Id': c.get('requestId') }, c.req.header('last-event-id'));
    return RESPONSE_ALREADY_SENT;
  });
  return routes;
}
