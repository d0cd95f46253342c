// The model worker's settings from the environment, validated once; each error names its variable.
import { loadBridgeConfig, requireSecureUrl, type BridgeConfig } from '../config.js';
import { BadConfig } from '../errors.js';

export interface WorkerConfig {
  readonly board: BridgeConfig;
  readonly model: {
    readonly baseUrl: string;
    readonly name: string;
    /** Sent only in the Authorization header; never logged. */
    readonly apiKey: string;
    readonly timeoutMs: number;
  };
  readonly pollIntervalMs: number;
  readonly maxCallsPerHour: number;
  readonly cooldownMs: number;
  readonly maxFailures: number;
}

function required(env: NodeJS.ProcessEnv, name: string, what: string): string {
  const value = env[name]?.trim();
  if (!value) throw new BadConfig(`${name} is not set: ${what}`);
  return value;
}

function seconds(env: NodeJS.ProcessEnv, name: string, fallback: number, max: number): number {
  const text = env[name]?.trim();
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || value > max) throw new BadConfig(`${name}="${text}" must be a number of seconds above 0 and at most ${max}`);
  return value;
}

function count(env: NodeJS.ProcessEnv, name: string, fallback: number, max: number): number {
  const text = env[name]?.trim();
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > max) throw new BadConfig(`${name}="${text}" must be a whole number from 1 to ${max}`);
  return value;
}

export function loadWorkerConfig(env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  required(env, 'ROUNDTABLE_URL', "the board's address, e.g. https://board.example.com");
  const board = loadBridgeConfig({ profile: env['ROUNDTABLE_PROFILE'] }, env);
  const modelUrl = requireSecureUrl(required(env, 'WORKER_MODEL_BASE_URL', 'the OpenAI-compatible API, e.g. https://api.deepseek.com/v1'), 'WORKER_MODEL_BASE_URL');
  return Object.freeze({
    board,
    model: Object.freeze({
      baseUrl: `${modelUrl.origin}${modelUrl.pathname.replace(/\/+$/, '')}`,
      name: required(env, 'WORKER_MODEL_NAME', 'the model to ask, e.g. deepseek-chat'),
      apiKey: required(env, 'WORKER_API_KEY', "the model API's key"),
      timeoutMs: seconds(env, 'WORKER_MODEL_TIMEOUT', 120, 3600) * 1000,
    }),
    pollIntervalMs: seconds(env, 'WORKER_POLL_INTERVAL', 10, 3600) * 1000,
    maxCallsPerHour: count(env, 'WORKER_MAX_TASKS_PER_HOUR', 10, 10_000),
    cooldownMs: seconds(env, 'WORKER_COOLDOWN_SECONDS', 900, 7 * 24 * 3600) * 1000,
    maxFailures: count(env, 'WORKER_MAX_FAILURES', 3, 100),
  });
}
