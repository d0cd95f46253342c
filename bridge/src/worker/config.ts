// The model worker's settings from the environment, validated once; each error names its variable.
import { readFileSync, statSync } from 'node:fs';
import { loadBridgeConfig, requireSecureUrl, type BridgeConfig } from '../config.js';
import { BadConfig } from '../errors.js';
import { currentPlatform, modeTooOpen, shellArg, type Platform } from '../platform.js';

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

/**
 * The model API key: WORKER_API_KEY, else the file WORKER_API_KEY_FILE names (readable by its owner only), as a
 * systemd credential is. The file's content is never put in a message.
 */
function apiKey(env: NodeJS.ProcessEnv, platform: Platform): string {
  const value = env['WORKER_API_KEY']?.trim();
  if (value) return value;
  const file = env['WORKER_API_KEY_FILE']?.trim();
  if (!file) throw new BadConfig("WORKER_API_KEY is not set: the model API's key (or set WORKER_API_KEY_FILE to a file only you can read (mode 600 on POSIX) that holds it)");
  let mode: number;
  let text: string;
  try {
    mode = statSync(file).mode;
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new BadConfig(`WORKER_API_KEY_FILE ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  // Windows has no POSIX modes (Node reports 0o666): there the user profile's ACLs protect the file.
  if (modeTooOpen(mode, platform)) {
    throw new BadConfig(`WORKER_API_KEY_FILE ${file} has mode ${(mode & 0o777).toString(8)}; it must be readable by you alone: run \`chmod 600 ${shellArg(file, platform)}\``);
  }
  const key = text.trim();
  if (!key) throw new BadConfig(`WORKER_API_KEY_FILE ${file} is empty; put the model API's key in it`);
  return key;
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

export function loadWorkerConfig(env: NodeJS.ProcessEnv = process.env, platform: Platform = currentPlatform()): WorkerConfig {
  required(env, 'ROUNDTABLE_URL', "the board's address, e.g. https://board.example.com");
  const board = loadBridgeConfig({ profile: env['ROUNDTABLE_PROFILE'] }, env);
  const modelUrl = requireSecureUrl(required(env, 'WORKER_MODEL_BASE_URL', 'the OpenAI-compatible API, e.g. https://api.deepseek.com/v1'), 'WORKER_MODEL_BASE_URL');
  return Object.freeze({
    board,
    model: Object.freeze({
      baseUrl: `${modelUrl.origin}${modelUrl.pathname.replace(/\/+$/, '')}`,
      name: required(env, 'WORKER_MODEL_NAME', 'the model to ask, e.g. deepseek-chat'),
      apiKey: apiKey(env, platform),
      timeoutMs: seconds(env, 'WORKER_MODEL_TIMEOUT', 120, 3600) * 1000,
    }),
    pollIntervalMs: seconds(env, 'WORKER_POLL_INTERVAL', 10, 3600) * 1000,
    maxCallsPerHour: count(env, 'WORKER_MAX_TASKS_PER_HOUR', 10, 10_000),
    cooldownMs: seconds(env, 'WORKER_COOLDOWN_SECONDS', 900, 7 * 24 * 3600) * 1000,
    maxFailures: count(env, 'WORKER_MAX_FAILURES', 3, 100),
  });
}
