// OAuth grants on SQLite (store/oauth-port.ts): every step one transaction through the store's group commit, so a
// code or a refresh token is taken once and what was acknowledged is durable. Access tokens are looked up on every
// call; the rows found are kept in memory until anything changes the OAuth tables here or any other process commits to
// the file (`PRAGMA data_version`, read on each lookup: `roundtable apps revoke` from the CLI is seen on the next call).
import type Database from 'better-sqlite3';
import type { CodeCheck, CodeRedemption, GrantRow, IssuedTokens, NewCode, OAuthStore, RefreshOutcome, RegisteredClient } from '../oauth-port.js';
import { GRANT_COLUMNS, grantParams, toClient, toGrant, type ClientDbRow, type GrantDbRow } from '../oauth-rows.js';

type Write = <T>(work: () => T) => Promise<T>;
type CodeRow = GrantDbRow & { used_at: string | null; expires_at: string; code_redirect_uri: string; code_challenge: string };
type TokenRow = GrantDbRow & { kind: string; expires_at: string; rotated_at: string | null };

/** How many token rows are kept in memory at most (then the memory is emptied and refilled). */
const FOUND_LIMIT = 10_000;

export function sqliteOAuth(db: Database.Database, write: Write): OAuthStore {
  const stmt = {
    addClient: db.prepare('INSERT INTO oauth_clients (client_id, client_name, redirect_uris, created_at) VALUES (?, ?, ?, ?)'),
    client: db.prepare('SELECT * FROM oauth_clients WHERE client_id = ?'),
    addGrant: db.prepare(
      `INSERT INTO oauth_grants (id, client_id, client_name, redirect_uri, resource, agent, agent_token_sha256, granted_by, created_at)
       VALUES (@id, @client_id, @client_name, @redirect_uri, @resource, @agent, @agent_token_sha256, @granted_by, @created_at)`,
    ),
    addCode: db.prepare('INSERT INTO oauth_codes (code_sha256, grant_id, redirect_uri, code_challenge, expires_at) VALUES (?, ?, ?, ?, ?)'),
    code: db.prepare(`SELECT c.used_at, c.expires_at, c.redirect_uri AS code_redirect_uri, c.code_challenge, ${GRANT_COLUMNS} FROM oauth_codes c JOIN oauth_grants g ON g.id = c.grant_id WHERE c.code_sha256 = ?`),
    useCode: db.prepare('UPDATE oauth_codes SET used_at = ? WHERE code_sha256 = ? AND used_at IS NULL'),
    addToken: db.prepare('INSERT INTO oauth_tokens (token_sha256, grant_id, kind, expires_at) VALUES (?, ?, ?, ?)'),
    token: db.prepare(`SELECT t.kind, t.expires_at, t.rotated_at, ${GRANT_COLUMNS} FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id WHERE t.token_sha256 = ?`),
    rotate: db.prepare('UPDATE oauth_tokens SET rotated_at = ? WHERE token_sha256 = ? AND rotated_at IS NULL'),
    revoke: db.prepare('UPDATE oauth_grants SET revoked_at = ?, revoked_why = ? WHERE id = ? AND revoked_at IS NULL'),
    dropTokens: db.prepare('DELETE FROM oauth_tokens WHERE grant_id = ?'),
    touch: db.prepare('UPDATE oauth_grants SET last_used_at = ? WHERE id = ?'),
    list: db.prepare(`SELECT ${GRANT_COLUMNS} FROM oauth_grants g WHERE g.revoked_at IS NULL ORDER BY g.created_at DESC, g.id`),
  };
  // Token rows found, valid while this connection changed nothing of OAuth and no other connection committed.
  const found = new Map<string, TokenRow>();
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  let seenVersion: unknown;
  const forget = () => found.clear();
  const lookup = (hash: string): TokenRow | undefined => {
    const version = dataVersion.get();
    if (version !== seenVersion) {
      found.clear();
      seenVersion = version;
    }
    const known = found.get(hash);
    if (known) return known;
    const row = stmt.token.get(hash) as TokenRow | undefined;
    if (row) {
      if (found.size >= FOUND_LIMIT) found.clear();
      found.set(hash, row);
    }
    return row;
  };
  const revoke = (id: string, at: string, why: string): boolean => {
    forget();
    const changed = stmt.revoke.run(at, why, id).changes > 0;
    stmt.dropTokens.run(id);
    return changed;
  };
  const store = (grantId: string, t: IssuedTokens) => {
    stmt.addToken.run(t.accessSha256, grantId, 'access', t.accessExpiresAt);
    stmt.addToken.run(t.refreshSha256, grantId, 'refresh', t.refreshExpiresAt);
  };
  return {
    registerClient: (c: RegisteredClient) => write(() => void stmt.addClient.run(c.clientId, c.clientName, JSON.stringify(c.redirectUris), c.createdAt)),
    findClient: async (id) => {
      const row = stmt.client.get(id) as ClientDbRow | undefined;
      return row && toClient(row);
    },
    createGrant: (g: GrantRow, code: NewCode) =>
      write(() => {
        stmt.addGrant.run(grantParams(g));
        stmt.addCode.run(code.codeSha256, g.id, code.redirectUri, code.codeChallenge, code.expiresAt);
      }),
    redeemCode: (hash: string, now: string, check: CodeCheck, tokens: IssuedTokens) =>
      write((): CodeRedemption | { outcome: 'refused' } => {
        const row = stmt.code.get(hash) as CodeRow | undefined;
        if (!row || row.revoked_at !== null) return { outcome: 'unknown' };
        if (row.used_at !== null) {
          revoke(row.id, now, 'code_reused');
          return { outcome: 'reused' };
        }
        if (row.expires_at <= now) return { outcome: 'unknown' };
        const found = { grant: toGrant(row), redirectUri: row.code_redirect_uri, codeChallenge: row.code_challenge };
        if (!check(found)) return { outcome: 'refused' };
        stmt.useCode.run(now, hash);
        store(row.id, tokens);
        return { outcome: 'redeemed', ...found };
      }),
    refresh: (hash: string, clientId: string, now: string, next: IssuedTokens) =>
      write((): RefreshOutcome => {
        const row = stmt.token.get(hash) as TokenRow | undefined;
        if (!row || row.kind !== 'refresh' || row.revoked_at !== null || row.client_id !== clientId) return { outcome: 'unknown' };
        if (row.rotated_at !== null) {
          revoke(row.id, now, 'refresh_reused');
          return { outcome: 'reused' };
        }
        if (row.expires_at <= now) return { outcome: 'unknown' };
        forget();
        stmt.rotate.run(now, hash);
        store(row.id, next);
        return { outcome: 'rotated', grant: toGrant(row) };
      }),
    findAccess: async (hash, now) => {
      const row = lookup(hash);
      if (!row || row.kind !== 'access' || row.revoked_at !== null || row.expires_at <= now) return undefined;
      return toGrant(row);
    },
    touch: (id, at) => write(() => void stmt.touch.run(at, id)),
    revokeGrant: (id, at, why) => write(() => revoke(id, at, why)),
    listGrants: async () => (stmt.list.all() as GrantDbRow[]).map(toGrant),
  };
}
