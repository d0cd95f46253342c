// An authorization request (RFC 6749 section 4.1.1 with OAuth 2.1's rules), judged before anything is shown or
// granted. Until the client and its redirect URI are known, a mistake is shown on the board's own page and the
// browser is sent nowhere (RFC 6749 section 4.1.2.1); after that, it goes back to the client as an error redirect.
import type { OAuthClient } from './clients.js';
import { isCodeChallenge } from './secrets.js';
import { SCOPE } from './urls.js';

export interface AuthorizeRequest {
  readonly client: OAuthClient;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly state: string | undefined;
  readonly resource: string;
}

export type Judged =
  | { readonly kind: 'ok'; readonly request: AuthorizeRequest }
  /** Shown on the board's page: the redirect URI cannot be trusted. */
  | { readonly kind: 'page'; readonly message: string }
  /** Sent back to the client's redirect URI. */
  | { readonly kind: 'redirect'; readonly redirectUri: string; readonly state: string | undefined; readonly error: string; readonly description: string };

/** The parameters as the query or the consent form carries them. */
export type AuthorizeParams = Readonly<Record<string, string | undefined>>;

const MAX_STATE_CHARS = 1024;

/** `client` is the client_id's lookup (undefined when the parameter is missing). */
export function judgeAuthorize(params: AuthorizeParams, client: { ok: true; client: OAuthClient } | { ok: false; why: string } | undefined, expectedResource: string): Judged {
  if (!params['client_id'] || !client) return { kind: 'page', message: 'the request names no client_id; start the sign-in again from the app' };
  if (!client.ok) return { kind: 'page', message: `${client.why}. Start the sign-in again from the app, or ask its maker` };
  const redirectUri = params['redirect_uri'];
  if (!redirectUri) return { kind: 'page', message: 'the request names no redirect_uri; start the sign-in again from the app' };
  if (!client.client.redirectUris.some((registered) => redirectUriMatches(registered, redirectUri))) {
    return { kind: 'page', message: 'redirect_uri is not one of the redirect URIs this client registered (they must match exactly); the board sends the browser nowhere' };
  }
  const state = params['state'];
  const back = (error: string, description: string): Judged => ({ kind: 'redirect', redirectUri, state, error, description });
  if (state !== undefined && state.length > MAX_STATE_CHARS) return back('invalid_request', `state is longer than ${MAX_STATE_CHARS} characters`);
  if (params['response_type'] !== 'code') return back('unsupported_response_type', 'response_type must be code');
  const challenge = params['code_challenge'];
  if (!challenge) return back('invalid_request', 'code_challenge is required: PKCE with S256 (OAuth 2.1 section 4.1.1)');
  if (params['code_challenge_method'] !== 'S256') return back('invalid_request', 'code_challenge_method must be S256; plain and a missing method are refused');
  if (!isCodeChallenge(challenge)) return back('invalid_request', 'code_challenge must be 43 base64url characters (the S256 of the verifier)');
  const resource = params['resource'];
  if (!resource) return back('invalid_target', `resource is required (RFC 8707): this project's MCP URL, ${expectedResource}`);
  if (resource !== expectedResource) return back('invalid_target', `resource must be this project's MCP URL, ${expectedResource}`);
  const scope = params['scope'];
  if (scope !== undefined && scope.split(' ').some((s) => s !== '' && s !== SCOPE)) return back('invalid_scope', `the only scope is ${SCOPE}`);
  return { kind: 'ok', request: { client: client.client, redirectUri, codeChallenge: challenge, state, resource } };
}

/** An http URL to a loopback host, split at its port: `http://HOST`, the port, and the rest exactly as written. */
const LOOPBACK_HTTP = /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost)(?::(\d{1,5}))?([/?][^#]*)?$/;

/**
 * Exact string match (OAuth 2.1 section 2.3.1; RFC 9700 section 4.1.3): no prefix, path, host or scheme variant. The one
 * exception is RFC 8252 section 7.3: for an http redirect to a loopback host, a native app picks its port at the time of
 * the request, so only the port may differ; the host and the rest stay exactly as registered (localhost is not 127.0.0.1).
 */
export function redirectUriMatches(registered: string, presented: string): boolean {
  if (registered === presented) return true;
  const a = LOOPBACK_HTTP.exec(registered);
  const b = LOOPBACK_HTTP.exec(presented);
  return a !== null && b !== null && a[1] === b[1] && Number(b[2] ?? 80) <= 65_535 && (a[3] ?? '') === (b[3] ?? '');
}

/** The client's redirect URI with the answer's parameters added to its query (RFC 6749 section 4.1.2), and iss (RFC 9207). */
export function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(name, value);
  return url.toString();
}
