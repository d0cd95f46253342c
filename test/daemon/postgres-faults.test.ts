// PostgreSQL faults between real daemons and a real database, through a TCP proxy the test controls (fault-proxy.ts):
// connection resets every second under write load (no daemon exits, every request ends by its deadline, nothing
// acknowledged is lost, every call has its audit row or a log line standing for it), a stall longer than the deadlines
// (/status, wait_for_activity and create_task answer in time; SIGTERM ends in time), and what a reset does to the
// connections besides the pool: LISTEN, the lease sweep and the waiting rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPIRE_MS } from '../../daemon/src/store/postgres/waiting.js';
import { WAIT_GRACE_MS } from '../../daemon/src/board/dispatch.js';
import { startBoard, type AgentSpec, type TestBoard } from '../helpers/board.js';
import { eventually, sleep, within } from '../helpers/eventually.js';
import { faultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { connectTo, createTestDatabase, PG_SKIP_REASON } from '../helpers/postgres.js';

const AGENTS: AgentSpec[] = [
  { name: 'lead', role: 'leader' },
  { name: 'w1', role: 'worker' },
  { name: 'w2', role: 'worker' },
  { name: 'w3', role: 'worker' },
];

/** What a slow, shared 2-core machine adds to a bound on top of the daemon's own deadline. */
const SLACK_MS = 3_000;

interface Answer {
  readonly agent: string;
  readonly tool: string;
  readonly status: number;
  readonly body: any;
  readonly ms: number;
}

/**
 * One tool call through the JSON API, timed. A call that gets no HTTP answer at all (the daemon died, say) comes back
 * as status 0, so the load goes on and the test's checks say what happened.
 */
async function call(board: TestBoard, agent: string, tool: string, args: unknown = {}): Promise<Answer> {
  const started = performance.now();
  try {
    const response = await fetch(`${board.url}/api/v1/tools/${tool}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${board.tokens[agent]}` },
      body: JSON.stringify(args),
    });
    const body = await response.json();
    return { agent, tool, status: response.status, body, ms: performance.now() - started };
  } catch (error) {
    await sleep(50);
    return { agent, tool, status: 0, body: { error: { code: 'no_answer', message: String(error) } }, ms: performance.now() - started };
  }
}

/** The daemon's JSON log lines with this message start. */
function logLines(board: TestBoard, message: string): Array<Record<string, unknown>> {
  return board
    .output()
    .stderr.split('\n')
    .filter((line) => line.includes(message))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function crashSigns(board: TestBoard): string[] {
  return board.output().stderr.split('\n').filter((line) => /Unhandled|uncaught|TypeError|Cannot read properties/i.test(line));
}

describe.skipIf(PG_SKIP_REASON)(`PostgreSQL faults through a proxy${PG_SKIP_REASON ? ` (skipped: ${PG_SKIP_REASON})` : ''}`, () => {
  it('three daemons, every connection reset once a second for 60 s under write load: none exits, every call ends by its deadline, nothing acknowledged is lost, every call is audited', async () => {
    const DEADLINE_MS = 5_000;
    const RUN_MS = Number(process.env['ROUNDTABLE_FAULT_RUN_MS'] ?? 60_000);
    const databaseUrl = await createTestDatabase('resets');
    const proxy = await faultProxy(Number(new URL(databaseUrl).port));
    const env = { ROUNDTABLE_DB_DEADLINE: `${DEADLINE_MS / 1000}s`, ROUNDTABLE_DB_STATEMENT_TIMEOUT: '3s', ROUNDTABLE_DB_POOL_WAIT: '3s' };
    const first = await startBoard({ agents: AGENTS, databaseUrl: proxy.via(databaseUrl), env });
    const daemons = [first, ...(await Promise.all([0, 1].map(() => startBoard({ agents: AGENTS, tokens: first.tokens, databaseUrl: proxy.via(databaseUrl), env }))))];
    const answers: Answer[] = [];
    const created: Array<{ id: number; title: string }> = [];
    const claimed: Array<{ id: number; agent: string }> = [];
    const posted: Array<{ id: number; taskId: number; text: string }> = [];
    const claimable: number[] = [];
    let resets = 0;
    let cut = 0;
    const end = Date.now() + RUN_MS;
    const record = (answer: Answer) => {
      answers.push(answer);
      return answer;
    };
    try {
      const resetting = (async () => {
        while (Date.now() < end) {
          await sleep(1000);
          cut += proxy.resetAll();
          resets++;
        }
      })();
      const creator = async (d: number) => {
        for (let n = 0; Date.now() < end; n++) {
          const title = `reset-${d}-${n}`;
          const answer = record(await call(daemons[d]!, 'lead', 'create_task', { title }));
          if (answer.status === 200) {
            created.push({ id: answer.body.task.id, title });
            claimable.push(answer.body.task.id);
          }
        }
      };
      const worker = async (d: number) => {
        const agent = `w${d + 1}`;
        while (Date.now() < end) {
          const id = claimable.shift();
          if (id === undefined) {
            record(await call(daemons[d]!, agent, 'list_tasks', { status: 'open' }));
            continue;
          }
          const claim = record(await call(daemons[d]!, agent, 'claim_task', { task_id: id }));
          if (claim.status !== 200) continue;
          claimed.push({ id, agent });
          const text = `note on ${id}`;
          const message = record(await call(daemons[d]!, agent, 'post_message', { task_id: id, kind: 'progress', text }));
          if (message.status === 200) posted.push({ id: message.body.message.id, taskId: id, text });
        }
      };
      // A successful wait_for_activity after a reset has its audit row too (item E).
      const waiter = async () => {
        while (Date.now() < end) record(await call(daemons[2]!, 'w3', 'wait_for_activity', { timeout_s: 1, for: ['messages'] }));
      };
      await Promise.all([resetting, ...[0, 1, 2].map(creator), ...[0, 1].map(worker), waiter()]);

      // No daemon exited, each answers again once the resets stop, and none logged a crash it survived by luck.
      for (const daemon of daemons) {
        const died = daemon.output().stderr.split('\n').filter((line) => !line.startsWith('{')).join('\n');
        expect({ exitCode: daemon.process.exitCode, signal: daemon.process.signalCode }, `the daemon's last words:\n${died.slice(-1500)}`).toEqual({ exitCode: null, signal: null });
        await eventually('the daemon to answer /status with 200', async () => (await fetch(`${daemon.url}/status`)).status === 200);
        expect(crashSigns(daemon)).toEqual([]);
      }
      const byStatus = new Map<string, number>();
      for (const a of answers) byStatus.set(`${a.tool} ${a.status}${a.body.error ? ` ${a.body.error.code}` : ''}`, (byStatus.get(`${a.tool} ${a.status}${a.body.error ? ` ${a.body.error.code}` : ''}`) ?? 0) + 1);
      const slowest = Math.max(...answers.map((a) => a.ms));
      console.log(`${resets} resets cut ${cut} connections; ${answers.length} calls: ${JSON.stringify(Object.fromEntries(byStatus))}; slowest ${Math.round(slowest)} ms`);
      expect(resets).toBeGreaterThanOrEqual(Math.floor(RUN_MS / 1000) - 5);
      expect(cut).toBeGreaterThan(resets);
      // Every call is answered by its deadline, with success or `unavailable` (never `internal`): wait_for_activity by
      // its own timeout and the grace after it.
      for (const a of answers) {
        const bound = (a.tool === 'wait_for_activity' ? 1000 + WAIT_GRACE_MS : DEADLINE_MS) + SLACK_MS;
        expect(a.ms, `${a.tool} took ${Math.round(a.ms)} ms`).toBeLessThan(bound);
        if (a.status !== 200) expect({ tool: a.tool, status: a.status, code: a.body.error?.code }).toEqual({ tool: a.tool, status: 503, code: 'unavailable' });
      }
      // The load did get through between the resets.
      expect(created.length).toBeGreaterThan(30);
      expect(claimed.length).toBeGreaterThan(10);

      // Nothing acknowledged is lost: every acknowledged write is read back.
      const sql = connectTo(databaseUrl);
      try {
        const tasks = new Map((await sql<Array<{ id: number; title: string }>>`SELECT id, title FROM tasks`).map((t) => [t.id, t.title]));
        for (const t of created) expect(tasks.get(t.id)).toBe(t.title);
        const claims = await sql<Array<{ task_id: number; agent: string }>>`SELECT task_id, agent FROM claims`;
        for (const c of claimed) expect(claims.some((row) => row.task_id === c.id && row.agent === c.agent), `claim of ${c.id} by ${c.agent}`).toBe(true);
        const messages = new Map((await sql<Array<{ id: number; task_id: number; text: string }>>`SELECT id, task_id, text FROM messages`).map((m) => [m.id, m]));
        for (const m of posted) expect(messages.get(m.id)).toMatchObject({ task_id: m.taskId, text: m.text });

        // docs/SPEC.md §7 on PostgreSQL through the resets: no call has two rows; every call has its row or, when the
        // database could not take it, a log line standing for it; every successful call has its `ok` row.
        const rows = await sql<Array<{ agent: string; tool: string; outcome: string; n: number }>>`SELECT agent, tool, outcome, COUNT(*)::int AS n FROM audit_log GROUP BY agent, tool, outcome`;
        const unwritten = daemons.flatMap((d) => logLines(d, 'audit row not written'));
        for (const agent of ['lead', 'w1', 'w2', 'w3']) {
          const calls = answers.filter((a) => a.agent === agent).length;
          const rowCount = rows.filter((r) => r.agent === agent).reduce((sum, r) => sum + r.n, 0);
          const lines = unwritten.filter((line) => line['agent'] === agent).length;
          expect(rowCount, `${agent}: audit rows for ${calls} calls`).toBeLessThanOrEqual(calls);
          expect(rowCount + lines, `${agent}: audit rows and log lines for ${calls} calls`).toBeGreaterThanOrEqual(calls);
          for (const tool of new Set(answers.filter((a) => a.agent === agent).map((a) => a.tool))) {
            const ok = answers.filter((a) => a.agent === agent && a.tool === tool && a.status === 200).length;
            const okRows = rows.find((r) => r.agent === agent && r.tool === tool && r.outcome === 'ok')?.n ?? 0;
            expect(okRows, `${agent} ${tool}: ok rows for ${ok} successful calls`).toBeGreaterThanOrEqual(ok);
          }
        }
      } finally {
        await sql.end({ timeout: 1 });
      }
    } finally {
      for (const daemon of daemons) await daemon.stop().catch(() => daemon.process.kill('SIGKILL'));
      await proxy.close();
    }
  }, 180_000);

  it('a stall longer than the deadlines: /status, wait_for_activity {timeout_s: 2} and create_task answer in time, and SIGTERM ends the daemon in time', async () => {
    const DEADLINE_MS = 2_000;
    const databaseUrl = await createTestDatabase('stall');
    const proxy = await faultProxy(Number(new URL(databaseUrl).port));
    const daemon = await startBoard({
      agents: AGENTS,
      databaseUrl: proxy.via(databaseUrl),
      env: { ROUNDTABLE_DB_DEADLINE: '2s', ROUNDTABLE_DB_STATEMENT_TIMEOUT: '1s', ROUNDTABLE_DB_POOL_WAIT: '1s' },
    });
    let stopped = false;
    try {
      expect((await call(daemon, 'lead', 'create_task', { title: 'before the stall' })).status).toBe(200);
      proxy.stall();
      const status = (async () => {
        const started = performance.now();
        const response = await fetch(`${daemon.url}/status`);
        return { status: response.status, body: (await response.json()) as any, ms: performance.now() - started };
      })();
      const [statusAnswer, waited, createdAnswer] = await Promise.all([
        status,
        call(daemon, 'w1', 'wait_for_activity', { timeout_s: 2 }),
        call(daemon, 'lead', 'create_task', { title: 'during the stall' }),
      ]);
      console.log(`during a stall: /status ${statusAnswer.status} in ${Math.round(statusAnswer.ms)} ms, wait_for_activity ${waited.status} in ${Math.round(waited.ms)} ms, create_task ${createdAnswer.status} in ${Math.round(createdAnswer.ms)} ms`);
      expect(statusAnswer.status).toBe(503);
      expect(statusAnswer.body).toMatchObject({ ok: false, error: { code: 'unavailable' } });
      expect(['unreachable', 'deadline']).toContain(statusAnswer.body.database);
      expect(statusAnswer.body.error.message).toMatch(/database (is unreachable|did not answer within its deadline)/);
      expect(statusAnswer.ms).toBeLessThan(DEADLINE_MS + SLACK_MS);
      // The wait keeps its own timeout: its normal answer, or `unavailable`, by 2 s and the grace.
      expect(waited.ms).toBeLessThan(2_000 + WAIT_GRACE_MS + SLACK_MS);
      if (waited.status === 200) expect(waited.body.reason).toBe('timeout');
      else expect(waited.body.error.code).toBe('unavailable');
      expect(createdAnswer.status).toBe(503);
      expect(createdAnswer.body.error.code).toBe('unavailable');
      expect(createdAnswer.body.error.message).toMatch(/nothing was changed|may have been applied: check the board/);
      expect(createdAnswer.body.error.message).toMatch(/retry/i);
      expect(createdAnswer.ms).toBeLessThan(DEADLINE_MS + SLACK_MS);

      // SIGTERM while the database still does not answer: the daemon ends within its shutdown bound (the deadline and
      // 5 s), not when the database comes back.
      const signalled = performance.now();
      daemon.process.kill('SIGTERM');
      await within('the daemon to exit after SIGTERM during the stall', new Promise((resolve) => daemon.process.once('exit', resolve)), DEADLINE_MS + 5_000 + SLACK_MS);
      stopped = true;
      console.log(`SIGTERM during a stall: exited with ${daemon.process.exitCode} after ${Math.round(performance.now() - signalled)} ms`);
    } finally {
      proxy.restore();
      if (!stopped) await daemon.stop();
      await proxy.close();
    }
  }, 60_000);

  describe('after a reset of every connection a daemon holds', () => {
    let databaseUrl: string;
    let proxy: FaultProxy;
    /** A reaches the database through the proxy; B directly. */
    let a: TestBoard;
    let b: TestBoard;
    beforeAll(async () => {
      databaseUrl = await createTestDatabase('after_reset');
      proxy = await faultProxy(Number(new URL(databaseUrl).port));
      a = await startBoard({ agents: AGENTS, databaseUrl: proxy.via(databaseUrl), env: { ROUNDTABLE_LEASE_TTL: '3s' } });
      b = await startBoard({ agents: AGENTS, tokens: a.tokens, databaseUrl });
    });
    afterAll(async () => {
      await Promise.all([a, b].filter(Boolean).map((board) => board.stop().catch(() => null)));
      await proxy?.close();
    });

    const waitingThrough = async (board: TestBoard, name: string) =>
      ((await call(board, 'lead', 'members')).body.members as Array<{ name: string; waiting: boolean }>).find((m) => m.name === name)?.waiting === true;

    it('LISTEN reconnects (a waiter wakes for a task made through another daemon) and the waiting rows keep being renewed', async () => {
      const woken = call(a, 'w1', 'wait_for_activity', { timeout_s: 45, for: ['tasks'] });
      await eventually('w1, parked on A, to be shown waiting through B', () => waitingThrough(b, 'w1'));
      expect(proxy.resetAll()).toBeGreaterThanOrEqual(2);
      const reset = performance.now();
      // A's rows expire EXPIRE_MS after their last renewal: still shown well after that, A renewed them after the reset.
      await sleep(EXPIRE_MS + 2_000);
      expect(await waitingThrough(b, 'w1')).toBe(true);
      const made = await call(b, 'lead', 'create_task', { title: 'made through B after A was reset' });
      expect(made.status).toBe(200);
      const answer = await within('the waiter on A to wake for a task made through B', woken, 10_000);
      console.log(`after a reset, the waiter on A woke ${Math.round(performance.now() - reset)} ms after it (${Math.round(answer.ms)} ms parked)`);
      expect(answer.body).toMatchObject({ reason: 'activity', claimable_tasks: 1 });
      expect(answer.ms).toBeLessThan(40_000);
      expect(crashSigns(a)).toEqual([]);
    }, 60_000);

    it('a stall past the listener heartbeat: the LISTEN connection is cut, reconnects once the network carries again, and wakes waiters as before', async () => {
      const cutLine = 'the database listener connection stopped answering';
      const before = a.output().stderr.split(cutLine).length;
      proxy.stall();
      // A network that drops packets keeps a connection looking open: the heartbeat (5 s, 5 s unanswered) ends it.
      await eventually("A's listener heartbeat to cut the stalled connection", () => a.output().stderr.split(cutLine).length > before, { timeoutMs: 20_000 });
      proxy.restore();
      const restored = performance.now();
      await eventually('A to answer again', async () => (await call(a, 'lead', 'whoami')).status === 200);
      // Messages only: the task the test before made is still there to claim.
      const woken = call(a, 'w1', 'wait_for_activity', { timeout_s: 30, for: ['messages'] });
      await eventually('w1, parked on A, to be shown waiting through B', () => waitingThrough(b, 'w1'));
      // A NOTIFY from B reaches A's new LISTEN connection: the waiter wakes at once, long before its 30 s.
      expect((await call(b, 'lead', 'post', { to: 'w1', text: 'sent through B after the stall' })).status).toBe(200);
      const answer = await within('the waiter on A to wake for a message sent through B', woken, 10_000);
      expect(answer.body).toMatchObject({ reason: 'activity', unread_messages: 1 });
      console.log(`after a stall cut by the heartbeat, a waiter parked on A ${Math.round(performance.now() - restored)} ms after the restore woke for a message sent through B`);
      expect(crashSigns(a)).toEqual([]);
    }, 60_000);

    it("the lease sweep runs after a reset: a claim taken through A lapses on A's own timer", async () => {
      // B stops, so only A's sweep can reopen the claim.
      await b.stop();
      const made = await call(a, 'lead', 'create_task', { title: 'to lapse' });
      const claim = await call(a, 'w2', 'claim_task', { task_id: made.body.task.id });
      expect(claim.status).toBe(200);
      expect(proxy.resetAll()).toBeGreaterThanOrEqual(1);
      const reset = performance.now();
      const sql = connectTo(databaseUrl);
      try {
        await eventually(
          'the claim to lapse and the task to reopen',
          async () => (await sql<Array<{ status: string }>>`SELECT status FROM tasks WHERE id = ${made.body.task.id}`)[0]?.status === 'open',
          { timeoutMs: 15_000 },
        );
        const lapsed = await sql`SELECT 1 FROM activity WHERE task_id = ${made.body.task.id} AND action = 'lease_expired'`;
        expect(lapsed).toHaveLength(1);
      } finally {
        await sql.end({ timeout: 1 });
      }
      console.log(`after a reset, A's sweep reopened a 3 s claim ${Math.round(performance.now() - reset)} ms after the reset`);
      expect(a.process.exitCode).toBeNull();
      expect(crashSigns(a)).toEqual([]);
    }, 60_000);
  });
});
