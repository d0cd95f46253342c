// Board events across daemons: each event is delivered here at once, as in one process, and sent to the other daemons
// on the same database with NOTIFY; each daemon LISTENs and delivers what the others sent. Payloads are ids, names and
// states only (events.ts), well under PostgreSQL's 8000-byte limit. What is sent while the listening connection is
// down is not kept for it, so after it reconnects every local waiter and live page is told to read the board again.
import type postgres from 'postgres';
import { LocalEventBus, type BoardEvent, type BoardEventListener, type EventBus } from '../../events.js';
import { log } from '../../log.js';

const CHANNEL = 'roundtable_events';
/** NOTIFY refuses payloads of 8000 bytes or more. */
const MAX_PAYLOAD = 7900;
/**
 * Reconnection callbacks this close together make one resync. They come in one burst, but a busy event loop can
 * spread a burst over tens of milliseconds; a resync only makes waiters look again, so waiting this long costs little.
 */
const RESYNC_SETTLE_MS = 200;

interface Envelope {
  /** The daemon that published it: it delivered the event already and skips its own notification. */
  readonly from: string;
  readonly event: BoardEvent;
}

export class PostgresEventBus implements EventBus {
  private readonly local = new LocalEventBus();
  private listening: postgres.ListenMeta | undefined;
  private resyncing: NodeJS.Timeout | undefined;

  private constructor(
    private readonly sql: postgres.Sql,
    private readonly daemonId: string,
  ) {}

  /**
   * Starts listening before it returns, so nothing another daemon publishes after start-up is missed. The driver
   * re-establishes a dropped listening connection by itself and calls back each time it listens again: a `resync`.
   */
  static async start(sql: postgres.Sql, daemonId: string): Promise<PostgresEventBus> {
    const bus = new PostgresEventBus(sql, daemonId);
    let listened = false;
    bus.listening = await sql.listen(
      CHANNEL,
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
    let payload = JSON.stringify({ from: this.daemonId, event } satisfies Envelope);
    // A message to very many named members: tell the others it went to all; their waiters look again and find nothing new.
    if (payload.length > MAX_PAYLOAD && event.type === 'room') payload = JSON.stringify({ from: this.daemonId, event: { ...event, to: 'all' } } satisfies Envelope);
    if (payload.length > MAX_PAYLOAD) {
      log.warn('an event too large to send to the other daemons was delivered here only', { type: event.type });
      return;
    }
    this.sql.notify(CHANNEL, payload).catch((error: unknown) => log.error('sending an event to the other daemons failed', { error: String(error) }));
  }

  subscribe(listener: BoardEventListener): () => void {
    return this.local.subscribe(listener);
  }

  /**
   * After an outage the driver calls back once per failed attempt to reconnect, all at once when one succeeds:
   * those callbacks make one resync.
   */
  private resync(): void {
    if (this.resyncing) return;
    this.resyncing = setTimeout(() => {
      this.resyncing = undefined;
      log.warn('the database listener reconnected; events sent meanwhile are lost, so waiters and live pages look again');
      this.local.publish({ type: 'resync' });
    }, RESYNC_SETTLE_MS);
  }

  private received(payload: string): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(payload) as Envelope;
    } catch {
      return;
    }
    if (envelope.from === this.daemonId) return;
    this.local.publish(envelope.event);
  }

  async close(): Promise<void> {
    clearTimeout(this.resyncing);
    await this.listening?.unlisten().catch(() => {});
  }
}
