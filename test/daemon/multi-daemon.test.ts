// Several daemons on one PostgreSQL board: claims, wake-ups, rate limits, web sessions, idempotency keys and lease
// expiry hold across them as they do in one process. Real daemons, a real database (a fresh one per board).
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startDaemons, type AgentSpec, type StartOptions, type TestBoard } from '../helpers/board.js';
import { eventually } from '../helpers/eventually.js';
import { connectTo, PG_SKIP_REASON } from '../helpers/postgres.js';

const RACERS = 20;
const AGENTS: AgentSpec[] = [
  { name: 'lead', role: 'leader' },
  { name: 'w1', role: 'worker' },
  { name: 'w2', role: 'worker' },
  ...Array.from({ length: RACERS }, (_, i) => ({ name: `r${i}`, role: 'worker' as const })),
];

/** Three daemons on one fresh database, with one agents.json and the same tokens. */
function threeDaemons(options: Pick<StartOptions, 'env'> = {}): Promise<TestBoard[]> {
  return startDaemons(3, { ...options, agents: AGENTS });
}

async function stopAll(boards: TestBoard[]): Promise<void> {
  await Promise.all(boards.map((b) => b.stop()));
}

/** Signs in through one daemon; the cookie header for the new session. */
async function signIn(board: TestBoard, agent: string): Promise<string> {
  const response = await fetch(`${board.url}/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: board.tokens[agent] }) });
  expect(response.status).toBe(200);
  return /rt_session=[^;]+/.exec(response.headers.get('set-cookie') ?? '')![0];
}

/** A live page's event stream: what it has received so far, and when the daemon ended it. */
async function openStream(board: TestBoard, cookie: string): Promise<{ received: string; endedAt: number | undefined; close(): void }> {
  const page = new AbortController();
  const response = await fetch(`${board.url}/events`, { headers: { cookie }, signal: page.signal });
  expect(response.status).toBe(200);
  const stream = { received: '', endedAt: undefined as number | undefined, close: () => page.abort() };
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of response.body!) stream.received += decoder.decode(chunk as Uint8Array, { stream: true });
    stream.endedAt = performance.now();
  })().catch(() => {});
  return stream;
}

describe.skipIf(PG_SKIP_REASON)(`three daemons on one PostgreSQL database${PG_SKIP_REASON ? ` (skipped: ${PG_SKIP_REASON})` : ''}`, () => {
  let boards: TestBoard[];
  beforeAll(async () => {
    boards = await threeDaemons();
  });
  afterAll(async () => {
    await stopAll(boards);
  });
  const daemon = (i: number) => boards[i % boards.length]!;

  it('20 racers spread over the daemons claim one task: exactly one wins, over 50 rounds', async () => {
    for (let round = 0; round < 50; round++) {
      const id = (await api(daemon(round), 'lead', 'create_task', { title: `race ${round}` })).body.task.id as number;
      const answers = await Promise.all(Array.from({ length: RACERS }, (_, i) => api(daemon(i + round), `r${i}`, 'claim_task', { task_id: id })));
      const winners = answers.filter((a) => a.status === 200);
      expect(winners, `round ${round}`).toHaveLength(1);
      expect(answers.filter((a) => a.status !== 200).every((a) => a.status === 409 && a.body.error?.code === 'conflict')).toBe(true);
      const { task, history } = (await api(daemon(round + 1), 'lead', 'get_task', { task_id: id })).body;
      expect(task.assignee).toBe(winners[0]!.body.task.assignee);
      expect(history.filter((h: { action: string }) => h.action === 'claimed')).toHaveLength(1);
    }
  });

  it("each daemon's index of reservations sees at its next call what another reserved and released (issue 22)", async () => {
    const claim = async (agent: string, through: TestBoard) => {
      const id = (await api(through, 'lead', 'create_task', { title: `paths of ${agent}` })).body.task.id as number;
      expect((await api(through, agent, 'claim_task', { task_id: id })).status).toBe(200);
      return id;
    };
    const held = async (through: TestBoard) => (await api(through, 'w2', 'check_paths', { paths: ['multi/a.ts'], scope: 'multi' })).body.paths[0].held as boolean;
    // Every daemon has indexed the scope before the change.
    for (const b of boards) expect(await held(b)).toBe(false);
    const mine = await claim('w1', daemon(0));
    expect((await api(daemon(0), 'w1', 'reserve_paths', { task_id: mine, paths: ['multi/**'], scope: 'multi' })).status).toBe(200);
    for (const b of boards) expect(await held(b)).toBe(true);
    // Racing reservations of overlapping paths through the other daemons: the scope's lock lets none through.
    const others = await Promise.all([claim('r0', daemon(1)), claim('r1', daemon(2))]);
    const tries = await Promise.all(others.map((id, i) => api(daemon(i + 1), `r${i}`, 'reserve_paths', { task_id: id, paths: [`multi/x${i}.ts`], scope: 'multi' })));
    expect(tries.map((t) => t.status)).toEqual([409, 409]);
    expect((await api(daemon(1), 'w1', 'release_paths', { task_id: mine })).status).toBe(200);
    for (const b of boards) expect(await held(b)).toBe(false);
    const granted = await Promise.all(others.map((id, i) => api(daemon(i + 1), `r${i}`, 'reserve_paths', { task_id: id, paths: [`multi/**`], scope: 'multi', exclusive: false })));
    expect(granted.map((t) => t.status)).toEqual([200, 200]);
    const listed = await api(daemon(0), 'lead', 'list_reservations', { scope: 'multi', path: 'multi/a.ts' });
    expect(listed.body.reservations.map((r: { agent: string }) => r.agent).sort()).toEqual(['r0', 'r1']);
    // Cancelled, not released: an open task would wake the waiters of the tests below at once.
    for (const [i, id] of [mine, ...others].entries()) expect((await api(daemon(i), 'lead', 'cancel_task', { task_id: id, reason: 'done with' })).status).toBe(200);
  });

  it('a waiter on one daemon wakes for a task created through another', async () => {
    // The issue's target is 100 ms. Each trial must wake (not time out) within 5 s; the median of five must be under
    // 100 ms. A single trial may be slower on these shared 2-core machines without the mechanism being at fault;
    // the bench measures the real p50 and p99 (docs/BENCHMARKS.md).
    const latencies: number[] = [];
    for (let trial = 0; trial < 5; trial++) {
      const waiterOn = daemon(trial);
      const woken = api(waiterOn, 'w1', 'wait_for_activity', { timeout_s: 20, for: ['tasks'] }).then((a) => ({ ...a, at: performance.now() }));
      // Asked of the waiter's own daemon, which knows at once (the others within a write: multi-daemon-waiting.test.ts).
      await eventually('w1 to be waiting', async () => (await api(waiterOn, 'lead', 'members')).body.members.find((m: { name: string }) => m.name === 'w1').waiting);
      const created = await api(daemon(trial + 1), 'lead', 'create_task', { title: `wake ${trial}` });
      const createdAt = performance.now();
      const answer = await woken;
      expect(answer.body).toMatchObject({ reason: 'activity', claimable_tasks: expect.any(Number) });
      latencies.push(answer.at - createdAt);
      expect(answer.at - createdAt).toBeLessThan(5000);
      await api(daemon(trial), 'w1', 'claim_task', { task_id: created.body.task.id });
    }
    latencies.sort((a, b) => a - b);
    expect(latencies[2]).toBeLessThan(100);
  });

  it('an idempotent retry through another daemon replays the first answer and applies the change once', async () => {
    const call = async (board: TestBoard) => {
      const response = await fetch(`${board.url}/api/v1/tools/create_task`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${board.tokens['lead']}`, 'idempotency-key': 'multi-daemon-retry-1' },
        body: JSON.stringify({ title: 'made once' }),
      });
      return { status: response.status, body: (await response.json()) as any };
    };
    const first = await call(daemon(0));
    const retried = await call(daemon(1));
    const again = await call(daemon(2));
    expect(first.status).toBe(200);
    expect(retried.body).toEqual(first.body);
    expect(again.body).toEqual(first.body);
    const tasks = (await api(daemon(0), 'lead', 'list_tasks', { limit: 100 })).body.tasks.filter((t: { title: string }) => t.title === 'made once');
    expect(tasks).toHaveLength(1);
  });

  it('a web session made through one daemon works through the others, and a sign-out through one ends it on all', async () => {
    const signIn = await fetch(`${daemon(0).url}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: daemon(0).tokens['w2'] }),
    });
    expect(signIn.status).toBe(200);
    const cookie = `rt_session=${/rt_session=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')![1]!}`;
    for (const board of boards) {
      const state = await fetch(`${board.url}/view/state`, { headers: { cookie } });
      expect(state.status, board.url).toBe(200);
    }
    // The table holds the session under a digest: nothing in it is the cookie.
    const sql = connectTo(daemon(0).databaseUrl!);
    try {
      const stored = JSON.stringify(await sql`SELECT id_sha256, encode(token_sha256, 'hex') AS token_sha256 FROM web_sessions`);
      expect(stored).toContain(createHash('sha256').update(cookie.slice('rt_session='.length)).digest('hex'));
      expect(stored).not.toContain(cookie.slice('rt_session='.length));
    } finally {
      await sql.end({ timeout: 1 });
    }
    const out = await fetch(`${daemon(1).url}/session/logout`, { method: 'POST', headers: { cookie } });
    expect(out.status).toBe(200);
    for (const board of boards) expect((await fetch(`${board.url}/view/state`, { headers: { cookie } })).status, board.url).toBe(401);
  });

  it("a sign-out through one daemon ends that session's event streams on the others at once, and only that session's", async () => {
    const cookie = await signIn(daemon(0), 'w2');
    const otherCookie = await signIn(daemon(0), 'w1');
    const streams = [await openStream(daemon(1), cookie), await openStream(daemon(2), cookie)];
    const other = await openStream(daemon(1), otherCookie);
    // What anyone who may LISTEN on the database sees of the sign-out.
    const sql = connectTo(daemon(0).databaseUrl!);
    const notified: string[] = [];
    const listening = await sql.listen('roundtable_events', (payload) => notified.push(payload));
    try {
      await eventually('the streams on B and C to be connected', () => [...streams, other].every((s) => s.received.includes('event: ready')));

      const out = await fetch(`${daemon(0).url}/session/logout`, { method: 'POST', headers: { cookie } });
      expect(out.status).toBe(200);
      const signedOutAt = performance.now();
      // Nothing else happens on the board meanwhile: without word from A, B and C would stream on from memory.
      await eventually('the signed-out streams on B and C to end', () => streams.every((s) => s.endedAt !== undefined), { timeoutMs: 10_000 });
      console.info(`sign-out through A ended the streams on B and C after ${streams.map((s) => Math.round(s.endedAt! - signedOutAt)).join(', ')} ms`);
      const id = cookie.slice('rt_session='.length);
      await eventually('the sign-out to be seen on the channel', () => notified.some((p) => p.includes('session_ended')));
      expect(notified.find((p) => p.includes('session_ended'))).toContain(createHash('sha256').update(id).digest('hex'));
      expect(notified.join('\n')).not.toContain(id);

      for (const board of [daemon(1), daemon(2)]) {
        expect((await fetch(`${board.url}/events`, { headers: { cookie } })).status, board.url).toBe(401);
        expect((await fetch(`${board.url}/view/state`, { headers: { cookie } })).status, board.url).toBe(401);
      }
      // Another session's stream on B is untouched and still hears the board.
      expect(other.endedAt).toBeUndefined();
      const created = await api(daemon(0), 'lead', 'create_task', { title: 'heard after a sign-out elsewhere' });
      await eventually('the other stream on B to hear the new task', () => other.received.includes(`"task_id":${created.body.task.id}`));
    } finally {
      for (const s of [...streams, other]) s.close();
      await listening.unlisten();
      await sql.end({ timeout: 1 });
    }
  });
});

describe.skipIf(PG_SKIP_REASON)('three daemons: rate limits and lease expiry', () => {
  it('the rate limit is one budget per agent across the daemons', async () => {
    const perMinute = 6;
    const boards = await threeDaemons({ env: { ROUNDTABLE_RATE_LIMIT_PER_MINUTE: String(perMinute) } });
    try {
      const started = Date.now();
      const answers = [];
      for (let i = 0; i < 3 * perMinute; i++) answers.push(await api(boards[i % 3]!, 'w1', 'whoami'));
      const elapsedMs = Date.now() - started;
      const allowed = answers.filter((a) => a.status === 200).length;
      // One shared bucket: the full budget, plus what refilled while the calls ran (one per 10 s), never three budgets.
      expect(allowed).toBeGreaterThanOrEqual(perMinute);
      expect(allowed).toBeLessThanOrEqual(perMinute + Math.ceil((elapsedMs * perMinute) / 60_000));
      const refused = answers.filter((a) => a.status === 429);
      expect(refused.length).toBeGreaterThan(0);
      expect(refused[0]!.body.error?.code).toBe('rate_limited');
      // Another agent's budget is its own.
      expect((await api(boards[2]!, 'w2', 'whoami')).status).toBe(200);
    } finally {
      await stopAll(boards);
    }
  });

  it('a lapsed claim is reopened exactly once, though every daemon sweeps', async () => {
    const boards = await threeDaemons({ env: { ROUNDTABLE_LEASE_TTL: '1s' } });
    try {
      const ids: number[] = [];
      for (let i = 0; i < 6; i++) {
        const id = (await api(boards[i % 3]!, 'lead', 'create_task', { title: `lapse ${i}` })).body.task.id as number;
        expect((await api(boards[(i + 1) % 3]!, 'w1', 'claim_task', { task_id: id })).status).toBe(200);
        ids.push(id);
      }
      for (const [i, id] of ids.entries()) {
        // Read through a daemon that neither created nor granted the claim: it learnt of the lease from the event.
        await eventually(`task ${id} reopened`, async () => (await api(boards[(i + 2) % 3]!, 'lead', 'get_task', { task_id: id })).body.task.status === 'open');
      }
      // Past the moment every daemon's timer fired for these leases, each lapse has exactly one history row.
      await new Promise((r) => setTimeout(r, 1500));
      for (const id of ids) {
        const { history } = (await api(boards[0]!, 'lead', 'get_task', { task_id: id })).body;
        expect(history.filter((h: { action: string }) => h.action === 'lease_expired'), `task ${id}`).toHaveLength(1);
      }
    } finally {
      await stopAll(boards);
    }
  });

  it('a claim granted through a daemon that then dies lapses on time through the others', async () => {
    const boards = await threeDaemons({ env: { ROUNDTABLE_LEASE_TTL: '2s' } });
    try {
      const id = (await api(boards[1]!, 'lead', 'create_task', { title: 'orphaned claim' })).body.task.id as number;
      expect((await api(boards[0]!, 'w1', 'claim_task', { task_id: id })).status).toBe(200);
      await boards[0]!.stop('SIGKILL');
      // The survivors armed their timers from the claim's event (without it they look again within 5 s: the next test).
      await eventually(`task ${id} reopened`, async () => (await api(boards[1]!, 'lead', 'get_task', { task_id: id })).body.task.status === 'open', { timeoutMs: 15_000 });
    } finally {
      await stopAll(boards.slice(1));
    }
  });

  it('events published in one turn of a daemon travel as one notification, and the others receive every one', async () => {
    const boards = await threeDaemons();
    const sql = connectTo(boards[0]!.databaseUrl!);
    const notifications: Array<{ from: string; event?: { type: string; action?: string }; events?: Array<{ type: string; action?: string }> }> = [];
    const listening = await sql.listen('roundtable_events', (payload) => notifications.push(JSON.parse(payload)));
    try {
      const ids: number[] = [];
      for (let i = 0; i < 10; i++) {
        const id = (await api(boards[0]!, 'lead', 'create_task', { title: `lapses with the others ${i}` })).body.task.id as number;
        expect((await api(boards[0]!, 'w1', 'claim_task', { task_id: id })).status).toBe(200);
        ids.push(id);
      }
      // Every lease passed at once (no event: the sweeps find them on their own); one sweep reopens all ten in one
      // transaction and publishes ten events in one loop.
      await sql`UPDATE tasks SET lease_expires_at = ${new Date(Date.now() - 1000).toISOString()} WHERE id = ANY(${ids}::int[])`;
      const lapses = () => notifications.flatMap((n) => n.events ?? [n.event!]).filter((e) => e.type === 'task' && e.action === 'lease_expired');
      await eventually('ten lease_expired events sent to the other daemons', () => lapses().length >= 10, { timeoutMs: 20_000 });
      expect(lapses()).toHaveLength(10);
      expect(notifications.some((n) => (n.events?.length ?? 0) >= 2), 'a notification carrying several events').toBe(true);
      // And each daemon has them: all ten are open through every daemon.
      for (const board of boards) {
        const { tasks } = (await api(board, 'lead', 'list_tasks', { status: 'open' })).body;
        expect(ids.every((id) => tasks.some((t: { id: number }) => t.id === id))).toBe(true);
      }
    } finally {
      await listening.unlisten();
      await sql.end({ timeout: 1 });
      await stopAll(boards);
    }
  });

  it('a lease no event told the others about (its daemon died before sending it) still lapses within seconds', async () => {
    const boards = await threeDaemons({ env: { ROUNDTABLE_LEASE_TTL: '2s' } });
    const sql = connectTo(boards[0]!.databaseUrl!);
    try {
      const id = (await api(boards[0]!, 'lead', 'create_task', { title: 'claimed without an event' })).body.task.id as number;
      // The claim as a daemon writes it, but with no NOTIFY after it: what the others see when its daemon died between
      // the commit and the event. No daemon claims anything afterwards, so only the sweep's own re-check can find it.
      const written = Date.now();
      await sql.begin(async (tx) => {
        const at = new Date(written).toISOString();
        const [claim] = await tx<Array<{ id: number }>>`INSERT INTO claims (task_id, agent, claimed_at) VALUES (${id}, 'w1', ${at}) RETURNING id`;
        await tx`UPDATE tasks SET status = 'claimed', assignee = 'w1', claim_id = ${claim!.id}, lease_expires_at = ${new Date(written + 2000).toISOString()}, updated_at = ${at} WHERE id = ${id}`;
      });
      await eventually(`task ${id} reopened`, async () => (await api(boards[1]!, 'lead', 'get_task', { task_id: id })).body.task.status === 'open', { timeoutMs: 20_000 });
      // 2 s of lease and at most 5 s of re-check (process/server.ts), with room for a loaded machine; the old re-check was 60 s.
      expect(Date.now() - written).toBeLessThan(15_000);
    } finally {
      await sql.end({ timeout: 1 });
      await stopAll(boards);
    }
  });
});
