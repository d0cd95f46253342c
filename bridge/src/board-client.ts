// Calls the board's JSON API: one request per tool call, bounded by a deadline, retried only when safe; a change whose
// answer was lost keeps its idempotency key for the same call made again.
import { readFileSync } from 'node:fs';
import { findTool, HEARTBEAT_PATH, isErrorCode, LIMITS, waitForActivity, type ErrorBody, type HeartbeatAnswer, WATCHER_HEADER } from 'roundtable-shared';
import type { BridgeConfig } from './config.js';
import { refusedTokenMessage, wrongProjectMessage, type FoundToken } from './credentials.js';
import { BadResponse, CallTimeout, DaemonUnreachable, isUnsettled, TlsUntrusted } from './errors.js';
import { ExchangeFailed, ExchangeTimedOut, type Answer, type Exchange, type Transport } from './exchange.js';
import { log } from './log.js';
import { UNSETTLED_WINDOW_MS, UnsettledCalls } from './unsettled-calls.js';

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
const TRANSIENT_FAILURE = /^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EAI_AGAIN|ECONNABORTED)$/;
const TLS_FAILURE = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|HOSTNAME|ALTNAME/;
/** Failures before any byte of the request could leave: nothing was sent, so nothing can have been applied. */
const NEVER_SENT = /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH)$/;
const WHOAMI_PATH = 'api/v1/tools/whoami';

export class BoardClient {
  private transport: Promise<Transport> | undefined;
  private readonly ca: string | undefined;
  private readonly unsettled = new UnsettledCalls();
  /** Put before every board path: a project's routes are /p/SLUG/...; the daemon's /status is not a project's. */
  private readonly projectPrefix: string;

  constructor(private readonly options: BoardClientOptions) {
    this.ca = options.config.caFile ? readFileSync(options.config.caFile, 'utf8') : undefined;
    this.projectPrefix = options.config.project === undefined ? '' : `p/${options.config.project}/`;
  }

  /** One exchange; node:http, node:https and node:crypto are loaded at the first, not at start (docs/BENCHMARKS.md). */
  private async exchange(exchange: Exchange): Promise<Answer> {
    this.transport ??= import('./http-transport.js').then(({ createTransport }) =>
      createTransport(this.options.config.serverUrl, {
        ...(this.ca !== undefined && { ca: this.ca }),
        headers: { 'user-agent': this.options.userAgent, ...(this.options.watcher && { [WATCHER_HEADER]: '1' }) },
      }),
    );
    return (await this.transport)(exchange);
  }

  /**
   * Runs a tool on the board; resolves with its output, or rejects with a BoardRefusal or a BridgeError. A change
   * whose outcome is unknown keeps its idempotency key: the same call again (same tool, same arguments) within the
   * window goes out under it, so the board applies it at most once. Only a success settles it; a refusal of the
   * repeat does not prove the first attempt was not applied.
   */
  async callTool(name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<Record<string, unknown>> {
    const change = findTool(name)?.mutates === true;
    if (!change) return this.callOnce(name, args, options, undefined);
    const idempotencyKey = this.unsettled.keyFor(name, args) ?? (await import('node:crypto')).randomUUID();
    try {
      const output = await this.callOnce(name, args, options, idempotencyKey);
      this.unsettled.settled(name, args);
      return output;
    } catch (error) {
      if (isUnsettled(error)) this.unsettled.unsettled(name, args, idempotencyKey);
      throw error;
    }
  }

  private async callOnce(name: string, args: Record<string, unknown>, options: CallOptions, idempotencyKey: string | undefined): Promise<Record<string, unknown>> {
    // wait_for_activity holds the request on purpose: allow for the wait on top of the usual timeout.
    const waitMs = name === waitForActivity.name ? (typeof args['timeout_s'] === 'number' ? args['timeout_s'] : LIMITS.waitDefaultS) * 1000 : 0;
    const timeoutMs = (options.timeoutMs ?? this.options.config.timeoutMs) + waitMs;
    const startedAt = Date.now();
    const answer = await this.send('POST', `api/v1/tools/${encodeURIComponent(name)}`, {
      json: args,
      // A wait cut off by its daemon's death (several daemons behind a proxy) is retried on another for what is left
      // of it: the call still ends by its own timeout_s, not timeout_s after the retry and past the deadline.
      ...(waitMs > 0 && { retryJson: () => ({ ...args, timeout_s: Math.max(0, Math.floor((waitMs - (Date.now() - startedAt)) / 100) / 10) }) }),
      idempotencyKey,
      ...(idempotencyKey !== undefined && { unsettledWindowMs: UNSETTLED_WINDOW_MS }),
      what: name,
      timeoutMs,
      ...(options.signal && { signal: options.signal }),
    });
    return jsonOf(answer, name) as Record<string, unknown>;
  }

  /** Renews every claim the agent holds (not a tool call); says which it holds and how often to beat. */
  async heartbeat(): Promise<HeartbeatAnswer> {
    return jsonOf(await this.send('POST', HEARTBEAT_PATH, { what: 'the heartbeat' }), 'the heartbeat') as HeartbeatAnswer;
  }

  /** Takes or renews this process's lease on the agent (one process per token). */
  async acquireInstance(instanceId: string): Promise<void> {
    await this.send('PUT', `api/v1/instances/${encodeURIComponent(instanceId)}`, { what: 'the instance lease' });
  }

  async releaseInstance(instanceId: string): Promise<void> {
    await this.send('DELETE', `api/v1/instances/${encodeURIComponent(instanceId)}`, { what: 'the instance lease' });
  }

  /** One authenticated request within a deadline, with the bridge's retry rules; resolves with a 2xx answer. */
  private async send(
    method: Exchange['method'],
    path: string,
    request: {
      json?: unknown;
      /** What a retry sends instead of json, if it differs. */
      retryJson?: () => unknown;
      idempotencyKey?: string | undefined;
      /** A change: once it may have reached the board, its failure says so, with this window (unsettled-calls.ts). */
      unsettledWindowMs?: number;
      what: string;
      timeoutMs?: number;
      signal?: AbortSignal;
    },
  ): Promise<Answer> {
    const timeoutMs = request.timeoutMs ?? this.options.config.timeoutMs;
    const deadline = Date.now() + timeoutMs;
    // Whether an attempt may have reached the board: then a change's outcome is unknown until one is answered.
    let mayHaveArrived = false;
    const unsettled = () => (mayHaveArrived ? request.unsettledWindowMs : undefined);
    const late = () => new CallTimeout(`the board did not answer ${request.what} within ${timeoutMs / 1000} s`, unsettled());
    let reconnects = 0;
    const delays = this.options.reconnectDelaysMs ?? RECONNECT_DELAYS_MS;
    let rateLimitWaited = false;
    let tokenRefreshed = false;
    for (let attempt = 0; ; attempt++) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw late();
      const supplied = await this.options.token(tokenRefreshed);
      const token = typeof supplied === 'string' ? supplied : supplied.token;
      let answer: Answer;
      try {
        answer = await this.exchange({
          method,
          path: `${this.projectPrefix}${path}`,
          json: attempt > 0 && request.retryJson ? request.retryJson() : request.json,
          timeoutMs: remaining,
          ...(request.signal && { signal: request.signal }),
          headers: { authorization: `Bearer ${token}`, ...(request.idempotencyKey && { 'idempotency-key': request.idempotencyKey }) },
        });
      } catch (error) {
        if (error instanceof ExchangeTimedOut) {
          mayHaveArrived = true;
          throw late();
        }
        if (!(error instanceof ExchangeFailed)) throw error;
        if (TLS_FAILURE.test(error.code)) throw new TlsUntrusted(`the board's TLS certificate could not be verified (${error.code})`);
        if (!NEVER_SENT.test(error.code)) mayHaveArrived = true;
        if (TRANSIENT_FAILURE.test(error.code) && reconnects < delays.length) {
          await pause(delays[reconnects++]!, deadline);
          continue;
        }
        throw new DaemonUnreachable(this.options.config.baseUrl, error.code, unsettled());
      }
      const { status } = answer;
      if (status >= 200 && status < 300) return answer;
      if (GATEWAY_STATUSES.has(status)) {
        // A proxy's gateway error: it may have passed the request on before losing the daemon's answer.
        mayHaveArrived = true;
        if (reconnects < delays.length) {
          await pause(delays[reconnects++]!, deadline);
          continue;
        }
      }
      const body = boardErrorOf(answer);
      if (!body) {
        // A proxy's own page (nginx's is HTML) after every retry: nothing behind it answers.
        if (GATEWAY_STATUSES.has(status)) throw new DaemonUnreachable(this.options.config.baseUrl, `the proxy in front of it answered HTTP ${status}`, unsettled());
        // node:http follows no redirects; a board never sends one, a proxy in front might.
        if (status >= 300 && status < 400) {
          throw new BadResponse(`the server answered HTTP ${status}${answer.headers.location ? ` and redirects to ${answer.headers.location}` : ''}; set --url (or ROUNDTABLE_URL) to the board's own address`);
        }
        throw new BadResponse(`the server answered HTTP ${status} without a board error body`);
      }
      if (status === 401 && !tokenRefreshed) {
        // Maybe `login` stored a new token since this one was read: look once more.
        tokenRefreshed = true;
        continue;
      }
      if (status === 401) {
        const found = typeof supplied === 'string' ? undefined : supplied;
        throw new BoardRefusal({ error: { code: 'unauthorized', message: refusedTokenMessage(found, this.options.config) } }, status);
      }
      if (status === 403 && body.error.code === 'forbidden' && this.options.config.project !== undefined && (await this.refusedByProject(path, token, deadline))) {
        const found = typeof supplied === 'string' ? undefined : supplied;
        throw new BoardRefusal({ error: { code: 'forbidden', message: wrongProjectMessage(found, { ...this.options.config, project: this.options.config.project }) } }, status);
      }
      if (status === 429 && !rateLimitWaited) {
        const waitMs = retryAfterMs(answer, body);
        if (waitMs !== undefined && Date.now() + waitMs < deadline) {
          rateLimitWaited = true;
          log.debug('rate limited; waiting as the board asked', { call: request.what, wait_ms: waitMs });
          await pause(waitMs, deadline);
          continue;
        }
      }
      throw new BoardRefusal(body, status);
    }
  }

  /**
   * Whether a 403 forbidden came from the project's door rather than a board rule. The daemon answers a token on
   * another project's URL with the same code a rule uses, so the bridge asks whoami, which no rule refuses: refused
   * too, the token does not open this project.
   */
  private async refusedByProject(path: string, token: string, deadline: number): Promise<boolean> {
    if (path === WHOAMI_PATH) return true;
    try {
      const answer = await this.exchange({
        method: 'POST',
        path: `${this.projectPrefix}${WHOAMI_PATH}`,
        json: {},
        timeoutMs: Math.max(1, Math.min(deadline - Date.now(), this.options.config.timeoutMs)),
        headers: { authorization: `Bearer ${token}` },
      });
      return answer.status === 403 && boardErrorOf(answer)?.error.code === 'forbidden';
    } catch {
      // No answer to the question: the refusal is reported as the board gave it.
      return false;
    }
  }

  /** GET /status, for `roundtable-bridge status`. */
  async status(): Promise<Record<string, unknown>> {
    let answer: Answer;
    try {
      answer = await this.exchange({ method: 'GET', path: 'status', timeoutMs: this.options.config.timeoutMs });
    } catch (error) {
      if (error instanceof ExchangeTimedOut) throw new CallTimeout('the board did not answer /status in time');
      if (!(error instanceof ExchangeFailed)) throw error;
      if (TLS_FAILURE.test(error.code)) throw new TlsUntrusted(`the board's TLS certificate could not be verified (${error.code})`);
      throw new DaemonUnreachable(this.options.config.baseUrl, error.code);
    }
    if (answer.status !== 200) throw new BadResponse(`the server answered /status with HTTP ${answer.status}`);
    return jsonOf(answer, '/status') as Record<string, unknown>;
  }
}

/** A 2xx answer's JSON body; anything else is not the board speaking. */
function jsonOf(answer: Answer, what: string): unknown {
  try {
    return JSON.parse(answer.text);
  } catch {
    throw new BadResponse(`the server answered ${what} with HTTP ${answer.status} but no JSON body`);
  }
}

/** The board's own error body in an answer, or undefined when something else answered (a proxy's page, say). */
function boardErrorOf(answer: Answer): ErrorBody | undefined {
  try {
    const body = JSON.parse(answer.text) as ErrorBody;
    if (body?.error && isErrorCode(body.error.code) && typeof body.error.message === 'string') return body;
  } catch {
    // not JSON
  }
  return undefined;
}

function retryAfterMs(answer: Answer, body: ErrorBody): number | undefined {
  const header = Number(answer.headers['retry-after']);
  const seconds = Number.isFinite(header) && header > 0 ? header : body.error.retry_after_s;
  return seconds === undefined ? undefined : seconds * 1000;
}

function pause(ms: number, deadline: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(ms, deadline - Date.now()))));
}
