// The bridge's settings from flags and environment, validated once. The token is never among them.
import { isToolset, TOOLSETS, type Toolset } from 'roundtable-shared';
import { BadConfig } from './errors.js';

export interface BridgeConfig {
  /** The board's base URL, e.g. https://board.example or https://board.example/p/web (no trailing slash, no /mcp). */
  readonly baseUrl: string;
  /** The daemon's own address, without any project: where the unprefixed /status is. Equals baseUrl without a project. */
  readonly serverUrl: string;
  /** The project every request goes to (/p/SLUG/...); undefined: the token's own project, on the unprefixed routes. */
  readonly project: string | undefined;
  /** Keychain account: the board's origin, or the profile name; with a project, that followed by /p/SLUG. */
  readonly account: string;
  readonly caFile: string | undefined;
  readonly timeoutMs: number;
}

export interface ConfigInput {
  readonly url?: string | undefined;
  readonly project?: string | undefined;
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

/** A project's slug, as the daemon names projects (docs/SPEC.md): 1-40 lowercase letters, digits and "-", not "-" first. */
export const PROJECT_SLUG = /^[a-z0-9][a-z0-9-]{0,39}$/;

/** The slug, checked; `source` names the flag, variable or URL it came from. */
export function checkProjectSlug(slug: string, source: string): string {
  if (!PROJECT_SLUG.test(slug)) {
    throw new BadConfig(`${source}: "${slug.slice(0, 60)}" is not a project name; a project is named by 1-40 lowercase letters, digits and "-", not starting with "-" (e.g. --project web)`);
  }
  return slug;
}

/**
 * The keychain account for a board and project: the old account (the origin, or the profile) when no project is given,
 * so logins made before projects keep working; with one, that account followed by /p/SLUG. A profile has no "/" and
 * an origin no path, so no two of these accounts can be equal.
 */
export function keychainAccount(origin: string, profile: string | undefined, project: string | undefined): string {
  const base = profile ?? origin;
  return project === undefined ? base : `${base}/p/${project}`;
}

/** The project a URL names by its path (https://host/p/SLUG, with /mcp already dropped), and the URL without it. */
function splitProject(url: URL, source: string): { server: URL; project: string | undefined } {
  const match = /^(.*)\/p\/([^/]*)$/.exec(url.pathname);
  if (!match) return { server: url, project: undefined };
  const server = new URL(url.href);
  server.pathname = match[1]!;
  return { server, project: checkProjectSlug(match[2]!, `${source} (its /p/ part)`) };
}

/** The project from --project or ROUNDTABLE_PROJECT and from the URL; both given and different is refused. */
function chooseProject(input: ConfigInput, env: NodeJS.ProcessEnv, fromUrl: string | undefined, urlSource: string): string | undefined {
  const flag = input.project ?? env['ROUNDTABLE_PROJECT'];
  const flagSource = input.project !== undefined ? '--project' : 'ROUNDTABLE_PROJECT';
  const given = flag === undefined || flag === '' ? undefined : checkProjectSlug(flag, flagSource);
  if (given !== undefined && fromUrl !== undefined && given !== fromUrl) {
    throw new BadConfig(`${flagSource} names the project "${given}" but ${urlSource} names "${fromUrl}" (its /p/${fromUrl}); give the project once: drop /p/${fromUrl} from the URL, or make them the same`);
  }
  return given ?? fromUrl;
}

export function loadBridgeConfig(input: ConfigInput, env: NodeJS.ProcessEnv = process.env): BridgeConfig {
  const rawUrl = input.url ?? env['ROUNDTABLE_URL'];
  if (!rawUrl) throw new BadConfig('no board URL: pass --url https://your-board.example or set ROUNDTABLE_URL');
  const urlSource = input.url ? '--url' : 'ROUNDTABLE_URL';
  const { server, project: urlProject } = splitProject(parseBoardUrl(rawUrl, urlSource), urlSource);
  const project = chooseProject(input, env, urlProject, urlSource);
  if (input.profile !== undefined && !/^[A-Za-z0-9._-]{1,64}$/.test(input.profile)) {
    throw new BadConfig('--profile: use 1-64 letters, digits, ".", "_" or "-"');
  }
  const timeoutText = input.timeout ?? env['ROUNDTABLE_TIMEOUT'];
  const timeoutS = timeoutText === undefined ? DEFAULT_TIMEOUT_S : Number(timeoutText);
  if (!Number.isFinite(timeoutS) || timeoutS <= 0 || timeoutS > 600) {
    throw new BadConfig(`${input.timeout !== undefined ? '--timeout' : 'ROUNDTABLE_TIMEOUT'}: "${timeoutText}" is not a number of seconds between 0 and 600`);
  }
  const serverUrl = `${server.origin}${server.pathname.replace(/\/$/, '')}`;
  return Object.freeze({
    baseUrl: project === undefined ? serverUrl : `${serverUrl}/p/${project}`,
    serverUrl,
    project,
    account: keychainAccount(server.origin, input.profile, project),
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

/**
 * Whether the bridge attaches the git work to submit_result (issue 35): off with --no-work or ROUNDTABLE_WORK=off;
 * ROUNDTABLE_WORK takes on or off, and anything else stops the bridge naming the variable.
 */
export function workEnabled(noWorkFlag: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  const raw = env['ROUNDTABLE_WORK'];
  if (raw !== undefined && raw !== '' && raw !== 'on' && raw !== 'off') {
    throw new BadConfig(`ROUNDTABLE_WORK: "${raw.slice(0, 20)}" is not on or off; set ROUNDTABLE_WORK=off to send no git work with submit_result, or leave it unset`);
  }
  return !noWorkFlag && raw !== 'off';
}
