// DNS-rebinding and cross-site protection: only allowed Host names on allowed ports, and no foreign Origin.
import type { Socket } from 'node:net';
import type { Context, MiddlewareHandler } from 'hono';
import { LOOPBACK_HOSTS, type AllowedHost, type TrustProxy } from '../config.js';
import { viaTrustedProxy } from './client.js';

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
    if (ok && origin !== undefined) {
      try {
        const url = new URL(origin);
        const defaultPort = url.protocol === 'https:' ? 443 : url.protocol === 'http:' ? 80 : Number.NaN;
        // URL drops a scheme's default port, so "https://board.example.com:443" has port "" here.
        ok = isAllowed(url.hostname, url.port === '' ? defaultPort : Number(url.port));
      } catch {
        ok = false;
      }
    }
    if (ok) return next();
    if (options.refusalStatus === 404) return c.json({ error: { code: 'not_found', message: 'not found' } }, 404);
    return c.json(
      {
        error: {
          code: 'forbidden',
          message:
            'this Host or Origin (name and port) is not allowed; open the board at the address it serves, or the board owner can add the name (with its port, if not 80 or 443) to ROUNDTABLE_ALLOWED_HOSTS',
        },
      },
      403,
    );
  };
}
