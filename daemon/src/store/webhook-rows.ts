// The webhook rows as both stores read them: one mapping from the columns of webhooks and webhook_deliveries to the
// outbox port's types, as history-rows.ts and room-rows.ts do for theirs. A column added to either table is mapped here.
import { randomBytes } from 'node:crypto';
import { eventsOfColumn, type WebhookEvent } from './webhook-events.js';
import type { ClaimedDelivery, DeliveryRow, WebhookConfig, WebhookFormat, WebhookHealth } from './webhooks-port.js';

/** A row of webhooks as read; the flags are 0/1 on SQLite and booleans on PostgreSQL. */
export interface WebhookColumns {
  readonly id: string;
  readonly url: string;
  readonly events: string;
  readonly format: string;
  readonly allow_loopback: unknown;
  readonly allow_private: unknown;
  readonly created_at: string;
}

/** A row of webhook_deliveries as read; counts may come back as text from PostgreSQL. */
export interface DeliveryColumns {
  readonly id: string;
  readonly webhook_id: string;
  readonly event: string;
  readonly state: string;
  readonly attempts: unknown;
  readonly next_attempt_at: string;
  readonly last_error: string | null;
  readonly created_at: string;
}

export function newWebhookId(): string {
  return `wh_${randomBytes(6).toString('hex')}`;
}

export function toWebhookConfig(row: WebhookColumns): WebhookConfig {
  return {
    id: row.id,
    url: row.url,
    events: eventsOfColumn(row.events),
    format: row.format as WebhookFormat,
    allowLoopback: Boolean(row.allow_loopback),
    allowPrivate: Boolean(row.allow_private),
    createdAt: row.created_at,
  };
}

export function toDeliveryRow(row: DeliveryColumns): DeliveryRow {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    event: row.event as DeliveryRow['event'],
    state: row.state as DeliveryRow['state'],
    attempts: Number(row.attempts),
    nextAttemptAt: row.next_attempt_at,
    lastError: row.last_error,
    createdAt: row.created_at,
  };
}

/** A delivery a worker took: its stored facts, its webhook's row, and the secret (undefined when it cannot be read). */
export function toClaimedDelivery(delivery: { readonly id: string; readonly facts: string; readonly attempts: unknown }, webhook: WebhookColumns, secret: string | undefined): ClaimedDelivery {
  return { id: delivery.id, event: JSON.parse(delivery.facts) as WebhookEvent, attempts: Number(delivery.attempts), webhook: toWebhookConfig(webhook), secret };
}

/** The per-webhook status query's row (both stores select the same columns). */
export interface HealthDbRow {
  id: string;
  url: string;
  pending: unknown;
  last_attempt_at: string | null;
  last_outcome: string | null;
  last_error: string | null;
  next_attempt_at: string | null;
}

export function toWebhookHealth(row: HealthDbRow): WebhookHealth {
  return {
    id: row.id,
    url: row.url,
    pending: Number(row.pending),
    lastAttemptAt: row.last_attempt_at,
    lastOutcome: row.last_outcome === 'delivered' || row.last_outcome === 'failed' ? row.last_outcome : null,
    lastError: row.last_error,
    nextAttemptAt: row.next_attempt_at,
  };
}

/** Every webhook with its last attempt and what waits for it; plain SQL both stores run as is. */
export const WEBHOOK_HEALTH_SQL = `SELECT w.id, w.url, w.last_attempt_at, w.last_outcome, w.last_error,
    (SELECT COUNT(*) FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.state = 'pending') AS pending,
    (SELECT MIN(d.next_attempt_at) FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.state = 'pending') AS next_attempt_at
  FROM webhooks w ORDER BY w.created_at, w.id`;
