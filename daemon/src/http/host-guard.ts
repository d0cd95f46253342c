// DNS-rebinding and cross-site protection: only allowed Host names, and no foreign Origin.
import type { MiddlewareHandler } from 'hono';

export interface HostGuardOptions {
  readonly allowedHosts: readonly string[];
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
  const allowed = new Set(options.allowedHosts);
  return async function hostGuard(c, next) {
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
