// Board events across daemons: each event is delivered here at once, as in one process, and sent to the other daemons
// on the same database with NOTIFY; each daemon LISTENs and delivers what the others sent. Payloads are ids, names and
// states only (events.ts), well under PostgreSQL's 8000-byte limit.
import { randomUUID } from 'node:crypto';
import type postgres from 'postgres';
import { LocalEventBus, type BoardEvent, type BoardEventListener, type EventBus } from '../../events.js';
import { log } from '../../log.js';

const CHANNEL = 'roundtable_events';
/** NOTIFY refuses payloads of 8000 bytes or more. */
const MAX_PAYLOAD = 7900;

interface Envelope {
  /** The daemon that published it: it delivered the event already and skips its own notification. */
  readonly from: string;
  readonly event: BoardEvent;
}

export class PostgresEventBus implements EventBus {
  private readonly local = new LocalEventBus();
  private readonly daemonId = randomUUID();
  private listening: postgres.ListenMeta | undefined;

  private constructor(private readonly sql: postgres.Sql) {}

  /** Starts listening before it returns, so nothing another daemon publishes after start-up is missed. */
  static async start(sql: postgres.Sql): Promise<PostgresEventBus> {
    const bus = new PostgresEventBus(sql);
    bus.listening = await sql.listen(CHANNEL, (payload) => bus.received(payload));
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
    await this.listening?.unlisten().catch(() => {});
  }
}
