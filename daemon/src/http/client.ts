// Facts about the client of a request: its IP address and whether it reached us over HTTPS.
import type { TLSSocket } from 'node:tls';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

const LOOPBACK_PEER = /^(127\.|::1$|::ffff:127\.)/;

function peerOf(c: Context): string {
  return getConnInfo(c).remote.address ?? 'unknown';
}

/** A request relayed by the reverse proxy we trust: ROUNDTABLE_TRUST_PROXY is on and the peer is loopback. */
export function viaTrustedProxy(c: Context, trustProxy: boolean): boolean {
  return trustProxy && LOOPBACK_PEER.test(peerOf(c)) && (c.req.header('x-forwarded-for') !== undefined || c.req.header('x-real-ip') !== undefined);
}

/** The peer's address; behind a trusted reverse proxy on loopback, X-Real-IP (or the last X-Forwarded-For). */
export function clientIp(c: Context, trustProxy: boolean): string {
  const peer = peerOf(c);
  if (!trustProxy || !LOOPBACK_PEER.test(peer)) return peer;
  const forwarded = c.req.header('x-real-ip') ?? c.req.header('x-forwarded-for')?.split(',').at(-1);
  return forwarded?.trim() || peer;
}

/** True on a TLS socket, or when the trusted proxy on loopback says the browser spoke HTTPS (X-Forwarded-Proto). */
export function cameOverHttps(c: Context, trustProxy: boolean): boolean {
  const incoming = (c.env as { incoming?: { socket?: Partial<TLSSocket> } } | undefined)?.incoming;
  if (incoming?.socket?.encrypted === true) return true;
  if (!trustProxy || !LOOPBACK_PEER.test(peerOf(c))) return false;
  return c.req.header('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase() === 'https';
}
