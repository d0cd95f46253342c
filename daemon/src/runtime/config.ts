// Daemon configuration: every environment variable parsed once, validated, frozen.
import { isIP } from 'node:net';
import { dirname, join } from 'node:path';
import { z } from 'zod';

export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]', '::1'] as const;

const port = z.coerce.number({ error: 'a port number from 0 to 65535' }).int({ error: 'a port number from 0 to 65535' }).min(0, { error: 'a port number from 0 to 65535' }).max(65535, { error: 'a port number from 0 to 65535' });

/** A name admitted in Host and Origin headers, and the port it must come with (undefined: none was given; see host-guard). */
export interface AllowedHost {
  readonly name: string;
  readonly port: number | undefined;
}

/** "name", "name:port", "[v6]", "[v6]:port" or a bare IPv6 address; undefined when the port is not 1-65535. */
export function parseAllowedHost(entry: string): AllowedHost | undefined {
  const value = entry.trim().toLowerCase();
  let name = value;
  let portText: string | undefined;
  if (value.startsWith('[')) {
    const close = value.indexOf(']');
    if (close === -1) return undefined;
    name = value.slice(0, close + 1);
    const rest = value.slice(close + 1);
    if (rest !== '') {
      if (!rest.startsWith(':')) return undefined;
      portText = rest.slice(1);
    }
  } else if (value.indexOf(':') !== -1 && value.indexOf(':') === value.lastIndexOf(':')) {
    [name, portText] = value.split(':') as [string, string];
  }
  if (name === '' || name === '[]') return undefined;
  if (portText === undefined) return { name, port: undefined };
  if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) return undefined;
  return { name, port: Number(portText) };
}

/** A duration as seconds ("3600") or with a unit ("90s", "15m", "1h", "2d"); 0 turns the feature off. */
const duration = z
  .string()
  .regex(/^\d+(\.\d+)?\s*(s|m|h|d)?$/i, 'a duration such as 3600, 90s, 15m, 1h or 0 to turn it off')
  .transform((v) => {
    const match = /^(\d+(?:\.\d+)?)\s*(s|m|h|d)?$/i.exec(v)!;
    const unit = { s: 1, m: 60, h: 3600, d: 86400 }[(match[2] ?? 's').toLowerCase() as 's' | 'm' | 'h' | 'd'];
    return Math.round(Number(match[1]) * unit * 1000);
  });
/** A PostgreSQL connection URL; its password is never repeated in an error (the message names the variable only). */
const databaseUrl = z.string().refine((v) => /^postgres(ql)?:\/\/[^\s]+$/.test(v), {
  error: 'a PostgreSQL URL such as postgres://roundtable@db.internal:5432/roundtable (unset it to keep the board on SQLite)',
});
/** A deadline: a duration (as above) of at least 100 ms; none can be turned off. */
const deadline = duration.pipe(z.number().min(100, 'at least 0.1s: a deadline that cannot be met refuses every call'));
/** The statement timeout, the pool wait and SQLite's busy timeout when unset (or the deadline, if shorter). */
const DEFAULT_DB_WAIT_MS = 5_000;
const flag = z.enum(['0', '1', 'true', 'false', 'yes', 'no'], { error: 'true or false' }).transform((v) => ['1', 'true', 'yes'].includes(v));

/**
 * Whose X-Real-IP, X-Forwarded-For and X-Forwarded-Proto the daemon believes: nobody's (false), a proxy on this host
 * ('loopback': any loopback peer), or only peers at these addresses (the proxy's own).
 */
export type TrustProxy = false | 'loopback' | readonly string[];

/** An address as the socket reports it, compared plainly: lower case, an IPv4-mapped IPv6 address as its IPv4 form. */
export function normalizeAddress(address: string): string {
  const lower = address.trim().toLowerCase();
  return lower.startsWith('::ffff:') && isIP(lower.slice(7)) === 4 ? lower.slice(7) : lower;
}

const trustProxy = z
  .string()
  .transform((v, ctx): TrustProxy => {
    const value = v.trim().toLowerCase();
    if (['', '0', 'false', 'no'].includes(value)) return false;
    if (['1', 'true', 'yes'].includes(value)) return 'loopback';
    const addresses = value.split(',').map((a) => a.trim()).filter(Boolean);
    if (addresses.length === 0 || addresses.some((a) => isIP(a) === 0)) {
      ctx.addIssue({ code: 'custom', message: "true (a proxy on this host), false, or the reverse proxy's own IP addresses, comma-separated, such as 10.0.0.5" });
      return z.NEVER;
    }
    return Object.freeze([...new Set(addresses.map(normalizeAddress))]);
  });
const positiveInt = z.coerce.number().int().min(1);
/** The board's address as people reach it, for links in webhooks: http(s), no credentials, no query or fragment. */
const publicUrl = z.string().refine(
  (v) => {
    try {
      const url = new URL(v);
      return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password && !url.search && !url.hash;
    } catch {
      return false;
    }
  },
  { message: 'an http(s) URL without user, password, query or fragment, such as https://board.example.com' },
);

const envSchema = z.object({
  ROUNDTABLE_HOST: z.string().min(1).default('127.0.0.1'),
  ROUNDTABLE_PORT: port.default(8000),
  ROUNDTABLE_DB_PATH: z.string().min(1).default('roundtable.db'),
  ROUNDTABLE_AGENTS_CONFIG: z.string().min(1).default('agents.json'),
  ROUNDTABLE_NAME: z.string().min(1).max(100).default('Roundtable'),
  ROUNDTABLE_RATE_LIMIT_PER_MINUTE: positiveInt.max(100_000).default(60),
  ROUNDTABLE_STATUS_RATE_LIMIT_PER_MINUTE: positiveInt.max(100_000).default(60),
  ROUNDTABLE_ALLOWED_HOSTS: z
    .string()
    .default('')
    .transform((v) => v.split(',').map((h) => h.trim().toLowerCase()).filter(Boolean))
    .pipe(z.array(z.string().regex(/^[a-z0-9.\-[\]:]+$/, 'a host name such as board.example.com').refine((h) => parseAllowedHost(h) !== undefined, 'a host name with an optional port, such as board.example.com or board.example.com:8443'))),
  ROUNDTABLE_MAX_EVENT_STREAMS: positiveInt.max(100_000).default(1000),
  ROUNDTABLE_TLS_CERT: z.string().min(1).optional(),
  ROUNDTABLE_TLS_KEY: z.string().min(1).optional(),
  ROUNDTABLE_BACKUP_DIR: z.string().min(1).optional(),
  ROUNDTABLE_BACKUP_INTERVAL: duration.default(3_600_000),
  ROUNDTABLE_BACKUP_KEEP: positiveInt.max(10_000).default(48),
  ROUNDTABLE_BACKUP_MIN_FREE_MB: z.coerce.number().int().min(0).max(10_000_000).default(100),
  ROUNDTABLE_TRUST_PROXY: trustProxy.default(false),
  ROUNDTABLE_LEASE_TTL: duration.default(600_000).pipe(z.number().min(1000, 'at least 1s: a claim needs time to be renewed')),
  ROUNDTABLE_DATABASE_URL: databaseUrl.optional(),
  ROUNDTABLE_DB_DEADLINE: deadline.default(10_000),
  // Unset: 5 s, or the deadline if it is shorter.
  ROUNDTABLE_DB_STATEMENT_TIMEOUT: deadline.optional(),
  ROUNDTABLE_DB_POOL_WAIT: deadline.optional(),
  ROUNDTABLE_DB_BUSY_TIMEOUT: deadline.optional(),
  ROUNDTABLE_PUBLIC_URL: publicUrl.optional(),
  ROUNDTABLE_WEBHOOK_TIMEOUT: deadline.default(5_000).pipe(z.number().max(60_000, 'at most 60s: a slow receiver holds a delivery slot')),
  ROUNDTABLE_WEBHOOK_RETRY_BASE: duration.default(5_000).pipe(z.number().min(100, 'at least 0.1s')),
  ROUNDTABLE_WEBHOOK_MAX_ATTEMPTS: positiveInt.max(100).default(10),
  // The event log (issue 24): a cursor older than what is kept is refused, so keep more than a waiter may fall behind.
  ROUNDTABLE_OAUTH_REGISTRATION: flag.default(false),
  ROUNDTABLE_OAUTH_ALLOW_LOOPBACK: flag.default(false),
  ROUNDTABLE_OAUTH_ACCESS_TTL: duration.default(3_600_000).pipe(z.number().min(60_000, 'at least 1m').max(86_400_000, 'at most 24h: an access token cannot be revoked by rotating its refresh token')),
  ROUNDTABLE_OAUTH_REFRESH_TTL: duration.default(30 * 86_400_000).pipe(z.number().min(3_600_000, 'at least 1h').max(365 * 86_400_000, 'at most 365d')),
  ROUNDTABLE_EVENT_LOG_MAX_ROWS: positiveInt.min(1000, 'at least 1000: fewer would expire the cursors of waiters that are only a little behind').max(100_000_000).default(100_000),
  ROUNDTABLE_EVENT_LOG_MAX_AGE: duration.default(7 * 86_400_000).pipe(z.number().min(60_000, 'at least 1m: a shorter log would expire the cursor of a wait still running')),
});

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly dbPath: string;
  readonly agentsConfigPath: string;
  readonly boardName: string;
  readonly rateLimitPerMinute: number;
  readonly statusRateLimitPerMinute: number;
  /** Names (with a port where one was given) accepted in Host and Origin headers: the loopback names, then ROUNDTABLE_ALLOWED_HOSTS. */
  readonly allowedHosts: readonly AllowedHost[];
  readonly tls: { readonly certPath: string; readonly keyPath: string } | undefined;
  readonly backup: {
    readonly dir: string;
    /** 0: no automatic backups. */
    readonly intervalMs: number;
    readonly keep: number;
    readonly minFreeMb: number;
  };
  /** Open event streams of the web page, on the whole board (per session and per agent: see web/event-stream.ts). */
  readonly maxEventStreams: number;
  /** Behind a reverse proxy: take the client IP from X-Real-IP / X-Forwarded-For, on connections from the proxy only. */
  readonly trustProxy: TrustProxy;
  /** How long a claim lasts without a renewing call or heartbeat by its holder. */
  readonly leaseTtlMs: number;
  /** ROUNDTABLE_DATABASE_URL: the board lives in PostgreSQL, shared by every daemon given the same URL; else SQLite at dbPath. */
  readonly databaseUrl: string | undefined;
  /** How long the board waits for its database before a call is answered `unavailable` (docs/SPEC.md, Storage). */
  /** ROUNDTABLE_PUBLIC_URL: the live page's address, for links in webhook payloads (none when unset). */
  readonly publicUrl: string | undefined;
  readonly webhooks: {
    /** A delivery attempt's whole answer (connecting is bounded by the smaller of this and 3 s). */
    readonly timeoutMs: number;
    readonly retryBaseMs: number;
    readonly maxAttempts: number;
  };
  readonly deadlines: {
    /** One tool call's database work, every round trip of it (ROUNDTABLE_DB_DEADLINE). */
    readonly callMs: number;
    /** PostgreSQL's statement_timeout (ROUNDTABLE_DB_STATEMENT_TIMEOUT). */
    readonly statementMs: number;
    /** PostgreSQL: waiting for a pooled connection, or for a new one (ROUNDTABLE_DB_POOL_WAIT). */
    readonly poolWaitMs: number;
    /** SQLite's busy_timeout: how long a write waits for another process's lock on the file (ROUNDTABLE_DB_BUSY_TIMEOUT). */
    readonly busyMs: number;
  };
  /** How much of the event log is kept (ROUNDTABLE_EVENT_LOG_MAX_ROWS, ROUNDTABLE_EVENT_LOG_MAX_AGE): whichever deletes more. */
  readonly eventRetention: { readonly maxRows: number; readonly maxAgeMs: number };
  /** Apps that sign in (issue 34). */
  readonly oauth: {
    /** ROUNDTABLE_OAUTH_REGISTRATION: dynamic client registration (RFC 7591) is served. Off by default. */
    readonly registration: boolean;
    /** ROUNDTABLE_OAUTH_ALLOW_LOOPBACK: client metadata documents may be fetched from loopback, over http (tests). */
    readonly allowLoopback: boolean;
    readonly accessTtlMs: number;
    readonly refreshTtlMs: number;
  };
}

export class ConfigError extends Error {}

/** Command-line options that set a variable (`run --port 9000`), by the variable they set; the option wins. */
export type ConfigFlags = Readonly<Partial<Record<'ROUNDTABLE_PORT' | 'ROUNDTABLE_HOST', { readonly flag: string; readonly value: string }>>>;

/** Reads the environment once (with the command line's settings over it); a bad value throws a ConfigError naming the variable or the option. */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env, flags: ConfigFlags = {}): Config {
  const env: NodeJS.ProcessEnv = { ...environment };
  for (const [name, set] of Object.entries(flags)) if (set) env[name] = set.value;
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0]);
      const flag = flags[name as keyof ConfigFlags];
      if (flag) return `${flag.flag} ${JSON.stringify(flag.value)}: ${issue.message}`;
      // A database URL may carry a password: name the variable, never echo its value.
      if (name === 'ROUNDTABLE_DATABASE_URL') return `${name}: ${issue.message}`;
      return `${name}=${JSON.stringify(env[name] ?? '')}: ${issue.message}`;
    });
    // "--port ..." lines come from the command line, the others from the environment.
    throw new ConfigError(`invalid ${lines.every((l) => l.startsWith('--')) ? 'option' : 'environment'}: ${lines.join('; ')}`);
  }
  const e = parsed.data;
  const within = (name: 'ROUNDTABLE_DB_STATEMENT_TIMEOUT' | 'ROUNDTABLE_DB_POOL_WAIT' | 'ROUNDTABLE_DB_BUSY_TIMEOUT'): number => {
    const value = e[name];
    if (value === undefined) return Math.min(DEFAULT_DB_WAIT_MS, e.ROUNDTABLE_DB_DEADLINE);
    if (value > e.ROUNDTABLE_DB_DEADLINE) {
      throw new ConfigError(`${name} (${value / 1000}s) is longer than ROUNDTABLE_DB_DEADLINE (${e.ROUNDTABLE_DB_DEADLINE / 1000}s): a call would give up before it; shorten it or raise the deadline`);
    }
    return value;
  };
  const deadlines = Object.freeze({
    callMs: e.ROUNDTABLE_DB_DEADLINE,
    statementMs: within('ROUNDTABLE_DB_STATEMENT_TIMEOUT'),
    poolWaitMs: within('ROUNDTABLE_DB_POOL_WAIT'),
    busyMs: within('ROUNDTABLE_DB_BUSY_TIMEOUT'),
  });
  if (Boolean(e.ROUNDTABLE_TLS_CERT) !== Boolean(e.ROUNDTABLE_TLS_KEY)) {
    throw new ConfigError('ROUNDTABLE_TLS_CERT and ROUNDTABLE_TLS_KEY must be set together (or neither)');
  }
  return Object.freeze({
    host: e.ROUNDTABLE_HOST,
    port: e.ROUNDTABLE_PORT,
    dbPath: e.ROUNDTABLE_DB_PATH,
    agentsConfigPath: e.ROUNDTABLE_AGENTS_CONFIG,
    boardName: e.ROUNDTABLE_NAME,
    rateLimitPerMinute: e.ROUNDTABLE_RATE_LIMIT_PER_MINUTE,
    statusRateLimitPerMinute: e.ROUNDTABLE_STATUS_RATE_LIMIT_PER_MINUTE,
    allowedHosts: Object.freeze([...LOOPBACK_HOSTS, ...e.ROUNDTABLE_ALLOWED_HOSTS].map((h) => Object.freeze(parseAllowedHost(h)!))),
    tls:
      e.ROUNDTABLE_TLS_CERT && e.ROUNDTABLE_TLS_KEY
        ? Object.freeze({ certPath: e.ROUNDTABLE_TLS_CERT, keyPath: e.ROUNDTABLE_TLS_KEY })
        : undefined,
    backup: Object.freeze({
      dir: e.ROUNDTABLE_BACKUP_DIR ?? join(dirname(e.ROUNDTABLE_DB_PATH), 'backups'),
      intervalMs: e.ROUNDTABLE_BACKUP_INTERVAL,
      keep: e.ROUNDTABLE_BACKUP_KEEP,
      minFreeMb: e.ROUNDTABLE_BACKUP_MIN_FREE_MB,
    }),
    maxEventStreams: e.ROUNDTABLE_MAX_EVENT_STREAMS,
    trustProxy: e.ROUNDTABLE_TRUST_PROXY,
    leaseTtlMs: e.ROUNDTABLE_LEASE_TTL,
    databaseUrl: e.ROUNDTABLE_DATABASE_URL,
    publicUrl: e.ROUNDTABLE_PUBLIC_URL?.replace(/\/+$/, ''),
    webhooks: Object.freeze({ timeoutMs: e.ROUNDTABLE_WEBHOOK_TIMEOUT, retryBaseMs: e.ROUNDTABLE_WEBHOOK_RETRY_BASE, maxAttempts: e.ROUNDTABLE_WEBHOOK_MAX_ATTEMPTS }),
    deadlines,
    eventRetention: Object.freeze({ maxRows: e.ROUNDTABLE_EVENT_LOG_MAX_ROWS, maxAgeMs: e.ROUNDTABLE_EVENT_LOG_MAX_AGE }),
    oauth: Object.freeze({
      registration: e.ROUNDTABLE_OAUTH_REGISTRATION,
      allowLoopback: e.ROUNDTABLE_OAUTH_ALLOW_LOOPBACK,
      accessTtlMs: e.ROUNDTABLE_OAUTH_ACCESS_TTL,
      refreshTtlMs: e.ROUNDTABLE_OAUTH_REFRESH_TTL,
    }),
  });
}
