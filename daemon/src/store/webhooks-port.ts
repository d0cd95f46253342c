// The webhook outbox and configuration as both stores keep them: the ports the delivery worker and the CLI use.
import type { WebhookEvent, WebhookEventType } from './webhook-events.js';

/** How a webhook's body is written (webhooks/payload.ts renders each). */
export const WEBHOOK_FORMATS = ['json', 'slack', 'discord', 'ntfy'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

export interface WebhookConfig {
  readonly id: string;
  readonly url: string;
  readonly events: readonly WebhookEventType[];
  readonly format: WebhookFormat;
  readonly allowLoopback: boolean;
  readonly allowPrivate: boolean;
  readonly createdAt: string;
}

export interface NewWebhook {
  readonly url: string;
  readonly events: readonly WebhookEventType[];
  readonly format: WebhookFormat;
  readonly allowLoopback: boolean;
  readonly allowPrivate: boolean;
  readonly secret: string;
}

/**
 * The signing secret of a webhook by its id, or undefined when it cannot be read. The SQLite board keeps secrets in a
 * file beside agents.json (webhooks/secret-file.ts), which the process hands the store as this lookup.
 */
export type SecretLookup = (webhookId: string) => string | undefined;

/** A delivery a worker holds the lease of, with what it needs to send it. */
export interface ClaimedDelivery {
  /** The webhook-id header: the same on every attempt. */
  readonly id: string;
  readonly event: WebhookEvent;
  /** Attempts made before this one. */
  readonly attempts: number;
  readonly webhook: WebhookConfig;
  /** Absent when the secret cannot be read (then the attempt fails as no_secret). */
  readonly secret: string | undefined;
}

export interface DeliveryRow {
  readonly id: string;
  readonly webhookId: string;
  readonly event: WebhookEventType;
  readonly state: 'pending' | 'delivered' | 'dead';
  readonly attempts: number;
  readonly nextAttemptAt: string;
  readonly lastError: string | null;
  readonly createdAt: string;
}

/** One webhook as `webhooks status` shows it: what waits, how its last attempt ended, when the next one falls due. */
export interface WebhookHealth {
  readonly id: string;
  readonly url: string;
  readonly pending: number;
  readonly lastAttemptAt: string | null;
  readonly lastOutcome: 'delivered' | 'failed' | null;
  /** The last failed attempt's fixed code (http_500, connect_refused, tls_failed, ...); null after a delivery. */
  readonly lastError: string | null;
  /** When its earliest pending delivery is due (its first attempt or its retry), or null when none waits. */
  readonly nextAttemptAt: string | null;
}

export interface OutboxStatus {
  /** Every webhook, oldest first, with its last attempt. */
  readonly webhooks: readonly WebhookHealth[];
  readonly pending: number;
  readonly delivered: number;
  /** The dead-letter list, newest first (at most `limit`). */
  readonly dead: readonly DeliveryRow[];
  readonly deadTotal: number;
}

/** What the delivery worker asks of the store. */
export interface WebhookOutbox {
  /** Takes the leases of up to `limit` due deliveries until `leaseUntil`; several daemons never take the same one. */
  claimDue(now: string, leaseUntil: string, limit: number): Promise<ClaimedDelivery[]>;
  markDelivered(id: string, at: string): Promise<void>;
  /** A failed attempt: retry at `retryAt`, or (null) dead-letter it. */
  markFailed(id: string, error: string, retryAt: string | null, at: string): Promise<void>;
  /** Lets go of a delivery taken but not attempted to the end (shutdown), without counting an attempt. */
  release(id: string): Promise<void>;
  /** When the next pending delivery falls due (its retry time, or its lease's end), or null when none waits. */
  nextDue(): Promise<string | null>;
  /** Drops delivered rows older than the given time; returns how many. */
  purgeDelivered(olderThan: string): Promise<number>;
  /**
   * Calls `wake` soon after another process (`roundtable webhooks test`) writes a delivery, which this daemon's events
   * never announce; returns the function that stops watching.
   */
  watchOutsideWrites(wake: () => void): () => void;
}

/** What `roundtable webhooks ...` asks of the store. */
export interface WebhookAdmin {
  addWebhook(webhook: NewWebhook): Promise<WebhookConfig>;
  listWebhooks(): Promise<WebhookConfig[]>;
  /** Removes it with its undelivered rows; false when there is none by that id. */
  removeWebhook(id: string): Promise<boolean>;
  /** Writes a test event for one webhook into the outbox; returns the delivery id. */
  enqueueTest(webhookId: string, event: WebhookEvent): Promise<string>;
  status(limit: number): Promise<OutboxStatus>;
  close(): Promise<void>;
}
