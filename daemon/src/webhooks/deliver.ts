// One delivery attempt over the network: resolve the name, refuse it if any address is refused, connect to that exact
// address (no second lookup a rebinding name could change), send once, follow no redirect, read at most a capped body.
// Each way it can fail has its own code (docs/SPEC.md §19), so `webhooks status` and the log say what went wrong.
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { pinnedLookup, type AddressAllowance, type Resolver } from './address-policy.js';

export interface AttemptRequest {
  readonly url: string;
  readonly allow: AddressAllowance;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Connecting and the whole answer, each bounded. */
  readonly connectTimeoutMs: number;
  readonly responseTimeoutMs: number;
  readonly signal?: AbortSignal | undefined;
}

/** How an attempt ended: delivered (a 2xx), or failed with a fixed code (never the receiver's words). */
export type AttemptOutcome = { readonly ok: true; readonly status: number } | { readonly ok: false; readonly error: string };

/** The most of a response body read; the rest is dropped with the connection. */
export const RESPONSE_BODY_CAP = 64 * 1024;

export const systemResolver: Resolver = (host) => dnsLookup(host, { all: true, verbatim: true });

export async function attemptDelivery(request: AttemptRequest, resolve: Resolver = systemResolver): Promise<AttemptOutcome> {
  const url = new URL(request.url);
  const pinned = await pinnedLookup(url, request.allow, resolve);
  if ('error' in pinned) return { ok: false, error: pinned.error };
  const { lookup } = pinned;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<AttemptOutcome>((resolvePromise) => {
    let settled = false;
    const finish = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      clearTimeout(responseTimer);
      request.signal?.removeEventListener('abort', onAbort);
      req.destroy();
      resolvePromise(outcome);
    };
    const req = client.request(url, {
      method: 'POST',
      lookup,
      headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)), 'user-agent': 'roundtable-webhooks' },
      agent: false,
    });
    const connectTimer = setTimeout(() => finish({ ok: false, error: 'connect_timeout' }), request.connectTimeoutMs);
    const responseTimer = setTimeout(() => finish({ ok: false, error: 'response_timeout' }), request.responseTimeoutMs);
    const onAbort = () => finish({ ok: false, error: 'shutdown' });
    request.signal?.addEventListener('abort', onAbort);
    // Connected over TCP but not yet through TLS: any failure then is the handshake's (a bad or unknown certificate).
    let tcpConnected = false;
    let secured = url.protocol !== 'https:';
    req.on('socket', (socket) => {
      socket.once('connect', () => (tcpConnected = true));
      socket.once('secureConnect', () => (secured = true));
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
    });
    req.on('error', (error: NodeJS.ErrnoException) => finish({ ok: false, error: failureCode(error, tcpConnected, secured) }));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > RESPONSE_BODY_CAP) finish(status >= 200 && status < 300 ? { ok: true, status } : { ok: false, error: `http_${status}` });
      });
      res.on('end', () => finish(status >= 200 && status < 300 ? { ok: true, status } : { ok: false, error: `http_${status}` }));
      res.on('error', () => finish({ ok: false, error: 'response_failed' }));
    });
    req.end(request.body);
  });
}

/** A request's error as a fixed code: by where it happened and by Node's error code, never by its message. */
function failureCode(error: NodeJS.ErrnoException, tcpConnected: boolean, secured: boolean): string {
  // Node's HTTP parser refuses a header block over its limit (16 KB): the receiver sent more than a receiver should.
  if (error.code === 'HPE_HEADER_OVERFLOW') return 'response_too_large';
  if (error.code === 'ECONNREFUSED') return 'connect_refused';
  if (tcpConnected && !secured) return 'tls_failed';
  return 'connect_failed';
}
