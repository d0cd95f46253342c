// Who is asking: a client known by its metadata document (its id is the document's URL), or one registered here by
// dynamic client registration. Either way the board learns its name and its exact redirect URIs, nothing more.
import { OAuthClientMetadataSchema } from '@modelcontextprotocol/core';
import type { OAuthStore } from '../store/oauth-port.js';
import { fetchClientDocument, isDocumentClientId, type DocumentFetch } from './client-document.js';

export interface OAuthClient {
  readonly clientId: string;
  /** As the client names itself: agent-written text, shown as text only, never in an error. */
  readonly clientName: string | null;
  readonly redirectUris: readonly string[];
}

export type ClientLookup = { readonly ok: true; readonly client: OAuthClient } | { readonly ok: false; readonly why: string };

/** How long a fetched document is used before it is fetched again. */
const DOCUMENT_TTL_MS = 5 * 60_000;
const CACHE_LIMIT = 500;

/** A redirect URI a client may register: https, http to a loopback address (RFC 8252 section 7.3), or an app's own scheme. */
export function redirectUriMistake(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not a URL';
  }
  if (url.hash) return 'has a fragment (RFC 6749 section 3.1.2)';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') return ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname) ? undefined : 'uses http to a host other than this machine; use https';
  if (['javascript:', 'data:', 'file:', 'vbscript:', 'blob:'].includes(url.protocol)) return `uses the ${url.protocol} scheme, which is never a redirect`;
  return undefined;
}

export class ClientDirectory {
  private readonly documents = new Map<string, { readonly client: OAuthClient; readonly until: number }>();

  constructor(
    private readonly allowLoopback: boolean,
    private readonly fetchDocument: (url: string, allowLoopback: boolean) => Promise<DocumentFetch> = fetchClientDocument,
  ) {}

  async find(clientId: string, store: OAuthStore): Promise<ClientLookup> {
    if (isDocumentClientId(clientId, this.allowLoopback)) return this.fromDocument(clientId);
    const registered = await store.findClient(clientId);
    if (registered) return { ok: true, client: registered };
    return { ok: false, why: 'client_id is neither an https URL of a client metadata document nor a client registered with this project' };
  }

  private async fromDocument(url: string): Promise<ClientLookup> {
    const cached = this.documents.get(url);
    if (cached && cached.until > Date.now()) return { ok: true, client: cached.client };
    const fetched = await this.fetchDocument(url, this.allowLoopback);
    if (!fetched.ok) return { ok: false, why: `the client metadata document at client_id was refused: ${fetched.why}` };
    const parsed = OAuthClientMetadataSchema.safeParse(fetched.body);
    const id = (fetched.body as { client_id?: unknown } | null)?.client_id;
    if (!parsed.success) return { ok: false, why: 'the client metadata document at client_id is not valid client metadata (RFC 7591 section 2)' };
    if (id !== url) return { ok: false, why: 'the client metadata document names another client_id than its own URL' };
    // A document is public (its URL is its id): a shared secret in it is no secret, and the board takes none (`none`).
    if (sharesASecret(fetched.body)) return { ok: false, why: 'the client metadata document carries a client secret or a secret-based token_endpoint_auth_method; a document client is public (none)' };
    const bad = parsed.data.redirect_uris.find((uri) => redirectUriMistake(uri) !== undefined);
    if (bad !== undefined || parsed.data.redirect_uris.length === 0) return { ok: false, why: 'the client metadata document lists no redirect_uris the board accepts' };
    const client: OAuthClient = { clientId: url, clientName: parsed.data.client_name ?? null, redirectUris: parsed.data.redirect_uris };
    if (this.documents.size >= CACHE_LIMIT) this.documents.clear();
    this.documents.set(url, { client, until: Date.now() + DOCUMENT_TTL_MS });
    return { ok: true, client };
  }
}

/** A client_secret, its expiry, or an auth method built on a shared secret (client_secret_basic, _post, _jwt). */
function sharesASecret(body: unknown): boolean {
  const doc = body as { client_secret?: unknown; client_secret_expires_at?: unknown; token_endpoint_auth_method?: unknown } | null;
  if (doc === null || typeof doc !== 'object') return false;
  const method = doc.token_endpoint_auth_method;
  return doc.client_secret !== undefined || doc.client_secret_expires_at !== undefined || (typeof method === 'string' && method.startsWith('client_secret'));
}
