// Daemon configuration: every environment variable parsed once, validated, frozen.
import { z } from 'zod';

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]', '::1'] as const;

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().min(1);

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
    .pipe(z.array(z.string().regex(/^[a-z0-9.\-[\]:]+$/, 'a host name such as board.example.com'))),
  ROUNDTABLE_TLS_CERT: z.string().min(1).optional(),
  ROUNDTABLE_TLS_KEY: z.string().min(1).optional(),
});

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly dbPath: string;
  readonly agentsConfigPath: string;
  readonly boardName: string;
  readonly rateLimitPerMinute: number;
  readonly statusRateLimitPerMinute: number;
  /** Host names (no port) accepted in Host and Origin headers. */
  readonly allowedHosts: readonly string[];
  readonly tls: { readonly certPath: string; readonly keyPath: string } | undefined;
}

export class ConfigError extends Error {}

/** Reads the environment once; a bad value throws a ConfigError naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0]);
      return `${name}=${JSON.stringify(env[name] ?? '')}: ${issue.message}`;
    });
    throw new ConfigError(`invalid environment: ${lines.join('; ')}`);
  }
  const e = parsed.data;
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
    allowedHosts: Object.freeze([...LOOPBACK_HOSTS, ...e.ROUNDTABLE_ALLOWED_HOSTS]),
    tls:
      e.ROUNDTABLE_TLS_CERT && e.ROUNDTABLE_TLS_KEY
        ? Object.freeze({ certPath: e.ROUNDTABLE_TLS_CERT, keyPath: e.ROUNDTABLE_TLS_KEY })
        : undefined,
  });
}
