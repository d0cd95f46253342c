// What one HTTP exchange with the board is: the request, the answer, its two failures. The node:http side lives in
// http-transport.ts, which is loaded at the first call: serving initialize and tools/list needs no network code.
import type { IncomingHttpHeaders } from 'node:http';

export interface TransportOptions {
  /** PEM of a private CA for the board's certificate (--ca). */
  readonly ca?: string;
  /** Sent with every request (user-agent, the watcher mark). */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface Exchange {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Relative to the base URL, without a leading slash. */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as JSON when present. */
  readonly json?: unknown;
  /** The whole exchange, from connecting to the last byte of the answer. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

export interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

/** The exchange did not finish within its timeoutMs. */
export class ExchangeTimedOut extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
  }
}

/** The connection failed or broke; code is the system's (ECONNREFUSED, ECONNRESET, a TLS verification code, ...). */
export class ExchangeFailed extends Error {
  constructor(readonly code: string, options: { cause: unknown }) {
    super(`the connection failed (${code})`, options);
  }
}

export type Transport = (exchange: Exchange) => Promise<Answer>;
