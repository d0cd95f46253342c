// A test-only loopback HTTP proxy that adds a bearer token to every request, for clients that cannot send one
// (such as the MCP conformance suite). Method, path, body and every end-to-end header, including Host and Origin
// exactly as the client sent them, reach the upstream unchanged; the response is streamed back as it arrives.
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  readonly method: string;
  readonly path: string;
  readonly host: string | undefined;
  readonly origin: string | undefined;
  /** The upstream's status, or 502 when the upstream could not be reached. */
  status?: number;
}

export interface AuthProxy {
  /** The proxy's base URL, e.g. http://127.0.0.1:54321 (no trailing slash). */
  readonly url: string;
  readonly port: number;
  /** Every request forwarded so far, in arrival order. */
  readonly requests: readonly ProxiedRequest[];
  close(): Promise<void>;
}

/** Connection-specific (hop-by-hop) headers, which a proxy must not forward (RFC 9110, section 7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

const LOOPBACK = new Set(['127.0.0.1', '[::1]', '::1', 'localhost']);

/** Copies raw headers (name, value, name, value, ...) except hop-by-hop ones, those named in Connection, and `drop`. */
function forwardable(raw: readonly string[], drop: ReadonlySet<string> = new Set()): string[] {
  const named = new Set<string>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === 'connection') for (const name of raw[i + 1]!.split(',')) named.add(name.trim().toLowerCase());
  }
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(name) || named.has(name) || drop.has(name)) continue;
    out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

/**
 * Starts the proxy on 127.0.0.1 (options.port, or a free port). `upstream` must be a loopback http:// URL: nothing leaves the host.
 * Any Authorization header the client sent is replaced by `Authorization: Bearer <token>`.
 */
export async function startAuthProxy(upstream: string, token: string, options: { port?: number } = {}): Promise<AuthProxy> {
  const target = new URL(upstream);
  if (target.protocol !== 'http:' || !LOOPBACK.has(target.hostname)) throw new Error(`the auth proxy only forwards to a loopback http:// URL, not ${upstream}`);
  const requests: ProxiedRequest[] = [];

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const record: ProxiedRequest = { method: req.method ?? 'GET', path: req.url ?? '/', host: req.headers.host, origin: req.headers.origin };
    requests.push(record);
    const headers = [...forwardable(req.rawHeaders, new Set(['authorization'])), 'Authorization', `Bearer ${token}`];
    const upstreamReq = request(
      {
        protocol: 'http:',
        hostname: target.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: target.port,
        method: record.method,
        path: record.path,
        headers,
        // Keep the client's Host header, even a foreign one, so the daemon's DNS-rebinding guard sees it.
        setHost: false,
      },
      (upstreamRes) => {
        record.status = upstreamRes.statusCode ?? 502;
        res.writeHead(record.status, upstreamRes.statusMessage ?? '', forwardable(upstreamRes.rawHeaders));
        res.flushHeaders();
        upstreamRes.pipe(res);
        upstreamRes.on('error', () => res.destroy());
      },
    );
    upstreamReq.on('error', (error) => {
      record.status = 502;
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`auth proxy: upstream request failed: ${error.message}`);
    });
    // A client that goes away takes its upstream request with it.
    res.on('close', () => {
      if (!res.writableFinished) upstreamReq.destroy();
    });
    req.pipe(upstreamReq);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
