// OAuth grants on PostgreSQL (store/oauth-port.ts): a code or refresh token is read FOR UPDATE inside the transaction
// that takes it, so of several daemons presented the same one at once, exactly one takes it.
import type { CodeCheck, CodeRedemption, GrantRow, IssuedTokens, NewCode, OAuthStore, RefreshOutcome, RegisteredClient } from '../oauth-port.js';
import { GRANT_COLUMNS, grantParams, toClient, toGrant, type ClientDbRow, type GrantDbRow } from '../oauth-rows.js';
import { transaction, type Sql, type Tx } from './connection.js';

type CodeRow = GrantDbRow & { used_at: string | null; expires_at: string; code_redirect_uri: string; code_challenge: string };
type TokenRow = GrantDbRow & { kind: string; expires_at: string; rotated_at: string | null };

async function revoke(tx: Tx, id: string, at: string, why: string): Promise<boolean> {
  const changed = (await tx`UPDATE oauth_grants SET revoked_at = ${at}, revoked_why = ${why} WHERE id = ${id} AND revoked_at IS NULL`).count > 0;
  await tx`DELETE FROM oauth_tokens WHERE grant_id = ${id}`;
  return changed;
}

async function store(tx: Tx, grantId: string, t: IssuedTokens): Promise<void> {
  await tx`INSERT INTO oauth_tokens (token_sha256, grant_id, kind, expires_at)
           VALUES (${t.accessSha256}, ${grantId}, 'access', ${t.accessExpiresAt}), (${t.refreshSha256}, ${grantId}, 'refresh', ${t.refreshExpiresAt})`;
}

export function postgresOAuth(sql: Sql): OAuthStore {
  return {
    async registerClient(c: RegisteredClient) {
      await sql`INSERT INTO oauth_clients (client_id, client_name, redirect_uris, created_at) VALUES (${c.clientId}, ${c.clientName}, ${JSON.stringify(c.redirectUris)}, ${c.createdAt})`;
    },
    async findClient(id) {
      const [row] = await sql`SELECT * FROM oauth_clients WHERE client_id = ${id}`;
      return row ? toClient(row as unknown as ClientDbRow) : undefined;
    },
    createGrant: (g: GrantRow, code: NewCode) =>
      transaction(sql, async (tx) => {
        const p = grantParams(g);
        await tx`INSERT INTO oauth_grants (id, client_id, client_name, redirect_uri, resource, agent, agent_token_sha256, granted_by, created_at)
                 VALUES (${p.id}, ${p.client_id}, ${p.client_name}, ${p.redirect_uri}, ${p.resource}, ${p.agent}, ${p.agent_token_sha256}, ${p.granted_by}, ${p.created_at})`;
        await tx`INSERT INTO oauth_codes (code_sha256, grant_id, redirect_uri, code_challenge, expires_at) VALUES (${code.codeSha256}, ${g.id}, ${code.redirectUri}, ${code.codeChallenge}, ${code.expiresAt})`;
      }),
    redeemCode: (hash: string, now: string, check: CodeCheck, tokens: IssuedTokens) =>
      transaction(sql, async (tx): Promise<CodeRedemption | { outcome: 'refused' }> => {
        const [found] = await tx.unsafe(
          `SELECT c.used_at, c.expires_at, c.redirect_uri AS code_redirect_uri, c.code_challenge, ${GRANT_COLUMNS}
             FROM oauth_codes c JOIN oauth_grants g ON g.id = c.grant_id WHERE c.code_sha256 = $1 FOR UPDATE OF c`,
          [hash],
        );
        const row = found as unknown as CodeRow | undefined;
        if (!row || row.revoked_at !== null) return { outcome: 'unknown' };
        if (row.used_at !== null) {
          await revoke(tx, row.id, now, 'code_reused');
          return { outcome: 'reused' };
        }
        if (row.expires_at <= now) return { outcome: 'unknown' };
        const taken = { grant: toGrant(row), redirectUri: row.code_redirect_uri, codeChallenge: row.code_challenge };
        if (!check(taken)) return { outcome: 'refused' };
        await tx`UPDATE oauth_codes SET used_at = ${now} WHERE code_sha256 = ${hash}`;
        await store(tx, row.id, tokens);
        return { outcome: 'redeemed', ...taken };
      }),
    refresh: (hash: string, clientId: string, now: string, next: IssuedTokens) =>
      transaction(sql, async (tx): Promise<RefreshOutcome> => {
        const [found] = await tx.unsafe(
          `SELECT t.kind, t.expires_at, t.rotated_at, ${GRANT_COLUMNS}
             FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id WHERE t.token_sha256 = $1 FOR UPDATE OF t`,
          [hash],
        );
        const row = found as unknown as TokenRow | undefined;
        if (!row || row.kind !== 'refresh' || row.revoked_at !== null || row.client_id !== clientId) return { outcome: 'unknown' };
        if (row.rotated_at !== null) {
          await revoke(tx, row.id, now, 'refresh_reused');
          return { outcome: 'reused' };
        }
        if (row.expires_at <= now) return { outcome: 'unknown' };
        await tx`UPDATE oauth_tokens SET rotated_at = ${now} WHERE token_sha256 = ${hash}`;
        await store(tx, row.id, next);
        return { outcome: 'rotated', grant: toGrant(row) };
      }),
    async findAccess(hash, now) {
      const [found] = await sql.unsafe(
        `SELECT t.kind, t.expires_at, t.rotated_at, ${GRANT_COLUMNS} FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id
          WHERE t.token_sha256 = $1 AND t.kind = 'access' AND g.revoked_at IS NULL AND t.expires_at > $2`,
        [hash, now],
      );
      return found ? toGrant(found as unknown as TokenRow) : undefined;
    },
    async touch(id, at) {
      await sql`UPDATE oauth_grants SET last_used_at = ${at} WHERE id = ${id}`;
    },
    revokeGrant: (id, at, why) => transaction(sql, (tx) => revoke(tx, id, at, why)),
    async listGrants() {
      const rows = await sql.unsafe(`SELECT ${GRANT_COLUMNS} FROM oauth_grants g WHERE g.revoked_at IS NULL ORDER BY g.created_at DESC, g.id`);
      return (rows as unknown as GrantDbRow[]).map(toGrant);
    },
  };
}
