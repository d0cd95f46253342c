// OAuth on several daemons of one PostgreSQL board (issue 34): a code issued by one daemon is redeemed at another, the
// token works on both, and revoking the grant (`roundtable apps revoke`) ends it on both from their next call. The
// grant lives in the project's schema, which every daemon reads on every call.
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonEnv, runCli, startBoard, token, type TestBoard } from '../helpers/board.js';
import { codeOverHttp } from '../helpers/oauth.js';
import { PG_SKIP_REASON } from '../helpers/postgres.js';

/** Both daemons serve one public address, as behind one reverse proxy: it names the resource the tokens are for. */
const PUBLIC_URL = 'https://board.example';
const sha = (value: string) => createHash('sha256').update(value).digest('hex');

describe.skipIf(PG_SKIP_REASON !== undefined)('OAuth on two daemons of one PostgreSQL board', () => {
  let a: TestBoard;
  let b: TestBoard;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rt-oauth-pg-'));
    const tokens = { 'web-lead': token(), olive: token() };
    writeFileSync(
      join(dir, 'agents.json'),
      JSON.stringify({
        projects: [
          { slug: 'default', mode: 'role', agents: [] },
          { slug: 'web', mode: 'role', agents: [{ name: 'web-lead', role: 'leader', skills: [], token_sha256: sha(tokens['web-lead']) }] },
        ],
        people: [{ name: 'olive', token_sha256: sha(tokens.olive), grants: { web: 'owner' } }],
      }),
      { mode: 0o600 },
    );
    a = await startBoard({ store: 'postgres', dir, tokens, env: { ROUNDTABLE_OAUTH_REGISTRATION: '1', ROUNDTABLE_PUBLIC_URL: PUBLIC_URL } });
    b = await startBoard({ store: 'postgres', databaseUrl: a.databaseUrl, dir: mkdtempSync(join(tmpdir(), 'rt-oauth-pg-b-')), tokens, env: { ROUNDTABLE_OAUTH_REGISTRATION: '1', ROUNDTABLE_PUBLIC_URL: PUBLIC_URL } });
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  /** whoami over MCP on one daemon. */
  const whoami = (board: TestBoard, access: string) =>
    fetch(`${board.url}/p/web/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${access}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
    });

  it('a code from daemon A is redeemed at daemon B; revoking ends the token on both', async () => {
    const c = await codeOverHttp(a.url, 'web', a.tokens['olive']!, 'web-lead', PUBLIC_URL);
    const redeemed = await fetch(`${b.url}/p/web/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: c.code, code_verifier: c.verifier, client_id: c.clientId, redirect_uri: c.redirectUri }),
    });
    expect(redeemed.status, await redeemed.clone().text()).toBe(200);
    const { access_token: access } = (await redeemed.json()) as { access_token: string };
    for (const board of [a, b]) expect((await whoami(board, access)).status).toBe(200);

    const env = daemonEnv(a.dir, { ROUNDTABLE_DATABASE_URL: a.databaseUrl! });
    const listed = JSON.parse((await runCli(['apps', 'list', '--project', 'web', '--json'], env)).stdout) as { apps: Array<{ id: string; agent: string }> };
    expect(listed.apps).toHaveLength(1);
    expect((await runCli(['apps', 'revoke', listed.apps[0]!.id, '--project', 'web'], env)).code).toBe(0);
    for (const board of [a, b]) expect((await whoami(board, access)).status).toBe(401);
  });
});
