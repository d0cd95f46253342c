// Webhooks on PostgreSQL: the outbox rows written in the change's transaction (enqueueDeliveries, which the store's change()
// calls for what consequences.ts derives), leases taken with FOR UPDATE SKIP LOCKED so that of several daemons one attempts each delivery,
// and the owner's configuration, secrets included (every daemon signs; docs/DECISIONS.md, issue 26).
import { eventsColumn, type WebhookEvent } from '../webhook-events.js';
import { newWebhookId, toClaimedDelivery, toDeliveryRow, toWebhookConfig, toWebhookHealth, WEBHOOK_HEALTH_SQL, type HealthDbRow } from '../webhook-rows.js';
import type { NewWebhook, OutboxStatus, WebhookAdmin, WebhookConfig, WebhookOutbox } from '../webhooks-port.js';
import type { Db, Sql, Tx } from './connection.js';

/**
 * Writes one outbox row per webhook listening to the event, inside the caller's transaction; null writes nothing (and
 * costs no round trip). Called only from the store's change().
 */
export async function enqueueDeliveries(tx: Tx, event: WebhookEvent | null): Promise<void> {
  if (!event) return;
  const facts = JSON.stringify(event);
  await tx`INSERT INTO webhook_deliveries (id, webhook_id, event, facts, next_attempt_at, created_at)
    SELECT ${event.id} || '_' || id, id, ${event.type}, ${facts}, ${event.at}, ${event.at} FROM webhooks WHERE strpos(events, ${`,${event.type},`}) > 0`;
}

interface Row {
  id: string;
  webhook_id: string;
  event: string;
  facts: string;
  state: string;
  attempts: number;
  next_attempt_at: string;
  last_error: string | null;
  created_at: string;
  url: string;
  events: string;
  format: string;
  allow_loopback: boolean;
  allow_private: boolean;
  secret: string;
  hook_created_at: string;
}

/** `webhooks test` announces its row here, so every daemon's worker looks at once (the board's events never carry it). */
export const WEBHOOKS_CHANNEL = 'roundtable_webhooks';

export function postgresOutbox(sql: Sql): WebhookOutbox {
  return {
    async claimDue(now, leaseUntil, limit) {
      const rows = await sql<Row[]>`
        WITH due AS (
          SELECT id FROM webhook_deliveries
          WHERE state = 'pending' AND next_attempt_at <= ${now} AND (lease_until IS NULL OR lease_until <= ${now})
          ORDER BY next_attempt_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
        ), taken AS (
          UPDATE webhook_deliveries d SET lease_until = ${leaseUntil} FROM due WHERE d.id = due.id
          RETURNING d.id, d.webhook_id, d.event, d.facts, d.attempts
        )
        SELECT taken.*, w.url, w.events, w.format, w.allow_loopback, w.allow_private, w.secret, w.created_at AS hook_created_at
        FROM taken JOIN webhooks w ON w.id = taken.webhook_id`;
      return rows.map((r) => toClaimedDelivery(r, { ...r, id: r.webhook_id, created_at: r.hook_created_at }, r.secret));
    },
    // Each outcome and the webhook's last attempt in one statement: they stand or fall together.
    async markDelivered(id, at) {
      await sql`WITH done AS (
          UPDATE webhook_deliveries SET state = 'delivered', attempts = attempts + 1, lease_until = NULL, last_error = NULL, finished_at = ${at}
          WHERE id = ${id} AND state = 'pending' RETURNING webhook_id)
        UPDATE webhooks w SET last_attempt_at = ${at}, last_outcome = 'delivered', last_error = NULL FROM done WHERE w.id = done.webhook_id`;
    },
    async markFailed(id, error, retryAt, at) {
      if (retryAt === null) {
        await sql`WITH done AS (
            UPDATE webhook_deliveries SET state = 'dead', attempts = attempts + 1, lease_until = NULL, last_error = ${error}, finished_at = ${at}
            WHERE id = ${id} AND state = 'pending' RETURNING webhook_id)
          UPDATE webhooks w SET last_attempt_at = ${at}, last_outcome = 'failed', last_error = ${error} FROM done WHERE w.id = done.webhook_id`;
      } else {
        await sql`WITH done AS (
            UPDATE webhook_deliveries SET attempts = attempts + 1, lease_until = NULL, last_error = ${error}, next_attempt_at = ${retryAt}
            WHERE id = ${id} AND state = 'pending' RETURNING webhook_id)
          UPDATE webhooks w SET last_attempt_at = ${at}, last_outcome = 'failed', last_error = ${error} FROM done WHERE w.id = done.webhook_id`;
      }
    },
    async release(id) {
      await sql`UPDATE webhook_deliveries SET lease_until = NULL WHERE id = ${id} AND state = 'pending'`;
    },
    async nextDue() {
      const [row] = await sql<Array<{ due: string | null }>>`
        SELECT MIN(GREATEST(next_attempt_at, COALESCE(lease_until, ''))) AS due FROM webhook_deliveries WHERE state = 'pending'`;
      return row?.due ?? null;
    },
    async purgeDelivered(olderThan) {
      const rows = await sql`DELETE FROM webhook_deliveries WHERE state = 'delivered' AND finished_at < ${olderThan}`;
      return rows.count;
    },
    watchOutsideWrites(wake) {
      // Also on each (re)connect of the listening connection: a NOTIFY sent while it was down is lost. Without a
      // listener the worker's slow catch-up look still finds the row.
      const listening = sql.listen(sql.channel(WEBHOOKS_CHANNEL), wake, wake).catch(() => undefined);
      return () => void listening.then((handle) => handle?.unlisten());
    },
  };
}

export function postgresWebhookAdmin(sql: Sql, close: () => Promise<void>): WebhookAdmin {
  return {
    async addWebhook(webhook: NewWebhook): Promise<WebhookConfig> {
      const row = {
        id: newWebhookId(),
        url: webhook.url,
        events: eventsColumn(webhook.events),
        format: webhook.format,
        allow_loopback: webhook.allowLoopback,
        allow_private: webhook.allowPrivate,
        created_at: new Date().toISOString(),
      };
      await sql`INSERT INTO webhooks (id, url, events, format, allow_loopback, allow_private, secret, created_at)
        VALUES (${row.id}, ${row.url}, ${row.events}, ${row.format}, ${row.allow_loopback}, ${row.allow_private}, ${webhook.secret}, ${row.created_at})`;
      return toWebhookConfig(row);
    },
    async listWebhooks() {
      const rows = await sql<Array<{ id: string; url: string; events: string; format: string; allow_loopback: boolean; allow_private: boolean; created_at: string }>>`
        SELECT id, url, events, format, allow_loopback, allow_private, created_at FROM webhooks ORDER BY created_at, id`;
      return rows.map(toWebhookConfig);
    },
    async removeWebhook(id) {
      return (await sql`DELETE FROM webhooks WHERE id = ${id}`).count > 0;
    },
    async enqueueTest(webhookId, event) {
      // The NOTIFY is sent on commit, with the row: a worker woken by it finds the row there.
      const count = await sql.begin(async (tx) => {
        const rows = await tx`INSERT INTO webhook_deliveries (id, webhook_id, event, facts, next_attempt_at, created_at)
          SELECT ${event.id} || '_' || id, id, ${event.type}, ${JSON.stringify(event)}, ${event.at}, ${event.at} FROM webhooks WHERE id = ${webhookId}`;
        if (rows.count > 0) await tx`SELECT pg_notify(${sql.channel(WEBHOOKS_CHANNEL)}, '')`;
        return rows.count;
      });
      if (count === 0) throw new Error(`no webhook has the id ${webhookId}; \`roundtable webhooks list\` shows them`);
      return `${event.id}_${webhookId}`;
    },
    async status(limit): Promise<OutboxStatus> {
      const counts = await sql<Array<{ state: string; n: number }>>`SELECT state, COUNT(*)::int AS n FROM webhook_deliveries GROUP BY state`;
      const get = (state: string) => Number(counts.find((c) => c.state === state)?.n ?? 0);
      const dead = await sql<Row[]>`SELECT * FROM webhook_deliveries WHERE state = 'dead' ORDER BY finished_at DESC, id DESC LIMIT ${limit}`;
      const health = await sql.unsafe<HealthDbRow[]>(WEBHOOK_HEALTH_SQL);
      return { webhooks: health.map(toWebhookHealth), pending: get('pending'), delivered: get('delivered'), deadTotal: get('dead'), dead: dead.map(toDeliveryRow) };
    },
    close,
  };
}
