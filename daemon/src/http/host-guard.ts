// DNS-rebinding and cross-site protection: only allowed Host names on allowed ports, and no foreign Origin.
import type { Socket } from 'node:net';
import type { Context, MiddlewareHandler } from 'hono';
import { LOOPBACK_HOSTS, type AllowedHost, type TrustProxy } from '../runtime/config.js';
import { knownScheme, viaTrustedProxy } from './client.js';

export interface HostGuardOptions {
  readonly allowedHosts: readonly AllowedHost[];
  /**
   * With ROUNDTABLE_TRUST_PROXY on, a request relayed by the proxy must name one of the configured public hosts:
   * loopback names are only for clients on this machine, and a proxy must not let the outside claim them.
   */
  readonly trustProxy?: TrustProxy;
  /** Status for a refused request: 403 for /mcp and the API, 404 for /status (it admits nothing exists). */
  readonly refusalStatus: 403 | 404;
}

/** The standard ports, on which a reverse proxy in front of the board serves it. */
const STANDARD_PORTS: readonly number[] = [80, 443];

/** The host name of a Host header value or of a URL's host part, lower-cased and without port. */
export function hostnameOf(hostHeader: string): string {
  return hostAndPortOf(hostHeader).name;
}

/** A Host header value (or a URL's host part) split into its lower-cased name and the port it names, if any. */
export function hostAndPortOf(hostHeader: string): { name: string; port: number | undefined } {
  const value = hostHeader.trim().toLowerCase();
  const close = value.startsWith('[') ? value.indexOf(']') + 1 : 0;
  const colon = value.indexOf(':', close);
  if (colon === -1) return { name: value, port: undefined };
  const portText = value.slice(colon + 1);
  return { name: value.slice(0, colon), port: /^\d{1,5}$/.test(portText) ? Number(portText) : Number.NaN };
}

/**
 * Whether an allowed entry admits a name reached on a port. A loopback name admits only the daemon's own port,
 * so a page served on another local port is a foreign origin. A configured name with a port admits that port;
 * without one, the daemon's own port and the standard ports 80 and 443 (a reverse proxy's public port).
 */
export function admits(entry: AllowedHost, name: string, port: number, ownPort: number | undefined): boolean {
  if (entry.name !== name) return false;
  if (entry.port !== undefined) return port === entry.port;
  if ((LOOPBACK_HOSTS as readonly string[]).includes(name)) return port === ownPort;
  return port === ownPort || STANDARD_PORTS.includes(port);
}

/**
 * Whether an Origin header names this board (issue 31: `https://`, `ws://`, `ftp://` and `http://user@` forms of the
 * board's own host and port passed). Only an origin as browsers write it passes: http or https, a host and a port,
 * no user, no path; "null" and anything unparsable are refused. The scheme must be the one the request came over
 * where that is known (a TLS socket, or the trusted proxy's X-Forwarded-Proto). On a plain socket nobody speaks
 * for, a configured public name may also come as https (a TLS proxy the board was not told of may stand in front),
 * but a loopback name, which only this machine reaches on the daemon's own port, only as http.
 */
export function originAdmitted(origin: string, scheme: 'http:' | 'https:' | undefined, isAllowed: (name: string, port: number) => boolean): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  // The serialised origin leaves out a user, a path and a default port: anything it leaves out was not an origin.
  if (url.origin !== origin.toLowerCase()) return false;
  const loopback = (LOOPBACK_HOSTS as readonly string[]).includes(url.hostname);
  if (scheme !== undefined ? url.protocol !== scheme : url.protocol === 'https:' && loopback) return false;
  // URL leaves out a scheme's default port, so "https://board.example.com" has port "" here.
  return isAllowed(url.hostname, url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port));
}

function socketOf(c: Context): Partial<Socket & { encrypted: boolean }> | undefined {
  return (c.env as { incoming?: { socket?: Partial<Socket & { encrypted: boolean }> } } | undefined)?.incoming?.socket;
}

export function hostGuard(options: HostGuardOptions): MiddlewareHandler {
  const everyHost = options.allowedHosts;
  const publicHosts = options.allowedHosts.filter((h) => !(LOOPBACK_HOSTS as readonly string[]).includes(h.name));
  return async function hostGuard(c, next) {
    const allowed = viaTrustedProxy(c, options.trustProxy ?? false) ? publicHosts : everyHost;
    const socket = socketOf(c);
    // The port this connection reached: the daemon's own, whatever ROUNDTABLE_PORT said (0 picks one).
    const ownPort = socket?.localPort;
    const isAllowed = (name: string, port: number) => allowed.some((entry) => admits(entry, name, port, ownPort));
    const hostHeader = c.req.header('host');
    let ok = false;
    if (hostHeader !== undefined) {
      const host = hostAndPortOf(hostHeader);
      // A Host without a port names the scheme's default port: 443 on a TLS socket, else 80.
      ok = isAllowed(host.name, host.port ?? (socket?.encrypted === true ? 443 : 80));
    }
    const origin = c.req.header('origin');
    if (ok && origin !== undefined) ok = originAdmitted(origin, knownScheme(c, options.trustProxy ?? false), isAllowed);
    if (ok) return next();
    if (options.refusalStatus === 404) {
      // A person who opens the board through a proxy the board was not told of gets a page that says what to set;
      // programs keep the bare 404. Nothing of the request (its Host) is echoed.
      if (c.req.method === 'GET' && /\btext\/html\b/i.test(c.req.header('accept') ?? '')) return wrongAddressPage(c);
      return c.json({ error: { code: 'not_found', message: 'not found' } }, 404);
    }
    return c.json(
      {
        error: {
          code: 'forbidden',
          message:
            'this Host or Origin (scheme, name and port) is not allowed; open the board at the address it serves, or the board owner can add the name (with its port, if not 80 or 443) to ROUNDTABLE_ALLOWED_HOSTS',
        },
      },
      403,
    );
  };
}

const WRONG_ADDRESS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Roundtable: address not allowed</title></head>
<body><h1>This board does not answer at this address</h1>
<p>The Roundtable board is running, but it answers only the host names it was told about, so that other sites cannot reach it through your browser (DNS rebinding).</p>
<p>If it runs behind a reverse proxy such as nginx, the board&#39;s owner adds the public host name to <code>ROUNDTABLE_ALLOWED_HOSTS</code> (with its port, if not 80 or 443; several names are separated by commas) and restarts the board. See docs/DEPLOY.md.</p>
</body></html>
`;

/** The refusal a browser gets: static text, no script, no style, nothing of the request. */
function wrongAddressPage(c: Context): Response {
  c.header('Content-Security-Policy', "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Cache-Control', 'no-store');
  return c.html(WRONG_ADDRESS_PAGE, 404);
}
