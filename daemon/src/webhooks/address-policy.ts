// Where a webhook may be sent: https only (http only for a loopback receiver, with the explicit flag), and never to a
// loopback, private or link-local address unless the webhook was allowed one. Checked on the URL when it is added and
// on every address its name resolves to before each attempt (a name resolving to a refused address counts as one).
import { isIP } from 'node:net';

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
  if (isIP(host)) {
    const refusal = addressRefusal(host, allow);
    if (refusal) throw new WebhookUrlRefused(`URL: ${refusal}`);
  }
  url.hash = '';
  return url.toString();
}

type AddressClass = 'loopback' | 'private' | 'link_local' | 'reserved' | 'public';

function v4Parts(address: string): number[] | undefined {
  const parts = address.split('.').map(Number);
  return parts.length === 4 && parts.every((p) => Number.isInteger(p) && p >= 0 && p <= 255) ? parts : undefined;
}

function classifyV4(address: string): AddressClass {
  const [a, b] = v4Parts(address) ?? [0, 0];
  if (a === 127) return 'loopback';
  if (a === 10 || (a === 172 && b! >= 16 && b! <= 31) || (a === 192 && b === 168)) return 'private';
  if (a === 169 && b === 254) return 'link_local';
  // 0/8, CGNAT 100.64/10, 192.0.0/24, benchmarking 198.18/15, multicast and above.
  if (a === 0 || (a === 100 && b! >= 64 && b! <= 127) || (a === 192 && b === 0) || (a === 198 && (b === 18 || b === 19)) || a! >= 224) return 'reserved';
  return 'public';
}

/** The kind of an IP address (v4, v6, or v4 mapped into v6). */
export function classify(address: string): AddressClass {
  const kind = isIP(address);
  if (kind === 4) return classifyV4(address);
  if (kind !== 6) return 'reserved';
  const lower = address.toLowerCase();
  const mapped = /^(?:0*:)*:?(?:0*:)?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower) ?? /^::(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped) return classifyV4(mapped[1]!);
  const hexMapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hexMapped) {
    const hi = parseInt(hexMapped[1]!, 16);
    const lo = parseInt(hexMapped[2]!, 16);
    return classifyV4(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
  }
  if (lower === '::1') return 'loopback';
  if (lower === '::') return 'reserved';
  const first = parseInt(lower.split(':')[0] || '0', 16);
  if ((first & 0xfe00) === 0xfc00) return 'private';
  if ((first & 0xffc0) === 0xfe80) return 'link_local';
  if ((first & 0xff00) === 0xff00) return 'reserved';
  return 'public';
}

/** Why an address is refused (fixed words), or undefined when a delivery may connect to it. */
export function addressRefusal(address: string, allow: AddressAllowance): string | undefined {
  const kind = classify(address);
  if (kind === 'public') return undefined;
  if (kind === 'loopback' && allow.loopback) return undefined;
  if (kind === 'private' && allow.private) return undefined;
  if (kind === 'loopback') return 'refused: a loopback address (allowed only with --allow-http-loopback)';
  if (kind === 'private') return 'refused: a private address (allowed only with --allow-private)';
  if (kind === 'link_local') return 'refused: a link-local address (never allowed)';
  return 'refused: a reserved address (never allowed)';
}
