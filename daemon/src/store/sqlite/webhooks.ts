// Webhooks on SQLite: the outbox rows written in the change's transaction (enqueueDeliveries, which the store's change()
// calls for what consequences.ts derives), what the worker takes and records, and the owner's configuration. Secrets live in a file (secret-file.ts).
import type Database from 'better-sqlite3';
import { eventsColumn, type WebhookEvent } from '../webhook-events.js';
import { toClaimedDelivery, toDeliveryRow, toWebhookConfig, toWebhookHealth, WEBHOOK_HEALTH_SQL, type HealthDbRow } from '../webhook-rows.js';
import type { ClaimedDelivery, NewWebhook, OutboxStatus, SecretLookup, WebhookConfig, WebhookHealth } from '../webhooks-port.js';

interface WebhookRow {
  id: string;
  url: string;
  events: string;
  format: string;
  allow_loopback: number;
  allow_private: number;
  created_at: string;
}

interface DeliveryDbRow {
  id: string;
  webhook_id: string;
  event: string;
  facts: string;
  state: string;
  attempts: number;
  next_attempt_at: string;
  last_error: string | null;
  created_at: string;
}

export class SqliteWebhooks {
  private readonly stmt;

  constructor(
    private readonly db: Database.Database,
    private readonly secretOf: SecretLookup = () => undefined,
  ) {
    this.stmt = {
      // One statement for every webhook of the event: with none configured it reads one empty table and writes nothing.
      enqueue: db.prepare(
        `INSERT INTO webhook_deliveries (id, webhook_id, event, facts, next_attempt_at, created_at)
         SELECT @id || '_' || id, id, @event, @facts, @at, @at FROM webhooks WHERE instr(events, @needle) > 0`,
      ),
      enqueueOne: db.prepare(
        `INSERT INTO webhook_deliveries (id, webhook_id, event, facts, next_attempt_at, created_at)
         SELECT @id || '_' || id, id, @event, @facts, @at, @at FROM webhooks WHERE id = @webhook`,
      ),
      // One daemon per file (db-lock.ts): what it attempts is known in memory, so taking a delivery writes nothing.
      dueUnleased: db.prepare(
        `SELECT * FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at <= @now ORDER BY next_attempt_at LIMIT @limit`,
      ),
      earliest: db.prepare("SELECT id, next_attempt_at FROM webhook_deliveries WHERE state = 'pending' ORDER BY next_attempt_at LIMIT ?"),
      webhook: db.prepare('SELECT * FROM webhooks WHERE id = ?'),
      delivered: db.prepare("UPDATE webhook_deliveries SET state = 'delivered', attempts = attempts + 1, last_error = NULL, finished_at = @at WHERE id = @id AND state = 'pending'"),
      retry: db.prepare("UPDATE webhook_deliveries SET attempts = attempts + 1, last_error = @error, next_attempt_at = @retry WHERE id = @id AND state = 'pending'"),
      dead: db.prepare("UPDATE webhook_deliveries SET state = 'dead', attempts = attempts + 1, last_error = @error, finished_at = @at WHERE id = @id AND state = 'pending'"),
      // The webhook's last attempt, beside the delivery's outcome (same transaction: the caller's write()).
      lastAttempt: db.prepare(
        'UPDATE webhooks SET last_attempt_at = @at, last_outcome = @outcome, last_error = @error WHERE id = (SELECT webhook_id FROM webhook_deliveries WHERE id = @id)',
      ),
      health: db.prepare(WEBHOOK_HEALTH_SQL),
      // Changes whenever another connection (another process) commits to the file; this one's own writes leave it.
      dataVersion: db.prepare('PRAGMA data_version').pluck(),
      purge: db.prepare("DELETE FROM webhook_deliveries WHERE state = 'delivered' AND finished_at < ?"),
      insertWebhook: db.prepare(
        'INSERT INTO webhooks (id, url, events, format, allow_loopback, allow_private, created_at) VALUES (@id, @url, @events, @format, @allow_loopback, @allow_private, @created_at)',
      ),
      listWebhooks: db.prepare('SELECT * FROM webhooks ORDER BY created_at, id'),
      removeWebhook: db.prepare('DELETE FROM webhooks WHERE id = ?'),
      countState: db.prepare('SELECT state, COUNT(*) AS n FROM webhook_deliveries GROUP BY state'),
      deadList: db.prepare("SELECT * FROM webhook_deliveries WHERE state = 'dead' ORDER BY finished_at DESC, id DESC LIMIT ?"),
    };
  }

  /**
   * Writes one outbox row per webhook listening to the event, inside the caller's transaction; null writes nothing.
   * Called only from the store's change(), for the webhook events consequences.ts derives from the change.
   */
  enqueueDeliveries(event: WebhookEvent | null): void {
    if (!event) return;
    this.stmt.enqueue.run({ id: event.id, event: event.type, facts: JSON.stringify(event), at: event.at, needle: `,${event.type},` });
  }

  /** The due deliveries not in `held` (those this daemon attempts now), up to `limit`; a read, no lease written. */
  takeDue(now: string, held: ReadonlySet<string>, limit: number): ClaimedDelivery[] {
    const claimed: ClaimedDelivery[] = [];
    for (const row of this.stmt.dueUnleased.all({ now, limit: limit + held.size }) as DeliveryDbRow[]) {
      if (held.has(row.id) || claimed.length >= limit) continue;
      const webhook = this.stmt.webhook.get(row.webhook_id) as WebhookRow | undefined;
      if (!webhook) continue;
      claimed.push(toClaimedDelivery(row, webhook, this.secretOf(row.webhook_id)));
    }
    return claimed;
  }

  /** When the earliest pending delivery not in `held` falls due, or null. */
  nextDueExcept(held: ReadonlySet<string>): string | null {
    const rows = this.stmt.earliest.all(held.size + 1) as Array<{ id: string; next_attempt_at: string }>;
    return rows.find((r) => !held.has(r.id))?.next_attempt_at ?? null;
  }

  markDelivered(id: string, at: string): void {
    this.stmt.delivered.run({ id, at });
    this.stmt.lastAttempt.run({ id, at, outcome: 'delivered', error: null });
  }

  markFailed(id: string, error: string, retryAt: string | null, at: string): void {
    if (retryAt === null) this.stmt.dead.run({ id, error, at });
    else this.stmt.retry.run({ id, error, retry: retryAt });
    this.stmt.lastAttempt.run({ id, at, outcome: 'failed', error });
  }

  /** SQLite's data_version: a number that changes when another process commits to the file. */
  dataVersion(): number {
    return this.stmt.dataVersion.get() as number;
  }

  purgeDelivered(olderThan: string): number {
    return this.stmt.purge.run(olderThan).changes;
  }

  addWebhook(webhook: Omit<NewWebhook, 'secret'>, id: string, at: string): WebhookConfig {
    const row = {
      id,
      url: webhook.url,
      events: eventsColumn(webhook.events),
      format: webhook.format,
      allow_loopback: webhook.allowLoopback ? 1 : 0,
      allow_private: webhook.allowPrivate ? 1 : 0,
      created_at: at,
    };
    this.stmt.insertWebhook.run(row);
    return toWebhookConfig(row);
  }

  listWebhooks(): WebhookConfig[] {
    return (this.stmt.listWebhooks.all() as WebhookRow[]).map(toWebhookConfig);
  }

  removeWebhook(id: string): boolean {
    return this.stmt.removeWebhook.run(id).changes > 0;
  }

  /** One delivery for one webhook; false when there is no such webhook. */
  enqueueFor(webhookId: string, event: WebhookEvent): boolean {
    return this.stmt.enqueueOne.run({ id: event.id, event: event.type, facts: JSON.stringify(event), at: event.at, webhook: webhookId }).changes > 0;
  }

  status(limit: number): OutboxStatus {
    const counts = new Map((this.stmt.countState.all() as Array<{ state: string; n: number }>).map((r) => [r.state, r.n]));
    return {
      webhooks: (this.stmt.health.all() as HealthDbRow[]).map(toWebhookHealth),
      pending: counts.get('pending') ?? 0,
      delivered: counts.get('delivered') ?? 0,
      deadTotal: counts.get('dead') ?? 0,
      dead: (this.stmt.deadList.all(limit) as DeliveryDbRow[]).map(toDeliveryRow),
    };
  }
}
