// DNS-rebinding and cross-site protection: only allowed Host names, and no foreign Origin.
import type { MiddlewareHandler } from 'hono';
import { LOOPBACK_HOSTS } from '../config.js';
import { viaTrustedProxy } from './client.js';

export interface HostGuardOptions {
  readonly allowedHosts: readonly string[];
  /**
   * With ROUNDTABLE_TRUST_PROXY on, a request relayed by the proxy must name one of the configured public hosts:
   * loopback names are only for clients on this machine, and a proxy must not let the outside claim them.
   */
  readonly trustProxy?: boolean;
  /** Status for a refused request: 403 for /mcp and the API, 404 for /status (it admits nothing exists). */
  readonly refusalStatus: 403 | 404;
}

/** The host name of a Host header value or of a URL's host part, lower-cased and without port. */
export function hostnameOf(hostHeader: string): string {
  const value = hostHeader.trim().toLowerCase();
  if (value.startsWith('[')) return value.slice(0, value.indexOf(']') + 1);
  const colon = value.indexOf(':');
  return colon === -1 ? value : value.slice(0, colon);
}

export function hostGuard(options: HostGuardOptions): MiddlewareHandler {
  const everyHost = new Set(options.allowedHosts);
  const publicHosts = new Set(options.allowedHosts.filter((h) => !(LOOPBACK_HOSTS as readonly string[]).includes(h)));
  return async function hostGuard(c, next) {
    const allowed = viaTrustedProxy(c, options.trustProxy ?? false) ? publicHosts : everyHost;
    const host = c.req.header('host');
    let ok = host !== undefined && allowed.has(hostnameOf(host));
    const origin = c.req.header('origin');
    if (ok && origin !== undefined) {
      try {
        ok = allowed.has(hostnameOf(new URL(origin).host));
      } catch {
        ok = false;
      }
    }
    if (ok) return next();
    if (options.refusalStatus === 404) return c.json({ error: { code: 'not_found', message: 'not found' } }, 404);
    return c.json(
      { error: { code: 'forbidden', message: 'this Host or Origin is not allowed; the board owner can add the host name to ROUNDTABLE_ALLOWED_HOSTS' } },
      403,
    );
  };
}
