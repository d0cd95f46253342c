// The LISTEN connection: one per pool, kept open across resets and restarts of the database. After every reconnect
// it listens on every channel again and calls each subscriber's onListen, since notifications sent meanwhile are lost.
import pg from 'pg';
import { log } from '../../runtime/log.js';
import { cutConnection } from './failures.js';

export interface ListenHandle {
  unlisten(): Promise<void>;
  /** Which connection listens now (a new number after every reconnect), undefined while none does. */
  connection(): number | undefined;
}

interface Subscriber {
  readonly onNotify: (payload: string) => void;
  readonly onListen: (() => void) | undefined;
}

export interface ListenerOptions {
  readonly url: string;
  /** How long connecting may take before the attempt counts as failed. */
  readonly connectMs: number;
  readonly types: pg.CustomTypesConfig;
}

/** Reconnecting waits 50 ms, doubling each failed attempt up to this: back within about 2 s of the database. */
const MAX_BACKOFF_MS = 2_000;
/**
 * A connection the network stopped carrying (no reset, nothing answered) looks open forever: a query every few
 * seconds that gets no answer in time ends it, and the listener connects again.
 */
const HEARTBEAT_MS = 5_000;

/** How the listening connection shows in pg_stat_activity, beside the pool's 'roundtable'. */
export const LISTENER_NAME = 'roundtable listener';

const quoted = (channel: string) => `"${channel.replace(/"/g, '""')}"`;

export class Listener {
  private client: pg.Client | undefined;
  private readonly channels = new Map<string, Set<Subscriber>>();
  private started: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private failures = 0;
  private closed = false;
  private connections = 0;

  constructor(private readonly options: ListenerOptions) {}

  async listen(channel: string, onNotify: (payload: string) => void, onListen?: () => void): Promise<ListenHandle> {
    const subscriber: Subscriber = { onNotify, onListen };
    let subscribers = this.channels.get(channel);
    const fresh = !subscribers;
    if (!subscribers) this.channels.set(channel, (subscribers = new Set()));
    subscribers.add(subscriber);
    try {
      // The first listen connects (and fails if it cannot); later ones ride on the connection there is, or on the next.
      this.started ??= this.connect();
      await this.started;
      const client = this.client;
      if (client) {
        if (fresh) await client.query(`LISTEN ${quoted(channel)}`);
        onListen?.();
      }
    } catch (error) {
      subscribers.delete(subscriber);
      if (subscribers.size === 0) this.channels.delete(channel);
      throw error;
    }
    return {
      connection: () => (this.client ? this.connections : undefined),
      unlisten: async () => {
        subscribers.delete(subscriber);
        if (subscribers.size > 0 || this.channels.get(channel) !== subscribers) return;
        this.channels.delete(channel);
        // Not waited for: at shutdown a stalled database would never answer it, and nothing depends on its answer.
        this.client?.query(`UNLISTEN ${quoted(channel)}`).catch(() => {});
      },
    };
  }

  /** Connects and listens on every channel; the first time, a failure is thrown; later, it is retried. */
  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.url, connectionTimeoutMillis: this.options.connectMs, application_name: LISTENER_NAME, keepAlive: true, types: this.options.types });
    // Unheard, a socket error on this client would end the process; it ends the connection, and 'end' reconnects.
    client.on('error', (error) => log.warn('the database listener connection failed; reconnecting', { error: error.message }));
    client.on('notification', (message) => {
      for (const subscriber of this.channels.get(message.channel) ?? []) subscriber.onNotify(message.payload ?? '');
    });
    try {
      await client.connect();
      for (const channel of this.channels.keys()) await client.query(`LISTEN ${quoted(channel)}`);
    } catch (error) {
      cutConnection(client);
      client.end().catch(() => {});
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    client.once('end', () => this.lost(client));
    this.client = client;
    this.connections += 1;
    this.failures = 0;
    this.beat(client);
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    clearTimeout(this.heartbeat);
    if (!this.closed) this.reconnectSoon();
  }

  private reconnectSoon(): void {
    const wait = Math.min(50 * 2 ** this.failures, MAX_BACKOFF_MS);
    this.failures++;
    this.retry = setTimeout(() => {
      this.connect().then(
        () => {
          // Everything sent while the connection was down is lost: every subscriber looks again.
          for (const subscribers of this.channels.values()) for (const s of subscribers) s.onListen?.();
        },
        (error: unknown) => {
          if (this.closed) return;
          log.warn('reconnecting the database listener failed; trying again', { error: (error as Error).message });
          this.reconnectSoon();
        },
      );
    }, wait);
    this.retry.unref();
  }

  /** A query every HEARTBEAT_MS; one that gets no answer within HEARTBEAT_MS cuts the connection (see above). */
  private beat(client: pg.Client): void {
    this.heartbeat = setTimeout(() => {
      if (this.client !== client) return;
      const silent = setTimeout(() => {
        log.warn('the database listener connection stopped answering; reconnecting');
        cutConnection(client);
      }, HEARTBEAT_MS);
      client.query('SELECT 1').then(
        () => {
          clearTimeout(silent);
          this.beat(client);
        },
        () => clearTimeout(silent),
      );
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    clearTimeout(this.heartbeat);
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    let timer: NodeJS.Timeout | undefined;
    // A stalled network never answers the goodbye: cut the connection after a second.
    await Promise.race([client.end().catch(() => {}), new Promise<void>((resolve) => (timer = setTimeout(resolve, 1_000)))]);
    clearTimeout(timer);
    cutConnection(client);
  }
}
