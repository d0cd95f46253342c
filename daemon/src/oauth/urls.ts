// Where the board's OAuth parts are, as a client sees them. Each project is its own authorization server: issuer
// ORIGIN/p/SLUG for its resource ORIGIN/p/SLUG/mcp; the unprefixed ORIGIN/mcp is the project `default`'s resource, with
// issuer ORIGIN (docs/DECISIONS.md, issue 34). The origin is ROUNDTABLE_PUBLIC_URL's, else the request's own (its Host,
// which the host guard has checked, and its scheme, from a trusted proxy when there is one).
import type { Context } from 'hono';
import { DEFAULT_PROJECT, projectPrefix } from 'roundtable-shared';
import { cameOverHttps } from '../http/client.js';
import type { Config } from '../runtime/config.js';

/** Which project an OAuth URL is for, and the path prefix it carries ('' for the unprefixed default). */
export interface OAuthBase {
  readonly slug: string;
  readonly prefix: string;
}

export const UNPREFIXED: OAuthBase = Object.freeze({ slug: DEFAULT_PROJECT, prefix: '' });

export function baseOf(slug: string | undefined): OAuthBase {
  return slug === undefined ? UNPREFIXED : { slug, prefix: projectPrefix(slug) };
}

export function originOf(c: Context, config: Config): string {
  if (config.publicUrl) return new URL(config.publicUrl).origin;
  const scheme = cameOverHttps(c, config.trustProxy) ? 'https' : 'http';
  return `${scheme}://${c.req.header('host') ?? `${config.host}:${config.port}`}`;
}

export const issuerOf = (origin: string, base: OAuthBase): string => `${origin}${base.prefix}`;
export const resourceOf = (origin: string, base: OAuthBase): string => `${origin}${base.prefix}/mcp`;
export const resourceMetadataUrl = (origin: string, base: OAuthBase): string => `${origin}/.well-known/oauth-protected-resource${base.prefix}/mcp`;

/** The one scope: acting on the board as the agent granted. */
export const SCOPE = 'board';

/** An MCP path's base: `/p/SLUG/mcp...` or the unprefixed `/mcp...`; undefined for any other path. */
export function mcpBaseOf(path: string): OAuthBase | undefined {
  const prefixed = /^\/p\/([^/]+)\/mcp(?:\/|$)/.exec(path);
  if (prefixed) return baseOf(prefixed[1]!);
  return /^\/mcp(?:\/|$)/.test(path) ? UNPREFIXED : undefined;
}

/** The challenge a 401 from an MCP URL carries, so a client finds the authorization server (RFC 9728 section 5.1). */
export function bearerChallenge(c: Context, config: Config, base: OAuthBase): string {
  return `Bearer realm="roundtable", resource_metadata="${resourceMetadataUrl(originOf(c, config), base)}", scope="${SCOPE}"`;
}
