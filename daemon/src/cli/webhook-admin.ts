// The owner's webhooks for `roundtable webhooks ...`, in the board's database (SQLite or PostgreSQL). Agents never
// configure them (no tool does). The signing secret is printed once by `add`; on SQLite it is kept in
// webhook-secrets.json (mode 600) beside agents.json, on PostgreSQL in the webhooks table (docs/DECISIONS.md).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DEFAULT_PROJECT } from 'roundtable-shared';
import { projectFiles } from '../process/project-files.js';
import type { Config } from '../runtime/config.js';
import { WEBHOOK_EVENTS, testEvent, type WebhookEventType } from '../store/webhook-events.js';
import { newWebhookId } from '../store/webhook-rows.js';
import { checkWebhookTarget, type Resolver } from '../webhooks/address-policy.js';
import { systemResolver } from '../webhooks/deliver.js';
import { generateSecret } from '../webhooks/signing.js';
import { readSecrets, writeSecrets } from '../webhooks/secret-file.js';
import { WEBHOOK_FORMATS, type NewWebhook, type WebhookAdmin, type WebhookConfig, type WebhookFormat, type WebhookHealth } from '../store/webhooks-port.js';
import { quoted } from '../runtime/terminal-text.js';

export class WebhookCommandError extends Error {}

/** The events list of `--events a,b`: every name known, at least one. */
export function parseEvents(text: string): WebhookEventType[] {
  const names = [...new Set(text.split(',').map((n) => n.trim()).filter(Boolean))];
  if (names.length === 0) throw new WebhookCommandError(`--events needs at least one of ${WEBHOOK_EVENTS.join(', ')}`);
  const unknown = names.filter((n) => !(WEBHOOK_EVENTS as readonly string[]).includes(n));
  if (unknown.length) throw new WebhookCommandError(`--events: ${unknown.length} unknown event name(s); the events are ${WEBHOOK_EVENTS.join(', ')}`);
  return names as WebhookEventType[];
}

export function parseFormat(text: string | undefined): WebhookFormat {
  if (text === undefined) return 'json';
  if (!(WEBHOOK_FORMATS as readonly string[]).includes(text)) throw new WebhookCommandError(`--format must be one of ${WEBHOOK_FORMATS.join(', ')}`);
  return text as WebhookFormat;
}

/** A URL fit for a terminal: a chat webhook's path is its credential (Slack, Discord), so only the origin is shown. */
export function shownUrl(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname === '/' && !parsed.search ? parsed.origin : `${parsed.origin}/…`;
}

/** What a failed attempt's code means, in words, for `webhooks status` (the code itself is printed too). */
const REASONS: Record<string, string> = {
  connect_refused: 'the receiver refused the connection (nothing listens there?)',
  connect_timeout: 'no connection within 3 s',
  connect_failed: 'the connection failed',
  response_timeout: 'no whole answer within ROUNDTABLE_WEBHOOK_TIMEOUT',
  response_failed: 'the answer broke off',
  response_too_large: "the answer's headers were over 16 KB",
  tls_failed: "the TLS handshake failed (the receiver's certificate is not trusted or not for this name)",
  dns_failed: 'the host name did not resolve',
  no_secret: 'the signing secret is missing from webhook-secrets.json; remove and add the webhook again',
  'address_refused:loopback': 'it resolves to a loopback address; add the webhook with --allow-http-loopback for a receiver on this machine',
  'address_refused:private': 'it resolves to a private address; add the webhook with --allow-private for a receiver on the local network',
  'address_refused:link_local': 'it resolves to a link-local address, never allowed',
  'address_refused:reserved': 'it resolves to a reserved or special-purpose address, never allowed',
};

function reasonOf(code: string): string {
  if (/^http_\d{3}$/.test(code)) return `the receiver answered HTTP ${code.slice(5)}`;
  return REASONS[code] ?? code;
}

/** One line per webhook: its origin, what waits, how the last attempt ended and why, and when the next one is due. */
export function describeWebhookHealth(h: WebhookHealth, now = Date.now()): string {
  const last =
    h.lastAttemptAt === null
      ? 'no attempt yet'
      : h.lastOutcome === 'delivered'
        ? `last attempt ${h.lastAttemptAt}: delivered`
        : `last attempt ${h.lastAttemptAt}: failed, ${h.lastError ?? 'unknown'} (${reasonOf(h.lastError ?? 'unknown')})`;
  const next = h.nextAttemptAt === null ? '' : Date.parse(h.nextAttemptAt) <= now ? '; next attempt: due now' : `; next attempt ${h.nextAttemptAt}`;
  return `  ${h.id}  ${shownUrl(h.url)}  pending ${h.pending}; ${last}${next}`;
}

async function openSqliteAdmin(config: Config, project: string): Promise<WebhookAdmin> {
  const [{ openDatabase }, { migrate }, { SqliteWebhooks }] = await Promise.all([
    import('../store/sqlite/connection.js'),
    import('../store/sqlite/migrate.js'),
    import('../store/sqlite/webhooks.js'),
  ]);
  // Each project keeps its webhooks in its own database and its secrets in its own file (process/project-files.ts).
  const { dbPath, secretsPath } = projectFiles(config, project);
  mkdirSync(dirname(dbPath), { recursive: true, mode: 0o700 });
  // The daemon may be running: SQLite's WAL lets this process write beside it, waiting for its lock if need be.
  const db = openDatabase({ path: dbPath, busyTimeoutMs: config.deadlines.busyMs });
  migrate(db);
  const hooks = new SqliteWebhooks(db);
  return {
    async addWebhook(webhook: NewWebhook) {
      const id = newWebhookId();
      // The secret is on disk before the row exists, so the daemon never attempts a delivery it cannot sign.
      writeSecrets(secretsPath, { ...readSecrets(secretsPath), [id]: webhook.secret });
      try {
        return db.transaction(() => hooks.addWebhook(webhook, id, new Date().toISOString())).immediate();
      } catch (error) {
        const { [id]: _dropped, ...rest } = readSecrets(secretsPath);
        writeSecrets(secretsPath, rest);
        throw error;
      }
    },
    listWebhooks: async () => hooks.listWebhooks(),
    async removeWebhook(id) {
      const removed = db.transaction(() => hooks.removeWebhook(id)).immediate();
      const secrets = readSecrets(secretsPath);
      if (id in secrets) {
        const { [id]: _dropped, ...rest } = secrets;
        writeSecrets(secretsPath, rest);
      }
      return removed;
    },
    async enqueueTest(webhookId, event) {
      if (!db.transaction(() => hooks.enqueueFor(webhookId, event)).immediate()) throw new WebhookCommandError(`no webhook has the id ${quoted(webhookId)}; \`roundtable webhooks list\` shows them`);
      return `${event.id}_${webhookId}`;
    },
    status: async (limit) => hooks.status(limit),
    async close() {
      db.close();
    },
  };
}

/** A project's webhook rows (secrets included) live in its own schema (store/postgres/project-schema.ts). */
async function openPostgresAdmin(url: string, project: string): Promise<WebhookAdmin> {
  const [{ openMigratedPool }, { postgresWebhookAdmin }, { schemaOf }] = await Promise.all([
    import('../store/postgres/migrate.js'),
    import('../store/postgres/webhooks.js'),
    import('../store/postgres/project-schema.js'),
  ]);
  const sql = await openMigratedPool(url, schemaOf(project));
  return postgresWebhookAdmin(sql, () => sql.end({ timeout: 1 }));
}

/** The webhooks of one project (`default` unless named); the caller has checked that the catalog holds it. */
export function openWebhookAdmin(config: Config, project: string = DEFAULT_PROJECT): Promise<WebhookAdmin> {
  return config.databaseUrl ? openPostgresAdmin(config.databaseUrl, project) : openSqliteAdmin(config, project);
}

export interface AddOptions {
  readonly url: string;
  readonly events: string;
  readonly format?: string | undefined;
  readonly allowHttpLoopback: boolean;
  readonly allowPrivate: boolean;
  /** How the host name is resolved (tests give a fixed answer); default: the system's resolver, as deliveries use. */
  readonly resolve?: Resolver | undefined;
}

/** Checks everything, the resolved host name included, then writes; returns the webhook and its secret, to be printed once. */
export async function addWebhook(admin: WebhookAdmin, options: AddOptions): Promise<{ webhook: WebhookConfig; secret: string }> {
  const allow = { loopback: options.allowHttpLoopback, private: options.allowPrivate };
  let url: string;
  try {
    url = await checkWebhookTarget(options.url, allow, options.resolve ?? systemResolver);
  } catch (error) {
    throw new WebhookCommandError((error as Error).message);
  }
  const events = parseEvents(options.events);
  const format = parseFormat(options.format);
  const secret = generateSecret();
  const webhook = await admin.addWebhook({ url, events, format, allowLoopback: allow.loopback, allowPrivate: allow.private, secret });
  return { webhook, secret };
}

export async function queueTest(admin: WebhookAdmin, id: string): Promise<string> {
  const hooks = await admin.listWebhooks();
  if (!hooks.some((h) => h.id === id)) throw new WebhookCommandError(`no webhook has the id ${quoted(id)}; \`roundtable webhooks list\` shows them`);
  return admin.enqueueTest(id, testEvent(new Date().toISOString()));
}
