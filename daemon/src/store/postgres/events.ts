// Board events across daemons: each event is delivered here at once, as in one process, and sent to the other daemons
// on the same database with NOTIFY; each daemon LISTENs and delivers what the others sent. Payloads are ids, names and
// states only (events.ts), well under PostgreSQL's 8000-byte limit. What is sent while the listening connection is
// down is not kept for it; the board's changes are in the event log, though, so after it reconnects the daemon reads
// the log from the position it had reached and delivers what it missed (issue 24), then tells live pages to resync.
import type { Sql } from './connection.js';
import type { ListenHandle } from './listener.js';
import { LocalEventBus, type BoardEvent, type BoardEventListener, type EventBus } from '../../events.js';
import { log } from '../../runtime/log.js';
import { comparePositions, type LogPosition } from '../event-log.js';
import { eventLogHead, readEvents } from './event-log.js';

/** Each project's own (connection.ts channelIn): one project's events never wake another's waiters. */
const CHANNEL = 'roundtable_events';
/** NOTIFY refuses payloads of 8000 bytes or more: the events of one notification stay under this many bytes, the envelope around them. */
const MAX_EVENT = 7800;
/**
 * Reconnection callbacks this close together make one resync. They come in one burst, but a busy event loop can
 * spread a burst over tens of milliseconds; a resync only makes waiters look again, so waiting this long costs little.
 */
const RESYNC_SETTLE_MS = 200;
/** After activity, the log's head is read this soon (once, however much activity). */
const CHECKPOINT_MS = 2_000;
/**
 * ... and taken as the position this daemon has had every event up to this much later, if the same listening
 * connection is still up: longer than a silent connection takes to be found and cut (listener.ts: 5 s + 5 s), so a
 * stall in between is a drop in between. A reconnect replays from the last position taken: the events of the last
 * few seconds before the outage are delivered twice, which only makes waiters look again.
 */
const CHECKPOINT_SETTLE_MS = 12_000;
/** A replay reads the log in pages of this many rows. */
const REPLAY_PAGE = 1_000;
/** Rows committed behind an older transaction still running are looked for again this soon, this many times. */
const HELD_RETRY_MS = 20;
const HELD_RETRIES = 50;

/**
 * One notification: one event, or several published in the same turn of this daemon's event loop. Under load a
 * notification per event woke every other daemon (and its database backend) once per write; a batch wakes them once.
 * Daemons on one board run the same version: an older one would not read a batch.
 */
type Envelope =
  /** `from`: the daemon that published it, which delivered the events already and skips its own notification. */
  { readonly from: string; readonly event: BoardEvent } | { readonly from: string; readonly events: readonly BoardEvent[] };

export class PostgresEventBus implements EventBus {
  private readonly local = new LocalEventBus();
  private listening: ListenHandle | undefined;
  private resyncing: NodeJS.Timeout | undefined;
  /** Events of this turn of the event loop, each already serialized, sent together when it ends. */
  private outgoing: string[] = [];
  private flushing: NodeJS.Immediate | undefined;
  /** How far in the event log this daemon has had every event (delivered here, or replayed). */
  private position: LogPosition | undefined;
  private checkpointing: NodeJS.Timeout | undefined;
  private replaying: Promise<void> | undefined;
  private closed = false;

  private constructor(
    private readonly sql: Sql,
    private readonly daemonId: string,
  ) {}

  /**
   * Starts listening before it returns, so nothing another daemon publishes after start-up is missed. The driver
   * re-establishes a dropped listening connection by itself and calls back each time it listens again: a `resync`.
   */
  static async start(sql: Sql, daemonId: string): Promise<PostgresEventBus> {
    const bus = new PostgresEventBus(sql, daemonId);
    // Read before listening: whatever commits after it is either heard or found in the log after a reconnect.
    bus.position = await eventLogHead(sql);
    let listened = false;
    bus.listening = await sql.listen(
      sql.channel(CHANNEL),
      (payload) => bus.received(payload),
      () => {
        if (listened) bus.resync();
        listened = true;
      },
    );
    return bus;
  }

  publish(event: BoardEvent): void {
    this.local.publish(event);
    this.checkpointSoon();
    let json = JSON.stringify(event);
    // A message to very many named members: tell the others it went to all; their waiters look again and find nothing new.
    if (Buffer.byteLength(json) > MAX_EVENT && event.type === 'room') json = JSON.stringify({ ...event, to: 'all' });
    if (Buffer.byteLength(json) > MAX_EVENT) {
      log.warn('an event too large to send to the other daemons was delivered here only', { type: event.type });
      return;
    }
    this.outgoing.push(json);
    this.flushing ??= setImmediate(() => this.flush());
  }

  /**
   * Sends this turn's events: as few notifications as fit under PostgreSQL's payload limit, all in one statement, so
   * they are delivered in the order they were published.
   */
  private flush(): void {
    this.flushing = undefined;
    const events = this.outgoing;
    this.outgoing = [];
    const from = JSON.stringify(this.daemonId);
    const payloads: string[] = [];
    let batch: string[] = [];
    let bytes = 0;
    const close = () => {
      if (batch.length === 0) return;
      // One event goes in the single-event shape; the JSON is assembled from the pieces already serialized.
      payloads.push(batch.length === 1 ? `{"from":${from},"event":${batch[0]}}` : `{"from":${from},"events":[${batch.join(',')}]}`);
      batch = [];
      bytes = 0;
    };
    for (const json of events) {
      const size = Buffer.byteLength(json) + 1;
      if (bytes + size > MAX_EVENT) close();
      batch.push(json);
      bytes += size;
    }
    close();
    const text = `SELECT ${payloads.map((_, i) => `pg_notify($1, $${i + 2})`).join(', ')}`;
    this.sql.unsafe(text, [this.sql.channel(CHANNEL), ...payloads]).catch((error: unknown) => log.error('sending an event to the other daemons failed', { error: String(error) }));
  }

  subscribe(listener: BoardEventListener): () => void {
    return this.local.subscribe(listener);
  }

  /**
   * After an outage the driver calls back once per failed attempt to reconnect, all at once when one succeeds:
   * those callbacks make one replay. What this daemon missed is read from the log and delivered here; then live
   * pages and the lease sweep are told to look again (sign-outs and presence are not in the log).
   */
  private resync(): void {
    if (this.resyncing) return;
    this.resyncing = setTimeout(() => {
      this.resyncing = undefined;
      this.replaying ??= this.replay().finally(() => (this.replaying = undefined));
    }, RESYNC_SETTLE_MS);
  }

  private async replay(): Promise<void> {
    const from = this.position;
    const started = performance.now();
    let delivered = 0;
    try {
      if (!from) throw new Error('no position in the event log to replay from');
      let at = from;
      for (let held = 0; !this.closed; ) {
        const page = await this.sql.begin('ISOLATION LEVEL REPEATABLE READ READ ONLY', (tx) => readEvents(tx, at, REPLAY_PAGE));
        if (page.expired) throw new Error('the event log no longer reaches the position this daemon had');
        for (const entry of page.entries) this.local.publish(entry.event);
        delivered += page.entries.length;
        at = page.end;
        this.advance(at);
        if (page.more) continue;
        if (!page.held || ++held > HELD_RETRIES) break;
        await new Promise((resolve) => setTimeout(resolve, HELD_RETRY_MS));
      }
      log.warn('the database listener reconnected; the events sent meanwhile were read from the event log', { events: delivered, ms: Math.round(performance.now() - started) });
      this.local.publish({ type: 'resync', replayed: true });
    } catch (error) {
      log.warn('the database listener reconnected and the event log could not be replayed; waiters and live pages look again', { error: String(error) });
      this.local.publish({ type: 'resync' });
    }
  }

  /**
   * After activity: reads the log's head, and takes it as reached CHECKPOINT_MS later if the same listening
   * connection was up at the read and still is (a drop in between leaves the position where it was).
   */
  private checkpointSoon(): void {
    if (this.checkpointing || this.closed) return;
    this.checkpointing = setTimeout(() => {
      const connection = this.listening?.connection();
      if (connection === undefined) {
        this.checkpointing = undefined;
        return;
      }
      eventLogHead(this.sql)
        .then((head) => new Promise<LogPosition>((resolve) => (this.checkpointing = setTimeout(() => resolve(head), CHECKPOINT_SETTLE_MS))))
        .then((head) => {
          if (this.listening?.connection() === connection && !this.replaying && !this.resyncing) this.advance(head);
        })
        .catch(() => {})
        .finally(() => (this.checkpointing = undefined));
    }, CHECKPOINT_MS);
  }

  private advance(to: LogPosition): void {
    if (!this.position || comparePositions(to, this.position) > 0) this.position = to;
  }

  private received(payload: string): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(payload) as Envelope;
    } catch {
      return;
    }
    if (envelope.from === this.daemonId) return;
    this.checkpointSoon();
    for (const event of 'events' in envelope ? envelope.events : [envelope.event]) this.local.publish(event);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.resyncing);
    clearTimeout(this.checkpointing);
    // What this turn published still goes out (a release at shutdown, say).
    if (this.flushing) {
      clearImmediate(this.flushing);
      this.flush();
    }
    await this.listening?.unlisten().catch(() => {});
  }
}
