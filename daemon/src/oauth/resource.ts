// The resource server's side: an OAuth access token on a project's MCP URL names the agent it was granted as, if the
// token is live, was issued for exactly this URL (RFC 8707 audience), its grant stands, and the agent is still the one
// granted (not removed, not rotated). Checked in the store on every call, so revoking ends access at once everywhere.
import type { Catalog, Principal } from '../agents/catalog.js';
import { log } from '../runtime/log.js';
import type { OAuthStore } from '../store/oauth-port.js';
import { ACCESS_PREFIX, sha256Hex } from './secrets.js';

export const isAccessToken = (token: string): boolean => token.startsWith(ACCESS_PREFIX);

/** How often a grant's last_used_at is written, at most. */
const TOUCH_EVERY_MS = 60_000;

/** How many presented tokens keep their hash in memory (then the memory is emptied and refilled). */
const HASHES_KEPT = 10_000;

export class AccessTokens {
  private readonly touched = new Map<string, number>();
  /** Token -> its SHA-256, so a token presented again is not hashed again (as the agent directory keeps matched tokens). */
  private readonly hashes = new Map<string, string>();

  async principalOf(token: string, slug: string, resource: string, oauth: OAuthStore, catalog: Catalog): Promise<Principal | undefined> {
    const now = Date.now();
    const hash = this.hashes.get(token) ?? sha256Hex(token);
    const grant = await oauth.findAccess(hash, new Date(now).toISOString());
    if (!grant || grant.resource !== resource) return undefined;
    // Only a token that named a grant is kept, so a guessed one never lands here.
    if (!this.hashes.has(token)) {
      if (this.hashes.size >= HASHES_KEPT) this.hashes.clear();
      this.hashes.set(token, hash);
    }
    if (catalog.project(slug)?.directory.tokenHashOf(grant.agent) !== grant.agentTokenSha256) return undefined;
    if ((this.touched.get(grant.id) ?? 0) + TOUCH_EVERY_MS <= now) {
      if (this.touched.size > 10_000) this.touched.clear();
      this.touched.set(grant.id, now);
      oauth.touch(grant.id, new Date(now).toISOString()).catch((error: unknown) => log.warn('an app grant\'s last use could not be recorded', { error: error instanceof Error ? error.message : String(error) }));
    }
    return { kind: 'agent', name: grant.agent, project: slug };
  }
}
