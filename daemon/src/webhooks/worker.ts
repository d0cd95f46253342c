// The delivery worker: woken by the board's events after a commit, by rows another process wrote (`webhooks test`)
// and by retry due-times, it takes leases on due outbox rows, signs and sends each, and records the outcome: delivered,
// a retry with backoff, or the dead-letter list. Every failed attempt is a warn line (ids and the receiver's origin).
import type { BoardEvent, EventBus } from '../events.js';
import { log } from '../runtime/log.js';
import type { ClaimedDelivery, WebhookOutbox } from '../store/webhooks-port.js';
import { retryDelayMs, type RetrySchedule } from './backoff.js';
import { attemptDelivery, type AttemptOutcome, type AttemptRequest } from './deliver.js';
import { renderBody } from './payload.js';
import { signatureHeader } from './signing.js';

export interface WorkerOptions {
  readonly outbox: WebhookOutbox;
  readonly events: EventBus;
  readonly publicUrl: string | undefined;
  readonly retry: RetrySchedule;
  readonly timeoutMs: number;
  /** Attempts in flight at once. */
  readonly concurrency?: number;
  readonly send?: (request: AttemptRequest) => Promise<AttemptOutcome>;
}

/** Actions whose commit may have written an outbox row (events.ts eventOfChange and friends); a claim wakes nothing. */
const WAKING_ACTIONS = new Set(['submitted', 'rejected', 'lease_expired', 'cancelled']);

/**
 * A slow look as a last resort: rows written by another process are announced by the store (watchOutsideWrites), and
 * new work from the board by its events; this only catches what both missed.
 */
const CATCH_UP_MS = 30_000;
const PURGE_AFTER_MS = 24 * 3_600_000;

function wakes(event: BoardEvent): boolean {
  if (event.type === 'task') return WAKING_ACTIONS.has(event.action);
  return event.type === 'task_message' || event.type === 'room' || event.type === 'resync';
}

const iso = (ms: number) => new Date(ms).toISOString();

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'unparsable';
  }
}

export class DeliveryWorker {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  private readonly concurrency: number;
  private readonly leaseMs: number;
  private readonly send: (request: AttemptRequest) => Promise<AttemptOutcome>;
  private draining: Promise<void> | undefined;
  private again = false;
  private closing = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly catchUp: NodeJS.Timeout;
  private readonly unsubscribe: () => void;
  private readonly unwatch: () => void;
  private lastPurge = 0;

  constructor(private readonly options: WorkerOptions) {
    this.concurrency = options.concurrency ?? 16;
    // Longer than any attempt can take, so a live worker's lease never ends under it.
    this.leaseMs = options.timeoutMs + 10_000;
    this.send = options.send ?? attemptDelivery;
    this.unsubscribe = options.events.subscribe((event) => {
      if (wakes(event)) this.wake();
    });
    this.unwatch = options.outbox.watchOutsideWrites(() => this.wake());
    this.catchUp = setTimeout(function tick(this: DeliveryWorker) {
      this.wake();
      this.catchUp.refresh();
    }.bind(this), CATCH_UP_MS);
    this.catchUp.unref();
    this.wake();
  }

  /** Looks for due deliveries now; calls while a look runs make it look once more. */
  wake(): void {
    if (this.closing) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = this.drain().finally(() => {
      this.draining = undefined;
    });
  }

  private async drain(): Promise<void> {
    try {
      for (;;) {
        this.again = false;
        const free = this.concurrency - this.inFlight.size;
        if (free > 0 && !this.closing) {
          const now = Date.now();
          const claimed = await this.options.outbox.claimDue(iso(now), iso(now + this.leaseMs), free);
          // Taken while close() began: left to their leases (PostgreSQL) or to the next start (SQLite).
          if (this.closing) break;
          for (const delivery of claimed) this.launch(delivery);
          if (claimed.length === free) this.again = true;
        }
        if (!this.again) await this.scheduleNext();
        if (!this.again || this.closing) break;
      }
    } catch (error) {
      log.warn('webhook outbox unavailable; trying again in 1s', { error: (error as { code?: string }).code ?? 'internal' });
      this.schedule(1_000);
    }
  }

  private async scheduleNext(): Promise<void> {
    if (Date.now() - this.lastPurge > 3_600_000) {
      this.lastPurge = Date.now();
      await this.options.outbox.purgeDelivered(iso(Date.now() - PURGE_AFTER_MS));
    }
    const due = await this.options.outbox.nextDue();
    if (due === null) return;
    // A due row this daemon could not take is another's lease or a full pool: finishing attempts wake us sooner.
    this.schedule(Math.max(50, Date.parse(due) - Date.now()));
  }

  private schedule(delayMs: number): void {
    if (this.closing) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), Math.min(delayMs, 2 ** 31 - 1));
  }

  private launch(delivery: ClaimedDelivery): void {
    const running: Promise<void> = this.attempt(delivery)
      .catch((error: unknown) => log.error('recording a webhook attempt failed', { delivery: delivery.id, error: (error as { code?: string }).code ?? 'internal' }))
      .finally(() => {
        this.inFlight.delete(running);
        this.wake();
      });
    this.inFlight.add(running);
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const { webhook } = delivery;
    let outcome: AttemptOutcome;
    if (!delivery.secret) {
      outcome = { ok: false, error: 'no_secret' };
    } else {
      const rendered = renderBody(delivery.event, webhook.format, this.options.publicUrl);
      const timestamp = Math.floor(Date.now() / 1000);
      outcome = await this.send({
        url: webhook.url,
        allow: { loopback: webhook.allowLoopback, private: webhook.allowPrivate },
        headers: {
          'content-type': rendered.contentType,
          ...rendered.headers,
          'webhook-id': delivery.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(delivery.secret, delivery.id, timestamp, rendered.body),
        },
        body: rendered.body,
        connectTimeoutMs: Math.min(3_000, this.options.timeoutMs),
        responseTimeoutMs: this.options.timeoutMs,
        signal: this.abort.signal,
      });
    }
    const at = Date.now();
    if (outcome.ok) {
      await this.options.outbox.markDelivered(delivery.id, iso(at));
      log.debug('webhook delivered', { delivery: delivery.id, webhook: webhook.id, event: delivery.event.type, attempt: delivery.attempts + 1 });
      return;
    }
    // Cut off by shutdown: no attempt is counted, and the lease is let go, so another daemon may take it at once.
    if (outcome.error === 'shutdown') return this.options.outbox.release(delivery.id);
    const delay = retryDelayMs(delivery.attempts + 1, this.options.retry);
    await this.options.outbox.markFailed(delivery.id, outcome.error, delay === null ? null : iso(at + delay), iso(at));
    // The origin only: a chat webhook's path or query is its credential.
    const fields = { delivery: delivery.id, webhook: webhook.id, receiver: originOf(webhook.url), event: delivery.event.type, attempt: delivery.attempts + 1, error: outcome.error };
    if (delay === null) log.warn('webhook delivery failed and was dead-lettered after its last attempt; `roundtable webhooks status` lists it', fields);
    else log.warn('webhook delivery failed; will retry', { ...fields, retry_in_ms: delay, retry_at: iso(at + delay) });
  }

  /** Stops taking work, lets attempts in flight finish until the deadline, then cuts them off. */
  async close(deadlineMs = 3_000): Promise<void> {
    this.closing = true;
    this.unsubscribe();
    this.unwatch();
    clearTimeout(this.timer);
    clearTimeout(this.catchUp);
    await this.draining;
    if (this.inFlight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...this.inFlight]), new Promise((resolve) => (timer = setTimeout(resolve, deadlineMs)))]);
      clearTimeout(timer);
    }
    this.abort.abort();
    await Promise.allSettled([...this.inFlight]);
  }
}
