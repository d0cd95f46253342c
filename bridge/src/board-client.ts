// Calls the board's JSON API with ky: one request per tool call, bounded by a deadline, retried only when safe.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { KyInstance } from 'ky';
import { findTool, HEARTBEAT_PATH, isErrorCode, LIMITS, waitForActivity, type ErrorBody, type HeartbeatAnswer, WATCHER_HEADER } from 'roundtable-shared';
import type { BridgeConfig } from './config.js';
import { refusedTokenMessage, type FoundToken } from './credentials.js';
import { BadResponse, CallTimeout, DaemonUnreachable, TlsUntrusted } from './errors.js';
import { createNodeFetch } from './http-transport.js';
import { log } from './log.js';

/** A refusal from the board itself, carried as the board's own error body. */
export class BoardRefusal extends Error {
  constructor(readonly body: ErrorBody, readonly status: number) {
    super(body.error.message);
  }
}

export interface BoardClientOptions {
  readonly config: BridgeConfig;
  /**
   * Returns the token; called lazily, and again after a 401 in case a new one was stored meanwhile. With its
   * source, a refusal names where the token came from and how to replace it there.
   */
  readonly token: (refresh: boolean) => Promise<string | FoundToken>;
  readonly userAgent: string;
  /** A watcher (`wake`) marks its calls, so they do not keep a crashed agent's claims alive. */
  readonly watcher?: boolean;
  /**
   * Pauses before each reconnect after a network failure (default: RECONNECT_DELAYS_MS). A hook, which must not hold
   * its agent app up while the board is down, passes a shorter list.
   */
  readonly reconnectDelaysMs?: readonly number[];
}

export interface CallOptions {
  /** Overrides the configured timeout. */
  readonly timeoutMs?: number;
  /** Abandons the call (e.g. a worker stopping during a wait). */
  readonly signal?: AbortSignal;
}

/** Pauses before reconnecting after a network failure: covers a daemon restart without hiding an outage. */
const RECONNECT_DELAYS_MS = [150, 500, 1200];
const GATEWAY_STATUSES = new Set([502, 503, 504]);
/** Failures worth a reconnect: the daemon is restarting or a kept-alive connection went stale. */
const TRANSIENT_FAILURE = /^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EAI_AGAIN|UND_ERR_SOCKET|UND_ERR_CONNECT_TIMEOUT|UND_ERR_CLOSED)$/;
const TLS_FAILURE = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|HOSTNAME|ALTNAME/;

type KyModule = typeof import('ky');
let kyModule: Promise<KyModule> | undefined;

/** ky is loaded at the first call, not at start: importing it costs ~40 ms, and tools/list never needs it. */
function loadKy(): Promise<KyModule> {
  kyModule ??= import('ky');
  return kyModule;
}

export class BoardClient {
  private client: KyInstance | undefined;
  private readonly ca: string | undefined;

  constructor(private readonly options: BoardClientOptions) {
    this.ca = options.config.caFile ? readFileSync(options.config.caFile, 'utf8') : undefined;
  }

  private async http(): Promise<{ client: KyInstance; ky: KyModule }> {
    const ky = await loadKy();
    this.client ??= ky.default.create({
      prefixUrl: this.options.config.baseUrl,
      retry: 0,
      throwHttpErrors: true,
      headers: { 'user-agent': this.options.userAgent, ...(this.options.watcher && { [WATCHER_HEADER]: '1' }) },
      fetch: createNodeFetch(this.ca === undefined ? {} : { ca: this.ca }),
    });
    return { client: this.client, ky };
  }

  /** Runs a tool on the board; resolves with its output, or rejects with a BoardRefusal or a BridgeError. */
  async callTool(name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<Record<string, unknown>> {
    // A change is retried only under one idempotency key, so the board applies it at most once.
    const idempotencyKey = findTool(name)?.mutates ? randomUUID() : undefined;
    // wait_for_activity holds the request on purpose: allow for the wait on top of the usual timeout.
    const waitMs = name === waitForActivity.name ? (typeof args['timeout_s'] === 'number' ? args['timeout_s'] : LIMITS.waitDefaultS) * 1000 : 0;
    const timeoutMs = (options.timeoutMs ?? this.options.config.timeoutMs) + waitMs;
    const startedAt = Date.now();
    const answer = await this.send('post', `api/v1/tools/${encodeURIComponent(name)}`, {
      json: args,
      // A wait cut off by its daemon's death (several daemons behind a proxy) is retried on another for what is left
      // of it: the call still ends by its own timeout_s, not timeout_s after the retry and past the deadline.
      ...(waitMs > 0 && { retryJson: () => ({ ...args, timeout_s: Math.max(0, Math.floor((waitMs - (Date.now() - startedAt)) / 100) / 10) }) }),
      idempotencyKey,
      what: name,
      timeoutMs,
      ...(options.signal && { signal: options.signal }),
    });
    return (await answer.json()) as Record<string, unknown>;
  }

  /** Renews every claim the agent holds (not a tool call); says which it holds and how often to beat. */
  async heartbeat(): Promise<HeartbeatAnswer> {
    const answer = await this.send('post', HEARTBEAT_PATH, { what: 'the heartbeat' });
    return (await answer.json()) as HeartbeatAnswer;
  }

  /** Takes or renews this process's lease on the agent (one process per token). */
  async acquireInstance(instanceId: string): Promise<void> {
    await this.send('put', `api/v1/instances/${encodeURIComponent(instanceId)}`, { what: 'the instance lease' });
  }

  async releaseInstance(instanceId: string): Promise<void> {
    await this.send('delete', `api/v1/instances/${encodeURIComponent(instanceId)}`, { what: 'the instance lease' });
  }

  /** One authenticated request within a deadline, with the bridge's retry rules. */
  private async send(
    method: 'post' | 'put' | 'delete',
    path: string,
    request: {
      json?: unknown;
      /** What a retry sends instead of json, if it differs. */
      retryJson?: () => unknown;
      idempotencyKey?: string | undefined;
      what: string;
      timeoutMs?: number;
      signal?: AbortSignal;
    },
  ): Promise<Response> {
    const timeoutMs = request.timeoutMs ?? this.options.config.timeoutMs;
    const deadline = Date.now() + timeoutMs;
    const late = () => new CallTimeout(`the board did not answer ${request.what} within ${timeoutMs / 1000} s`);
    let reconnects = 0;
    const delays = this.options.reconnectDelaysMs ?? RECONNECT_DELAYS_MS;
    let rateLimitWaited = false;
    let tokenRefreshed = false;
    const { client, ky } = await this.http();
    const { HTTPError, TimeoutError } = ky;
    for (let attempt = 0; ; attempt++) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw late();
      const supplied = await this.options.token(tokenRefreshed);
      const token = typeof supplied === 'string' ? supplied : supplied.token;
      const json = attempt > 0 && request.retryJson ? request.retryJson() : request.json;
      try {
        return await client(path, {
          method,
          ...(json !== undefined && { json }),
          timeout: remaining,
          ...(request.signal && { signal: request.signal }),
          headers: { authorization: `Bearer ${token}`, ...(request.idempotencyKey && { 'idempotency-key': request.idempotencyKey }) },
        });
      } catch (error) {
        if (error instanceof TimeoutError) throw late();
        if (error instanceof HTTPError) {
          const { status } = error.response;
          if (GATEWAY_STATUSES.has(status) && reconnects < delays.length) {
            await pause(delays[reconnects++]!, deadline);
            continue;
          }
          const body = await errorBodyOf(error.response);
          if (status === 401 && !tokenRefreshed) {
            // Maybe `login` stored a new token since this one was read: look once more.
            tokenRefreshed = true;
            continue;
          }
          if (status === 401) {
            const found = typeof supplied === 'string' ? undefined : supplied;
            throw new BoardRefusal({ error: { code: 'unauthorized', message: refusedTokenMessage(found, this.options.config) } }, status);
          }
          if (status === 429 && !rateLimitWaited) {
            const waitMs = retryAfterMs(error.response, body);
            if (waitMs !== undefined && Date.now() + waitMs < deadline) {
              rateLimitWaited = true;
              log.debug('rate limited; waiting as the board asked', { call: request.what, wait_ms: waitMs });
              await pause(waitMs, deadline);
              continue;
            }
          }
          throw new BoardRefusal(body, status);
        }
        if (isNetworkError(error)) {
          const cause = networkCause(error);
          if (TLS_FAILURE.test(cause)) throw new TlsUntrusted(`the board's TLS certificate could not be verified (${cause})`);
          if (TRANSIENT_FAILURE.test(cause) && reconnects < delays.length) {
            await pause(delays[reconnects++]!, deadline);
            continue;
          }
          throw new DaemonUnreachable(this.options.config.baseUrl, cause);
        }
        throw error;
      }
    }
  }

  /** GET /status, for `roundtable-bridge status`. */
  async status(): Promise<Record<string, unknown>> {
    const { client, ky } = await this.http();
    try {
      return await client.get('status', { timeout: this.options.config.timeoutMs }).json();
    } catch (error) {
      if (error instanceof ky.TimeoutError) throw new CallTimeout('the board did not answer /status in time');
      if (isNetworkError(error)) {
        const cause = networkCause(error);
        if (TLS_FAILURE.test(cause)) throw new TlsUntrusted(`the board's TLS certificate could not be verified (${cause})`);
        throw new DaemonUnreachable(this.options.config.baseUrl, cause);
      }
      throw error;
    }
  }
}

async function errorBodyOf(response: Response): Promise<ErrorBody> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as ErrorBody;
    if (body?.error && isErrorCode(body.error.code) && typeof body.error.message === 'string') return body;
  } catch {
    // fall through: not the board's JSON
  }
  throw new BadResponse(`the server answered HTTP ${response.status} without a board error body`);
}

function retryAfterMs(response: Response, body: ErrorBody): number | undefined {
  const header = Number(response.headers.get('retry-after'));
  const seconds = Number.isFinite(header) && header > 0 ? header : body.error.retry_after_s;
  return seconds === undefined ? undefined : seconds * 1000;
}

function isNetworkError(error: unknown): boolean {
  // fetch reports connection failures as a TypeError whose cause carries the system error code.
  return error instanceof TypeError && (error as { cause?: unknown }).cause !== undefined;
}

function networkCause(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? 'network error';
}

function pause(ms: number, deadline: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(ms, deadline - Date.now()))));
}
