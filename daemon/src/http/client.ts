// Facts about the client of a request: its IP address and whether it reached us over HTTPS, believing a proxy only.
import type { TLSSocket } from 'node:tls';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

import { normalizeAddress, type TrustProxy } from '../runtime/config.js';

const LOOPBACK_PEER = /^(127\.|::1$)/;

function peerOf(c: Context): string {
  return normalizeAddress(getConnInfo(c).remote.address ?? 'unknown');
}

/**
 * Whether this connection comes from the configured proxy, so its forwarded headers may be believed. Only the peer
 * address tells: any process that reaches the daemon's port directly can write the headers (DEPLOY.md: then the port
 * must be reachable by the proxy alone).
 */
function fromProxy(c: Context, trustProxy: TrustProxy): boolean {
  if (trustProxy === false) return false;
  const peer = peerOf(c);
  return trustProxy === 'loopback' ? LOOPBACK_PEER.test(peer) : trustProxy.includes(peer);
}

/** A request relayed by the reverse proxy we trust: it came from the proxy and carries a forwarded address. */
export function viaTrustedProxy(c: Context, trustProxy: TrustProxy): boolean {
  return fromProxy(c, trustProxy) && (c.req.header('x-forwarded-for') !== undefined || c.req.header('x-real-ip') !== undefined);
}

/** The peer's address; from the trusted reverse proxy, X-Real-IP (or the last X-Forwarded-For). */
export function clientIp(c: Context, trustProxy: TrustProxy): string {
  const peer = peerOf(c);
  if (!fromProxy(c, trustProxy)) return peer;
  const forwarded = c.req.header('x-real-ip') ?? c.req.header('x-forwarded-for')?.split(',').at(-1);
  return forwarded?.trim() || peer;
}

/** True on a TLS socket, or when the trusted proxy says the browser spoke HTTPS (X-Forwarded-Proto). */
export function cameOverHttps(c: Context, trustProxy: TrustProxy): boolean {
  const incoming = (c.env as { incoming?: { socket?: Partial<TLSSocket> } } | undefined)?.incoming;
  if (incoming?.socket?.encrypted === true) return true;
  if (!fromProxy(c, trustProxy)) return false;
  return c.req.header('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase() === 'https';
}

/**
 * The scheme the browser spoke, where it is known: https on a TLS socket, or what the trusted proxy says in
 * X-Forwarded-Proto; undefined on a plain socket that no trusted proxy speaks for (a TLS proxy may stand in front).
 */
export function knownScheme(c: Context, trustProxy: TrustProxy): 'http:' | 'https:' | undefined {
  const incoming = (c.env as { incoming?: { socket?: Partial<TLSSocket> } } | undefined)?.incoming;
  if (incoming?.socket?.encrypted === true) return 'https:';
  if (!fromProxy(c, trustProxy)) return undefined;
  const said = c.req.header('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  return said === 'https' ? 'https:' : said === 'http' ? 'http:' : undefined;
}
