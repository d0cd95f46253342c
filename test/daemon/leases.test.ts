// Claim leases end to end: expiry and its history row, renewal by calls and heartbeats, fencing with claim_id,
// the leader's forced release, racing claimants on a lapsed claim, and expiry across a restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, mcpClient, resultJson, startBoard, type TestBoard } from '../helpers/board.js';
import { openBoardDb } from '../helpers/board-db.js';
import { describeEachStore } from '../helpers/stores.js';
import { eventually } from '../helpers/eventually.js';

const TTL_S = 2;
let board: TestBoard;

async function newTask(): Promise<number> {
  const answer = await api(board, 'lead', 'create_task', { title: 'leased work' });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.task.id as number;
}

async function claim(agent: string, id: number): Promise<{ claim_id: number; lease_expires_at: string }> {
  const answer = await api(board, agent, 'claim_task', { task_id: id });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.task;
}

/** Reads a task as the leader, whose calls renew nothing the workers hold. */
async function taskOf(id: number) {
  return (await api(board, 'lead', 'get_task', { task_id: id })).body;
}

async function lapsed(id: number, withinMs = TTL_S * 1000 + 1000 + 4000): Promise<void> {
  await eventually(`task ${id} reopened`, async () => (await taskOf(id)).task.status === 'open', { timeoutMs: withinMs });
}

describeEachStore((store) => {
  beforeAll(async () => {
    board = await startBoard({ store, env: { ROUNDTABLE_LEASE_TTL: `${TTL_S}s` } });
  });
  afterAll(async () => {
    await board.stop();
  });

  describe('a claim is a lease', () => {
    it('claim_task shows a claim id and an expiry one TTL away; open tasks have neither', async () => {
      const id = await newTask();
      expect((await taskOf(id)).task).toMatchObject({ claim_id: null, lease_expires_at: null });
      const before = Date.now();
      const task = await claim('w1', id);
      expect(task.claim_id).toEqual(expect.any(Number));
      const left = Date.parse(task.lease_expires_at) - before;
      expect(left).toBeGreaterThan(TTL_S * 1000 - 500);
      expect(left).toBeLessThanOrEqual(TTL_S * 1000 + 500);
      // Submitted tasks carry no lease.
      const submitted = await api(board, 'w1', 'submit_result', { task_id: id, result: 'done', claim_id: task.claim_id });
      expect(submitted.body.task).toMatchObject({ status: 'submitted', claim_id: null, lease_expires_at: null });
    });

    it('with no further calls, the claim lapses within TTL + 1 s, with a lease_expired row, and another worker can claim it', async () => {
      const id = await newTask();
      const held = await claim('w1', id);
      await api(board, 'w1', 'post_message', { task_id: id, kind: 'progress', text: 'halfway there' });
      const claimedAt = Date.now();
      await lapsed(id);
      const reopenedAfter = Date.now() - claimedAt;
      expect(reopenedAfter).toBeLessThan(TTL_S * 1000 + 1000 + 2000); // TTL + 1 s, with slack for a loaded machine's polling
      const detail = await taskOf(id);
      expect(detail.task).toMatchObject({ status: 'open', assignee: null, claim_id: null, lease_expires_at: null });
      const expiry = detail.history.find((h: { action: string }) => h.action === 'lease_expired');
      expect(expiry).toMatchObject({ agent: 'roundtable', from_status: 'claimed', to_status: 'open', assignee: null, claim_id: held.claim_id });
      // Nothing the holder wrote is lost.
      expect(detail.messages.map((m: { text: string }) => m.text)).toEqual(['halfway there']);
      const again = await claim('w2', id);
      expect(again.claim_id).toBeGreaterThan(held.claim_id);
    });

    it('a holder calling whoami every second keeps its claim past 3x the TTL', async () => {
      const id = await newTask();
      const held = await claim('w2', id);
      const until = Date.now() + 3 * TTL_S * 1000 + 500;
      while (Date.now() < until) {
        await api(board, 'w2', 'whoami');
        await new Promise((r) => setTimeout(r, 500));
      }
      expect((await taskOf(id)).task).toMatchObject({ status: 'claimed', assignee: 'w2', claim_id: held.claim_id });
      await api(board, 'w2', 'release_task', { task_id: id, claim_id: held.claim_id });
    });

    it("a watcher's calls (roundtable-bridge wake) renew nothing: the claim of an agent whose app died still lapses", async () => {
      const id = await newTask();
      await claim('w3', id);
      const until = Date.now() + 2 * TTL_S * 1000;
      let watched = 0;
      while (Date.now() < until && (await taskOf(id)).task.status === 'claimed') {
        const response = await fetch(`${board.url}/api/v1/tools/wait_for_activity`, {
          method: 'POST',
          headers: { authorization: `Bearer ${board.tokens['w3']}`, 'content-type': 'application/json', 'roundtable-watcher': '1' },
          body: JSON.stringify({ timeout_s: 0 }),
        });
        expect(response.status).toBe(200);
        watched++;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(watched).toBeGreaterThan(0);
      await lapsed(id);
    });

    it('a heartbeat renews every lease the caller holds and says how often to beat; it is not a tool call', async () => {
      const id = await newTask();
      const held = await claim('w3', id);
      const db = openBoardDb(board);
      const auditRows = async () => Number((await db.rows<{ n: number }>("SELECT COUNT(*) AS n FROM audit_log WHERE agent = 'w3'"))[0]!.n);
      const rowsBefore = await auditRows();
      const until = Date.now() + 3 * TTL_S * 1000 + 500;
      let answer: any;
      while (Date.now() < until) {
        const response = await fetch(`${board.url}/api/v1/heartbeat`, { method: 'POST', headers: { authorization: `Bearer ${board.tokens['w3']}` } });
        expect(response.status).toBe(200);
        answer = await response.json();
        await new Promise((r) => setTimeout(r, 500));
      }
      expect(answer).toMatchObject({ lease_ttl_s: TTL_S, heartbeat_interval_s: TTL_S / 3, leases: [{ task_id: id, claim_id: held.claim_id }] });
      expect(Date.parse(answer.leases[0].lease_expires_at)).toBeGreaterThan(Date.now());
      expect((await taskOf(id)).task.status).toBe('claimed');
      expect(await auditRows()).toBe(rowsBefore);
      await db.close();
      const anonymous = await fetch(`${board.url}/api/v1/heartbeat`, { method: 'POST' });
      expect(anonymous.status).toBe(401);
      await api(board, 'w3', 'release_task', { task_id: id });
    });

    it('members shows what each member holds and until when; /status counts lapsed leases', async () => {
      const id = await newTask();
      const held = await claim('w1', id);
      const members = (await api(board, 'lead', 'members')).body.members as Array<{ name: string; holding: Array<Record<string, unknown>> }>;
      const holding = members.find((m) => m.name === 'w1')!.holding.find((h) => h['id'] === id)!;
      expect(holding).toMatchObject({ claim_id: held.claim_id, status: 'claimed' });
      // The claim call itself renews the caller's leases, so the expiry may have moved on a little since.
      expect(Date.parse(holding['lease_expires_at'] as string)).toBeGreaterThanOrEqual(Date.parse(held.lease_expires_at));
      await lapsed(id);
      const status = (await (await fetch(`${board.url}/status`)).json()) as { leases_expired_last_hour: number };
      expect(status.leases_expired_last_hour).toBeGreaterThanOrEqual(1);
    });
  });

  describe('fencing with claim_id', () => {
    it('a lapsed claim id is refused with when it lapsed and what the task is now; the new one is accepted', async () => {
      const id = await newTask();
      const first = await claim('w1', id);
      await lapsed(id);
      const second = await claim('w1', id);
      const stale = await api(board, 'w1', 'submit_result', { task_id: id, result: 'late work', claim_id: first.claim_id });
      expect(stale.status).toBe(409);
      expect(stale.body.error!.code).toBe('conflict');
      expect(stale.body.error!.message).toMatch(new RegExp(`claim ${first.claim_id} on task ${id} lapsed at \\d{4}-\\d\\d-\\d\\dT`));
      expect(stale.body.error!.message).toContain(`The task is now claimed (claimed by w1, claim ${second.claim_id})`);
      // Refused means unchanged.
      expect((await taskOf(id)).task).toMatchObject({ status: 'claimed', claim_id: second.claim_id, result: null });
      for (const [tool, args] of [
        ['post_message', { kind: 'progress', text: 'from the past' }],
        ['release_task', {}],
      ] as const) {
        const refused = await api(board, 'w1', tool, { task_id: id, claim_id: first.claim_id, ...args });
        expect(refused.status, tool).toBe(409);
        expect(refused.body.error!.message, tool).toContain('lapsed at');
      }
      const accepted = await api(board, 'w1', 'submit_result', { task_id: id, result: 'fresh work', claim_id: second.claim_id });
      expect(accepted.status).toBe(200);
      expect(accepted.body.task.status).toBe('submitted');
    });

    it('a former holder whose claim lapsed and was taken by another is refused, with the same explanation, without a claim id', async () => {
      const id = await newTask();
      await claim('w1', id);
      await lapsed(id);
      await claim('w2', id);
      const refused = await api(board, 'w1', 'submit_result', { task_id: id, result: 'too late' });
      expect(refused.status).toBe(409);
      expect(refused.body.error!.message).toContain('lapsed at');
      expect(refused.body.error!.message).toContain('claimed by w2');
      expect((await taskOf(id)).task).toMatchObject({ status: 'claimed', assignee: 'w2', result: null });
    });

    it('a claim id of another task is refused, and so is one over MCP, alike', async () => {
      const a = await newTask();
      const b = await newTask();
      const onA = await claim('w1', a);
      await claim('w1', b);
      const viaApi = await api(board, 'w1', 'submit_result', { task_id: b, result: 'x', claim_id: onA.claim_id });
      expect(viaApi.status).toBe(409);
      const client = await mcpClient(board, 'w1');
      try {
        const viaMcp = await client.callTool({ name: 'submit_result', arguments: { task_id: b, result: 'x', claim_id: onA.claim_id } });
        expect(viaMcp.isError).toBe(true);
        expect(resultJson(viaMcp)).toEqual(viaApi.body);
      } finally {
        await client.close();
      }
    });
  });

  describe("the leader's forced release", () => {
    it('with a note, the task is open and the history names who released it and why', async () => {
      const id = await newTask();
      await claim('w1', id);
      const released = await api(board, 'lead', 'release_task', { task_id: id, note: 'w1 crashed; handing it on' });
      expect(released.status, JSON.stringify(released.body)).toBe(200);
      expect(released.body.task).toMatchObject({ status: 'open', assignee: null, claim_id: null });
      const row = (await taskOf(id)).history[0];
      expect(row).toMatchObject({ action: 'released', agent: 'lead', note: 'w1 crashed; handing it on', from_status: 'claimed' });
      // The former holder learns what happened.
      const late = await api(board, 'w1', 'submit_result', { task_id: id, result: 'x' });
      expect(late.status).toBe(409);
      expect(late.body.error!.message).toContain('ended when lead released it');
    });

    it('without a note it is invalid_input, and nothing changes', async () => {
      const id = await newTask();
      await claim('w1', id);
      for (const note of [undefined, '   ']) {
        const refused = await api(board, 'lead', 'release_task', { task_id: id, ...(note !== undefined && { note }) });
        expect(refused.status).toBe(400);
        expect(refused.body.error!.message).toContain('note: required');
      }
      expect((await taskOf(id)).task).toMatchObject({ status: 'claimed', assignee: 'w1' });
    });

    it("a worker cannot release another worker's task", async () => {
      const id = await newTask();
      await claim('w1', id);
      const refused = await api(board, 'w2', 'release_task', { task_id: id, note: 'mine now' });
      expect(refused.status).toBe(403);
      expect((await taskOf(id)).task).toMatchObject({ status: 'claimed', assignee: 'w1' });
    });

    it('in peer mode, only the task creator may', async () => {
      const peers = await startBoard({
        store,
        agents: [
          { name: 'p1', role: 'peer' },
          { name: 'p2', role: 'peer' },
          { name: 'p3', role: 'peer' },
        ],
      });
      try {
        const id = (await api(peers, 'p1', 'create_task', { title: 'peer work' })).body.task.id;
        expect((await api(peers, 'p2', 'claim_task', { task_id: id })).status).toBe(200);
        expect((await api(peers, 'p3', 'release_task', { task_id: id, note: 'not my task' })).status).toBe(403);
        const byCreator = await api(peers, 'p1', 'release_task', { task_id: id, note: 'p2 went quiet' });
        expect(byCreator.status).toBe(200);
        expect(byCreator.body.task.status).toBe('open');
      } finally {
        await peers.stop();
      }
    });
  });

  describe('racing for a lapsed claim', () => {
    it('20 racers claiming tasks whose lease just lapsed: exactly one winner each, 50 rounds', async () => {
      const agents = [{ name: 'lead', role: 'leader' as const }, ...Array.from({ length: 20 }, (_, i) => ({ name: `r${i}`, role: 'worker' as const }))];
      const racing = await startBoard({ store, agents, env: { ROUNDTABLE_LEASE_TTL: '2s' } });
      try {
        // Rounds run ten at a time: each round is one task, claimed, left to lapse, then raced for by all 20.
        for (let batch = 0; batch < 5; batch++) {
          const ids: number[] = [];
          for (let i = 0; i < 10; i++) ids.push((await api(racing, 'lead', 'create_task', { title: `race ${batch}.${i}` })).body.task.id);
          const claims = await Promise.all(ids.map((id) => api(racing, 'r0', 'claim_task', { task_id: id })));
          const lapseAt = Math.max(...claims.map((c) => Date.parse(c.body.task.lease_expires_at)));
          await new Promise((r) => setTimeout(r, Math.max(0, lapseAt - Date.now())));
          const results = await Promise.all(ids.map((id) => Promise.all(agents.slice(1).map((a) => api(racing, a.name, 'claim_task', { task_id: id })))));
          for (const [i, round] of results.entries()) {
            const winners = round.filter((r) => r.status === 200);
            expect(round.filter((r) => r.status !== 200).every((r) => r.status === 409)).toBe(true);
            const { task, history } = (await api(racing, 'lead', 'get_task', { task_id: ids[i], order: 'oldest_first', history_limit: 100 })).body;
            // The history is the proof that no two claims were ever live at once: after the first holder's, every claim
            // is preceded by the lapse of the one before. On a loaded machine a winner's own 2 s lease can lapse while
            // the other racers are still being answered, and a later racer then wins fairly: one winner per lapse.
            const moves = history.filter((h: { action: string }) => h.action === 'claimed' || h.action === 'lease_expired').map((h: { action: string }) => h.action);
            const lapses = moves.filter((m: string) => m === 'lease_expired').length;
            expect(moves, `task ${ids[i]}`).toEqual(['claimed', ...Array.from({ length: lapses }, () => ['lease_expired', 'claimed']).flat()].slice(0, moves.length));
            expect(moves.at(-1)).toBe(task.status === 'claimed' ? 'claimed' : 'lease_expired');
            expect(winners.length, `task ${ids[i]}: one winner per lapse`).toBe(moves.filter((m: string) => m === 'claimed').length - 1);
            expect(winners.length).toBeGreaterThanOrEqual(1);
            expect(new Set(winners.map((w) => w.body.task.claim_id)).size).toBe(winners.length);
          }
        }
      } finally {
        await racing.stop();
      }
    });
  });

  describe('expiry across a restart', () => {
    it('a claim that lapses while the daemon is down is open after start', async () => {
      const first = await startBoard({ store, env: { ROUNDTABLE_LEASE_TTL: '1s' } });
      const id = (await api(first, 'lead', 'create_task', { title: 'survives a restart' })).body.task.id;
      const held = (await api(first, 'w1', 'claim_task', { task_id: id })).body.task;
      await first.stop();
      await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(held.lease_expires_at) - Date.now() + 50)));
      const second = await startBoard({ store, dir: first.dir, tokens: first.tokens, databaseUrl: first.databaseUrl, env: { ROUNDTABLE_LEASE_TTL: '1s' } });
      try {
        // Swept during start, before the daemon listened: the first read already sees it open.
        const detail = (await api(second, 'lead', 'get_task', { task_id: id })).body;
        expect(detail.task).toMatchObject({ status: 'open', assignee: null });
        expect(detail.history[0]).toMatchObject({ action: 'lease_expired', claim_id: held.claim_id });
      } finally {
        await second.stop();
      }
    });
  });
});
