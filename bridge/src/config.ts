// The bridge's settings from flags and environment, validated once. The token is never among them.
import { isToolset, TOOLSETS, type Toolset } from 'roundtable-shared';
import { BadConfig } from './errors.js';

export interface BridgeConfig {
  /** The board's base URL, e.g. https://board.example (no trailing slash, no /mcp). */
  readonly baseUrl: string;
  /** Keychain account: the board's origin, or the profile name. */
  readonly account: string;
  readonly caFile: string | undefined;
  readonly timeoutMs: number;
}

export interface ConfigInput {
  readonly url?: string | undefined;
  readonly profile?: string | undefined;
  readonly ca?: string | undefined;
  readonly timeout?: string | undefined;
}

const DEFAULT_TIMEOUT_S = 30;

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === 'localhost' || host === '[::1]' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** https:// is required, except http:// to a loopback host; `source` names the flag or variable in errors. */
export function requireSecureUrl(raw: string, source: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BadConfig(`${source}: "${raw}" is not a URL; give an address such as https://board.example.com`);
  }
  if (url.username || url.password) throw new BadConfig(`${source}: credentials in the URL are refused; the token comes from the keychain`);
  if (url.search) throw new BadConfig(`${source}: a query string is refused (tokens never travel in URLs)`);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new BadConfig(`${source}: http:// is allowed only to a loopback host; use https:// for ${url.hostname}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new BadConfig(`${source}: use an https:// URL`);
  return url;
}

/** The board's base URL; a trailing /mcp is accepted and dropped. */
export function parseBoardUrl(raw: string, source: string): URL {
  const url = requireSecureUrl(raw, source);
  url.pathname = url.pathname.replace(/\/+$/, '').replace(/\/mcp$/, '');
  url.hash = '';
  return url;
}

export function loadBridgeConfig(input: ConfigInput, env: NodeJS.ProcessEnv = process.env): BridgeConfig {
  const rawUrl = input.url ?? env['ROUNDTABLE_URL'];
  if (!rawUrl) throw new BadConfig('no board URL: pass --url https://your-board.example or set ROUNDTABLE_URL');
  const url = parseBoardUrl(rawUrl, input.url ? '--url' : 'ROUNDTABLE_URL');
  if (input.profile !== undefined && !/^[A-Za-z0-9._-]{1,64}$/.test(input.profile)) {
    throw new BadConfig('--profile: use 1-64 letters, digits, ".", "_" or "-"');
  }
  const timeoutText = input.timeout ?? env['ROUNDTABLE_TIMEOUT'];
  const timeoutS = timeoutText === undefined ? DEFAULT_TIMEOUT_S : Number(timeoutText);
  if (!Number.isFinite(timeoutS) || timeoutS <= 0 || timeoutS > 600) {
    throw new BadConfig(`${input.timeout !== undefined ? '--timeout' : 'ROUNDTABLE_TIMEOUT'}: "${timeoutText}" is not a number of seconds between 0 and 600`);
  }
  return Object.freeze({
    baseUrl: `${url.origin}${url.pathname.replace(/\/$/, '')}`,
    account: input.profile ?? url.origin,
    caFile: input.ca,
    timeoutMs: Math.round(timeoutS * 1000),
  });
}

/** --toolsets tasks,room: the toolsets the served list is narrowed to; absent: no narrowing. */
export function parseToolsets(raw: string | undefined): readonly Toolset[] | null {
  if (raw === undefined) return null;
  const names = raw.split(',').map((name) => name.trim()).filter((name) => name !== '');
  if (names.length === 0) throw new BadConfig(`--toolsets: name at least one of ${TOOLSETS.join(', ')}, e.g. --toolsets tasks,room; leave it out for all`);
  const unknown = names.find((name) => !isToolset(name));
  if (unknown !== undefined) throw new BadConfig(`--toolsets: "${unknown}" is not a toolset; choose from ${TOOLSETS.join(', ')}`);
  return Object.freeze([...new Set(names)] as Toolset[]);
}
