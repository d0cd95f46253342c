// The OAuth rules that decide without I/O (issue 34): the judge of an authorization request, what a person may grant,
// redirect URIs a client may register, and the PKCE S256 check (against RFC 7636's own example).
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { judgeAuthorize, redirectUriMatches, redirectWith } from '../../daemon/src/oauth/authorize-request.js';
import { redirectUriMistake } from '../../daemon/src/oauth/clients.js';
import { grantableAgents, newAgentRoles } from '../../daemon/src/oauth/grant-roles.js';
import { verifierMatches } from '../../daemon/src/oauth/secrets.js';

const RESOURCE = 'https://board.example/p/web/mcp';
const client = { ok: true as const, client: { clientId: 'https://app.example/client.json', clientName: 'App', redirectUris: ['https://app.example/cb', 'http://127.0.0.1:7777/callback'] } };
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const good = { response_type: 'code', client_id: client.client.clientId, redirect_uri: 'https://app.example/cb', code_challenge: CHALLENGE, code_challenge_method: 'S256', state: 's1', resource: RESOURCE };

describe('judging an authorization request', () => {
  it('accepts a complete request', () => {
    expect(judgeAuthorize(good, client, RESOURCE)).toMatchObject({ kind: 'ok', request: { redirectUri: 'https://app.example/cb', codeChallenge: CHALLENGE, state: 's1' } });
  });

  it('never sends the browser to a redirect URI that differs from a registered https one in any way', () => {
    fc.assert(
      fc.property(fc.constant('https://app.example/cb'), fc.string({ minLength: 1, maxLength: 3 }), fc.nat(), (uri, extra, at) => {
        const i = at % (uri.length + 1);
        const changed = uri.slice(0, i) + extra + uri.slice(i);
        fc.pre(!client.client.redirectUris.includes(changed));
        expect(judgeAuthorize({ ...good, redirect_uri: changed }, client, RESOURCE).kind).toBe('page');
      }),
    );
    for (const near of ['https://app.example/cb/', 'https://app.example:443/cb', 'https://app.example:8443/cb', 'https://app.example/cb2', 'https://app.example/CB', 'http://127.0.0.1:7777/callback/', 'http://localhost:7777/callback', 'http://127.0.0.1:7777/callbacks', 'http://127.0.0.1:7777/callback?x=1']) {
      expect(judgeAuthorize({ ...good, redirect_uri: near }, client, RESOURCE).kind, near).toBe('page');
    }
  });

  it('lets only the port of a loopback http redirect vary (RFC 8252 section 7.3)', () => {
    for (const port of ['', ':1', ':38983', ':65535']) {
      expect(judgeAuthorize({ ...good, redirect_uri: `http://127.0.0.1${port}/callback` }, client, RESOURCE).kind, port).toBe('ok');
    }
    expect(redirectUriMatches('http://localhost/callback', 'http://localhost:33418/callback')).toBe(true);
    expect(redirectUriMatches('http://[::1]:1/cb', 'http://[::1]:2/cb')).toBe(true);
    expect(redirectUriMatches('http://127.0.0.1/callback', 'http://localhost:5/callback')).toBe(false);
    expect(redirectUriMatches('https://127.0.0.1/callback', 'https://127.0.0.1:5/callback')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1/callback', 'http://127.0.0.1:5/callback#x')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1/callback', 'http://127.0.0.1.evil.example/callback')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1/callback', 'http://127.0.0.1:5@evil.example/callback')).toBe(false);
  });

  it('shows a missing or unknown client on the page, and sends later mistakes back with their OAuth error', () => {
    expect(judgeAuthorize({ ...good, client_id: undefined }, undefined, RESOURCE).kind).toBe('page');
    expect(judgeAuthorize(good, { ok: false, why: 'unknown' }, RESOURCE).kind).toBe('page');
    const back = (params: Record<string, string | undefined>) => judgeAuthorize({ ...good, ...params }, client, RESOURCE);
    expect(back({ code_challenge_method: undefined })).toMatchObject({ kind: 'redirect', error: 'invalid_request', state: 's1' });
    expect(back({ code_challenge_method: 'plain' })).toMatchObject({ kind: 'redirect', error: 'invalid_request' });
    expect(back({ code_challenge: undefined })).toMatchObject({ kind: 'redirect', error: 'invalid_request' });
    expect(back({ code_challenge: 'short' })).toMatchObject({ kind: 'redirect', error: 'invalid_request' });
    expect(back({ response_type: 'token' })).toMatchObject({ kind: 'redirect', error: 'unsupported_response_type' });
    expect(back({ resource: undefined })).toMatchObject({ kind: 'redirect', error: 'invalid_target' });
    expect(back({ resource: 'https://board.example/p/other/mcp' })).toMatchObject({ kind: 'redirect', error: 'invalid_target' });
    expect(back({ scope: 'board admin' })).toMatchObject({ kind: 'redirect', error: 'invalid_scope' });
    expect(back({ state: 'x'.repeat(1025) })).toMatchObject({ kind: 'redirect', error: 'invalid_request' });
  });

  it('adds the answer to the redirect URI, keeping its own query', () => {
    expect(redirectWith('https://app.example/cb?keep=1', { code: 'c', state: undefined, iss: 'https://board.example/p/web' })).toBe('https://app.example/cb?keep=1&code=c&iss=https%3A%2F%2Fboard.example%2Fp%2Fweb');
  });
});

describe('what a person may grant', () => {
  const agents = [
    { name: 'lead', role: 'leader' as const, skills: [] },
    { name: 'w1', role: 'worker' as const, skills: [] },
    { name: 'o1', role: 'observer' as const, skills: [] },
  ];
  it('an owner: any agent, and new workers and observers (a leader only where there is none)', () => {
    expect(grantableAgents('owner', agents).map((a) => a.name)).toEqual(['lead', 'w1', 'o1']);
    expect(newAgentRoles('owner', 'role', agents)).toEqual(['worker', 'observer']);
    expect(newAgentRoles('owner', 'role', agents.slice(1))).toEqual(['worker', 'leader', 'observer']);
    expect(newAgentRoles('owner', 'peer', [])).toEqual(['peer', 'observer']);
  });
  it('an observer: observers only', () => {
    expect(grantableAgents('observer', agents).map((a) => a.name)).toEqual(['o1']);
    expect(newAgentRoles('observer', 'role', [])).toEqual(['observer']);
  });
});

describe('redirect URIs a client may register', () => {
  it('https, http to loopback, and an app scheme; never http elsewhere, script schemes or fragments', () => {
    for (const ok of ['https://claude.ai/api/mcp/auth_callback', 'http://127.0.0.1:33418/callback', 'http://localhost:1455/auth/callback', 'cursor://anysphere.cursor-retrieval/oauth/callback']) expect(redirectUriMistake(ok), ok).toBeUndefined();
    for (const bad of ['http://app.example/cb', 'javascript:alert(1)', 'data:text/html,x', 'https://app.example/cb#frag', 'not a url']) expect(redirectUriMistake(bad), bad).toBeDefined();
  });
});

describe('PKCE S256', () => {
  it("matches RFC 7636 appendix B's verifier and challenge, and nothing else", () => {
    expect(verifierMatches(VERIFIER, CHALLENGE)).toBe(true);
    expect(verifierMatches(`${VERIFIER.slice(0, -1)}B`, CHALLENGE)).toBe(false);
    expect(verifierMatches(CHALLENGE, CHALLENGE)).toBe(false);
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9\-._~]{43,128}$/), (verifier) => {
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        expect(verifierMatches(verifier, challenge)).toBe(true);
        expect(verifierMatches(verifier, challenge.replace(/^./, (ch) => (ch === 'A' ? 'B' : 'A')))).toBe(false);
      }),
    );
  });
});
