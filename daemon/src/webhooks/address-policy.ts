// Where a webhook may be sent: https only (http only for a loopback receiver, with the explicit flag), and only to a
// globally routable unicast address unless the webhook was allowed loopback or private ones. Checked on the URL when it
// is added (its name resolved then) and on every address its name resolves to before each attempt.
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface AddressAllowance {
  /** --allow-http-loopback: a test receiver on this machine, over http or https. */
  readonly loopback: boolean;
  /** --allow-private: a receiver on the local network (10/8, 172.16/12, 192.168/16, fc00::/7); never link-local. */
  readonly private: boolean;
}

export class WebhookUrlRefused extends Error {}

const LOOPBACK_NAMES = new Set(['localhost', 'localhost.']);

/** Checks a URL as given to `webhooks add`; returns it normalized, or throws WebhookUrlRefused saying what to do. */
export function checkWebhookUrl(text: string, allow: AddressAllowance): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebhookUrlRefused('URL: not a URL; give the full https://host/path of the receiver');
  }
  if (url.username || url.password) throw new WebhookUrlRefused('URL: must not carry a user name or password; put any credential in the path the receiver gives you');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (url.protocol === 'http:') {
    if (!allow.loopback) throw new WebhookUrlRefused('URL: only https is allowed; http only for a receiver on this machine, with --allow-http-loopback');
    if (!LOOPBACK_NAMES.has(host.toLowerCase()) && classify(host) !== 'loopback') {
      throw new WebhookUrlRefused('URL: http is allowed only to a loopback receiver (127.0.0.1, ::1, localhost); use https for any other');
    }
  } else if (url.protocol !== 'https:') {
    throw new WebhookUrlRefused('URL: only https is allowed');
  }
  const refusal = isIP(host) ? addressRefusal(host, allow) : LOOPBACK_NAMES.has(host.toLowerCase()) ? addressRefusal('127.0.0.1', allow) : undefined;
  if (refusal) throw new WebhookUrlRefused(`URL: ${refusal}`);
  url.hash = '';
  return url.toString();
}

export type AddressClass = 'loopback' | 'private' | 'link_local' | 'reserved' | 'public';

function classifyV4(address: ipaddr.IPv4): AddressClass {
  // ipaddr.js names every special-purpose range; only 'unicast' is left for the global internet.
  switch (address.range()) {
    case 'unicast':
      return 'public';
    case 'loopback':
      return 'loopback';
    case 'private':
      return 'private';
    case 'linkLocal':
      return 'link_local';
    default:
      return 'reserved';
  }
}

/** The IPv4 address in the last 32 bits of an IPv6 one (mapped, translated, NAT64), or at bits 16-48 (6to4). */
function embeddedV4(parts: readonly number[], at: number): ipaddr.IPv4 {
  const hi = parts[at]!;
  const lo = parts[at + 1]!;
  return new ipaddr.IPv4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
}

function classifyV6(address: ipaddr.IPv6): AddressClass {
  const parts = address.parts;
  switch (address.range()) {
    case 'loopback':
      return 'loopback';
    case 'uniqueLocal':
      return 'private';
    case 'linkLocal':
      return 'link_local';
    // The socket reaches the IPv4 address itself: it is what counts.
    case 'ipv4Mapped':
    case 'rfc6145':
      return classifyV4(embeddedV4(parts, 6));
    // Through a NAT64 gateway or a 6to4 relay: only a public IPv4 behind it is an ordinary receiver; a loopback or
    // private one is that gateway's own network, which no flag was given for.
    case 'rfc6052':
      return parts[2] === 0 && classifyV4(embeddedV4(parts, 6)) === 'public' ? 'public' : 'reserved';
    case '6to4':
      return classifyV4(embeddedV4(parts, 1)) === 'public' ? 'public' : 'reserved';
    case 'unicast':
      // Global unicast is 2000::/3 (RFC 4291); the rest of "unicast" is unassigned, or ::/96 (IPv4-compatible, deprecated).
      return (parts[0]! & 0xe000) === 0x2000 ? 'public' : 'reserved';
    default:
      return 'reserved';
  }
}

/** The kind of an IP address (v4, v6, or v4 carried in v6); anything that is not an address counts as reserved. */
export function classify(address: string): AddressClass {
  const kind = isIP(address);
  if (kind === 0) return 'reserved';
  if (kind === 4) return classifyV4(ipaddr.IPv4.parse(address));
  // ipaddr.js 2.5.0 reads a dotted tail as IPv4-mapped whatever precedes it (::8.8.8.8 as ::ffff:8.8.8.8), so the
  // address is first written in hex by the WHATWG URL parser. A zone index (fe80::1%eth0) does not change the range.
  const hex = new URL(`http://[${address.split('%')[0]}]/`).hostname.slice(1, -1);
  return classifyV6(ipaddr.IPv6.parse(hex));
}

/** The rule that refuses an address, as a short code for the delivery's last error (address_refused:<kind>). */
export function refusedKind(address: string, allow: AddressAllowance): Exclude<AddressClass, 'public'> | undefined {
  const kind = classify(address);
  if (kind === 'public') return undefined;
  if (kind === 'loopback' && allow.loopback) return undefined;
  if (kind === 'private' && allow.private) return undefined;
  return kind;
}

const RULES: Record<Exclude<AddressClass, 'public'>, string> = {
  loopback: 'refused: a loopback address (allowed only with --allow-http-loopback)',
  private: 'refused: a private address (allowed only with --allow-private)',
  link_local: 'refused: a link-local address (never allowed)',
  reserved: 'refused: a reserved or special-purpose address, not globally routable (never allowed)',
};

/** Why an address is refused (fixed words naming the rule), or undefined when a delivery may connect to it. */
export function addressRefusal(address: string, allow: AddressAllowance): string | undefined {
  const kind = refusedKind(address, allow);
  return kind && RULES[kind];
}

export type Resolver = (host: string) => Promise<Array<{ address: string; family: number }>>;

/**
 * `webhooks add`: the URL's rules, then its host name resolved once, every address checked (a name such as localhost
 * or one pointing at 10.0.0.5 is refused now, not left to fail each delivery). A name that does not resolve now is
 * accepted: it may be a receiver not up yet, and each delivery resolves it again under the same rules.
 */
export async function checkWebhookTarget(text: string, allow: AddressAllowance, resolve: Resolver, deadlineMs = 3_000): Promise<string> {
  const normalized = checkWebhookUrl(text, allow);
  const host = new URL(normalized).hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return normalized;
  let timer: NodeJS.Timeout | undefined;
  const addresses = await Promise.race([
    resolve(host).catch(() => []),
    new Promise<[]>((done) => (timer = setTimeout(() => done([]), deadlineMs))),
  ]).finally(() => clearTimeout(timer));
  for (const { address } of addresses) {
    const refusal = addressRefusal(address, allow);
    if (refusal) throw new WebhookUrlRefused(`URL: its host name resolves to ${address}, ${refusal}`);
  }
  return normalized;
}

/**
 * Resolves a URL's host once and checks every address it names; the lookup returned pins a request's socket to the
 * first of them, so a name that changes its answer between the check and the connect cannot reach a refused address.
 * Webhook deliveries and the client metadata documents of OAuth use it.
 */
export async function pinnedLookup(url: URL, allow: AddressAllowance, resolve: Resolver): Promise<{ readonly lookup: LookupFunction } | { readonly error: 'dns_failed' | `address_refused:${Exclude<AddressClass, 'public'>}` }> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: Array<{ address: string; family: number }>;
  try {
    addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await resolve(host);
  } catch {
    return { error: 'dns_failed' };
  }
  if (addresses.length === 0) return { error: 'dns_failed' };
  for (const { address } of addresses) {
    const refused = refusedKind(address, allow);
    if (refused) return { error: `address_refused:${refused}` };
  }
  const pinned = addresses[0]!;
  const lookup: LookupFunction = (_name, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  return { lookup };
}

