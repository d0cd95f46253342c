// OAuth 2.1 grants as both stores keep them (issue 34): registered clients, the grants a person consented to, their
// codes and tokens (hashes only). The rules (what a code or token must match) are decided in oauth/; the store only
// makes each step atomic, so a code is redeemed once and a refresh token rotated once, on every daemon.

/** A client registered by dynamic client registration (RFC 7591). Clients known by a metadata document are not stored. */
export interface RegisteredClient {
  readonly clientId: string;
  readonly clientName: string | null;
  readonly redirectUris: readonly string[];
  readonly createdAt: string;
}

/** What a person granted: one app (client) acting as one agent, for one resource (the project's MCP URL). */
export interface GrantRow {
  readonly id: string;
  readonly clientId: string;
  readonly clientName: string | null;
  readonly redirectUri: string;
  readonly resource: string;
  readonly agent: string;
  /** The agent's token hash when granted: another one now means the agent was rotated or removed and re-added. */
  readonly agentTokenSha256: string;
  readonly grantedBy: string;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  readonly revokedAt: string | null;
}

export interface NewCode {
  readonly codeSha256: string;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly expiresAt: string;
}

export interface IssuedTokens {
  readonly accessSha256: string;
  readonly accessExpiresAt: string;
  readonly refreshSha256: string;
  readonly refreshExpiresAt: string;
}

/** A code presented at the token endpoint: taken now (and its tokens stored), or why not. */
export type CodeRedemption =
  | { readonly outcome: 'redeemed'; readonly grant: GrantRow; readonly redirectUri: string; readonly codeChallenge: string }
  /** Presented before: the grant it made has been revoked (RFC 9700 section 4.2.4). */
  | { readonly outcome: 'reused' }
  | { readonly outcome: 'unknown' };

/** Checks a code's binding (client, redirect URI, verifier) inside the redemption: false takes nothing. */
export type CodeCheck = (found: { readonly grant: GrantRow; readonly redirectUri: string; readonly codeChallenge: string }) => boolean;

export type RefreshOutcome =
  | { readonly outcome: 'rotated'; readonly grant: GrantRow }
  /** Used before: the whole grant has been revoked (RFC 9700 section 4.14.2). */
  | { readonly outcome: 'reused' }
  | { readonly outcome: 'unknown' };

export interface OAuthStore {
  registerClient(client: RegisteredClient): Promise<void>;
  findClient(clientId: string): Promise<RegisteredClient | undefined>;
  /** Records a person's consent and the code that carries it, in one transaction. */
  createGrant(grant: GrantRow, code: NewCode): Promise<void>;
  /**
   * Takes the code if it is unused, unexpired and `check` accepts it, and stores the tokens, in one transaction; a code
   * taken before revokes its grant. A refused check leaves the code as it was (so a wrong verifier costs the thief only).
   */
  redeemCode(codeSha256: string, now: string, check: CodeCheck, tokens: IssuedTokens): Promise<CodeRedemption | { readonly outcome: 'refused' }>;
  /** Rotates an unexpired refresh token of a live grant owned by `clientId` into `next`; a rotated one presented again revokes the grant. */
  refresh(refreshSha256: string, clientId: string, now: string, next: IssuedTokens): Promise<RefreshOutcome>;
  /** The live grant an unexpired access token belongs to. */
  findAccess(accessSha256: string, now: string): Promise<GrantRow | undefined>;
  /** Marks when a grant was last used (callers throttle it). */
  touch(grantId: string, at: string): Promise<void>;
  /** Ends a grant and every token of it; false when there is no live grant by that id. */
  revokeGrant(grantId: string, at: string, why: string): Promise<boolean>;
  /** Every grant not revoked, newest first. */
  listGrants(): Promise<GrantRow[]>;
}
