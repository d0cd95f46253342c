// An owner's page actions over HTTP, on both stores: POST /actions/{tool} runs the tool through the board's dispatcher
// (same rules, rate limit, idempotency, one audit row with face 'web', a history row naming the owner), and is refused
// with 403, changing nothing, without the board's Origin, from another site or port, or without the session's CSRF
// token; only an owner's session acts; a rotated owner token ends its sessions at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, daemonEnv, runCli, startBoard, type AgentSpec, type TestBoard } from '../helpers/board.js';
import { openBoardDb, type BoardDb } from '../helpers/board-db.js';
import { eventually } from '../helpers/eventually.js';
import { freePort } from '../helpers/net.js';
import { pageAction, signInPage, type PageSession } from '../helpers/page-session.js';
import { describeEachStore } from '../helpers/stores.js';

const AGENTS: AgentSpec[] = [
  { name: 'lead', role: 'leader' },
  { name: 'alice', role: 'owner' },
  { name: 'w1', role: 'worker', skills: ['python'] },
  { name: 'obs', role: 'observer' },
];

describeEachStore((store) => {
  let board: TestBoard;
  let db: BoardDb;
  let owner: PageSession;

  beforeAll(async () => {
    board = await startBoard({ store, agents: AGENTS });
    db = openBoardDb(board);
    owner = await signInPage(board, 'alice');
  });
  afterAll(async () => {
    await db?.close();
    await board?.stop();
  });

  const auditRows = (where: string) => db.rows<{ agent: string; tool: string; task_id: number | null; outcome: string; face: string | null }>(
    `SELECT agent, tool, task_id, outcome, face FROM audit_log WHERE ${where} ORDER BY id`,
  );

  it("an owner's session is told it acts and gets a CSRF token; an observer's is told it does not", async () => {
    expect(owner.me).toEqual({ name: 'alice', role: 'owner', acts: true });
    expect(owner.csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const observer = await signInPage(board, 'obs');
    expect(observer.me).toEqual({ name: 'obs', role: 'observer', acts: false });
    // Per session: two sessions of one owner have different tokens, and neither is the cookie.
    const again = await signInPage(board, 'alice');
    expect(again.csrf).not.toBe(owner.csrf);
    expect(owner.csrf).not.toBe(owner.cookie);
  });

  it('a page action runs the tool: the answer is the tool\'s, the history names the owner, and one audit row says web', async () => {
    const created = await pageAction(board, owner, 'create_task', { title: 'from the page', required_skills: ['python'], priority: 'high' });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const id = created.body.task.id as number;
    expect(created.body).toMatchObject({ task: { id, title: 'from the page', created_by: 'alice', priority: 'high' }, untrusted_content_warning: expect.any(String) });
    // The same board through the JSON API.
    const detail = (await api(board, 'lead', 'get_task', { task_id: id })).body;
    expect(detail.history.map((h: { action: string; agent: string }) => `${h.action}:${h.agent}`)).toEqual(['created:alice']);
    expect(await auditRows(`task_id = ${id} AND agent = 'alice'`)).toEqual([{ agent: 'alice', tool: 'create_task', task_id: id, outcome: 'ok', face: 'web' }]);

    const posted = await pageAction(board, owner, 'post', { to: 'w1', text: 'hello from the page' });
    expect(posted.status).toBe(200);
    expect(posted.body.recipients).toEqual(['w1']);
    // A refusal by the rules is the tool's refusal, with its audit row.
    const refused = await pageAction(board, owner, 'review_task', { task_id: id, verdict: 'approve' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('conflict');
    await eventually('the refusal\'s audit row', async () => (await auditRows(`task_id = ${id} AND outcome = 'conflict'`)).length === 1);
    expect(await auditRows(`task_id = ${id} AND outcome = 'conflict'`)).toEqual([{ agent: 'alice', tool: 'review_task', task_id: id, outcome: 'conflict', face: 'web' }]);
  });

  it("a junk rt_session planted by another port (sent first, as for Path=/actions) does not sign the owner out of acting (issue 31, item 9)", async () => {
    // 43 characters of the id's alphabet, as a real id is: the planted cookie is looked up and found to be no session.
    const junk = 'J'.repeat(43);
    for (const cookie of [`rt_session=${junk}; rt_session=${owner.cookie}`, `rt_session=nonsense; __Host-rt_session=${junk}; rt_session=${owner.cookie}`]) {
      const acted = await pageAction(board, owner, 'create_task', { title: 'acted past a planted cookie' }, { headers: { cookie } });
      expect(acted.status, JSON.stringify(acted.body)).toBe(200);
      const state = await fetch(`${board.url}/view/state`, { headers: { cookie } });
      expect(state.status).toBe(200);
    }
    // Junk alone is no session.
    expect((await pageAction(board, owner, 'create_task', { title: 'refused' }, { headers: { cookie: `rt_session=${junk}` } })).status).toBe(401);
    // Signing out with the junk first ends the owner's live session, not the junk.
    const other = await signInPage(board, 'alice');
    const out = await fetch(`${board.url}/session/logout`, { method: 'POST', headers: { origin: board.url, cookie: `rt_session=${junk}; rt_session=${other.cookie}` } });
    expect(out.status).toBe(200);
    expect((await fetch(`${board.url}/view/state`, { headers: { cookie: `rt_session=${other.cookie}` } })).status).toBe(401);
    expect((await fetch(`${board.url}/view/state`, { headers: { cookie: `rt_session=${owner.cookie}` } })).status).toBe(200);
  });

  it('a retried action with the same Idempotency-Key is applied once', async () => {
    const headers = { 'idempotency-key': `web-test-${Date.now()}` };
    const first = await pageAction(board, owner, 'create_task', { title: 'once only' }, { headers });
    const second = await pageAction(board, owner, 'create_task', { title: 'once only' }, { headers });
    expect(first.status).toBe(200);
    expect(second.body).toEqual(first.body);
    const titles = (await api(board, 'lead', 'list_tasks', { limit: 100 })).body.tasks.filter((t: { title: string }) => t.title === 'once only');
    expect(titles).toHaveLength(1);
  });

  describe('refused with 403, changing nothing', () => {
    const otherPort = async () => `http://127.0.0.1:${await freePort()}`;
    const cases: Array<[string, () => Promise<Parameters<typeof pageAction>[4]>]> = [
      ['without an Origin', async () => ({ origin: null })],
      ['from another origin', async () => ({ origin: 'http://evil.example' })],
      ['from another port of this host (the same site, so the cookie comes along)', async () => ({ origin: await otherPort() })],
      ['from another localhost name and port', async () => ({ origin: `http://localhost:${await freePort()}` })],
      ['marked cross-site by the browser', async () => ({ headers: { 'sec-fetch-site': 'same-site' } })],
      ['without the CSRF token', async () => ({ csrf: null })],
      ['with a wrong CSRF token', async () => ({ csrf: 'A'.repeat(43) })],
      ['as a plain HTML form (which cannot carry the token)', async () => ({ csrf: null, contentType: 'application/x-www-form-urlencoded', body: 'title=forged' })],
    ];

    it.each(cases)('%s', async (what, options) => {
      const before = await db.snapshot();
      const title = `forged ${what}`;
      const answer = await pageAction(board, owner, 'create_task', { title }, await options());
      expect(answer.status).toBe(403);
      expect(answer.body.error.code).toBe('forbidden');
      expect(await db.snapshot()).toEqual(before);
      expect((await api(board, 'lead', 'list_tasks', { limit: 100 })).body.tasks.map((t: { title: string }) => t.title)).not.toContain(title);
    });

    it("with another session's CSRF token", async () => {
      const other = await signInPage(board, 'alice');
      const before = await db.snapshot();
      const answer = await pageAction(board, { cookie: owner.cookie, csrf: other.csrf }, 'create_task', { title: 'forged' });
      expect(answer.status).toBe(403);
      expect(await db.snapshot()).toEqual(before);
    });

    it("an observer's, a worker's or the leader's session: the page's actions are for owners (an audit row says so)", async () => {
      for (const agent of ['obs', 'w1', 'lead']) {
        const session = await signInPage(board, agent);
        expect(session.me.acts).toBe(false);
        const before = await db.snapshot();
        const answer = await pageAction(board, session, 'post', { to: 'all', text: `${agent} via the page` });
        expect(answer.status, agent).toBe(403);
        expect(answer.body.error.message).toContain("the board page's actions are for owners");
        expect(await db.snapshot()).toEqual(before);
        await eventually(`${agent}'s refused action in the audit log`, async () => (await auditRows(`agent = '${agent}' AND face = 'web'`)).length === 1);
        expect(await auditRows(`agent = '${agent}' AND face = 'web'`)).toEqual([{ agent, tool: 'post', task_id: null, outcome: 'forbidden', face: 'web' }]);
      }
    });
  });

  it('without a session: 401; an action the page does not offer: 404', async () => {
    const noSession = await pageAction(board, { cookie: 'B'.repeat(43), csrf: owner.csrf }, 'create_task', { title: 'x' });
    expect(noSession.status).toBe(401);
    for (const tool of ['claim_task', 'submit_result', 'reserve_paths', 'read_log', 'nonsense']) {
      const answer = await pageAction(board, owner, tool, { task_id: 1 });
      expect(answer.status, tool).toBe(404);
    }
  });

  it('page actions share the tool-call rate limit of their agent: past it, 429 with Retry-After, and nothing applied', async () => {
    const limited = await startBoard({ store, agents: AGENTS, env: { ROUNDTABLE_RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      const session = await signInPage(limited, 'alice');
      // One tool call through the API and two page actions use the minute's three.
      expect((await api(limited, 'alice', 'whoami')).status).toBe(200);
      expect((await pageAction(limited, session, 'create_task', { title: 'one' })).status).toBe(200);
      expect((await pageAction(limited, session, 'create_task', { title: 'two' })).status).toBe(200);
      const over = await pageAction(limited, session, 'create_task', { title: 'three' });
      expect(over.status).toBe(429);
      expect(over.body.error.code).toBe('rate_limited');
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await api(limited, 'lead', 'list_tasks')).body.tasks.map((t: { title: string }) => t.title)).toEqual(['one', 'two']);
    } finally {
      await limited.stop();
    }
  });

  it("a rotated owner token ends the owner's page sessions at once: the next action is 401 and applies nothing", async () => {
    const session = await signInPage(board, 'alice');
    expect((await pageAction(board, session, 'post', { to: 'all', text: 'before the rotation' })).status).toBe(200);
    const env = daemonEnv(board.dir, board.databaseUrl ? { ROUNDTABLE_DATABASE_URL: board.databaseUrl } : {});
    const rotated = await runCli(['agents', 'rotate', 'alice', '--json'], env);
    expect(rotated.code, rotated.stderr).toBe(0);
    const fresh = (JSON.parse(rotated.stdout) as { token: string }).token;
    await eventually('the new token to be in force', async () => (await api(board, fresh, 'whoami')).status === 200);
    const after = await pageAction(board, session, 'post', { to: 'all', text: 'after the rotation' });
    expect(after.status).toBe(401);
    const texts = (await api(board, 'obs', 'read_log', { limit: 100 })).body.messages.map((m: { text: string }) => m.text);
    expect(texts).toContain('before the rotation');
    expect(texts).not.toContain('after the rotation');
    // The other test sessions of alice ended too; sign in again with the new token for any test after this one.
    board.tokens['alice'] = fresh;
    owner = await signInPage(board, 'alice');
    expect((await pageAction(board, owner, 'post', { to: 'all', text: 'with the new token' })).status).toBe(200);
  });
});
