// The shipped nginx config in front of three daemons on one PostgreSQL board (deploy/nginx/roundtable-several-daemons.conf,
// DEPLOY §15): one daemon is killed with SIGKILL under write load from the real bridge and from the MCP SDK client.
// Both keep working through the other two, every write that was answered with success is in the database, nothing
// is half-written, failures in the kill window are clear errors (never hangs), and a wait parked on the killed
// daemon comes back through another.
//
// Needs nginx (skipped without it, unless ROUNDTABLE_REQUIRE_NGINX=1) and PostgreSQL (ROUNDTABLE_TEST_PG_URL;
// skipped without it, unless ROUNDTABLE_REQUIRE_POSTGRES=1).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, mcpClient, resultJson, startDaemons, type AgentSpec, type TestBoard } from '../helpers/board.js';
import { bridgeEnv, startBridge, type BridgeSession } from '../helpers/bridge.js';
import { eventually, sleep, within } from '../helpers/eventually.js';
import { HOST, nginxTestsRun, resolveBoardNameHere, startNginx, type TestNginx } from '../helpers/nginx.js';
import { connectTo, PG_SKIP_REASON } from '../helpers/postgres.js';

const RUN = nginxTestsRun('nginx failover test') && !PG_SKIP_REASON;

const AGENTS: AgentSpec[] = [
  { name: 'lead', role: 'leader' },
  { name: 'w1', role: 'worker', skills: ['load'] },
  // Waits for tasks it may claim; the load's tasks need a skill it lacks, so only the test's last task wakes it.
  { name: 'waiter', role: 'worker', skills: ['wake'] },
  { name: 'sleeper', role: 'worker' },
  // Parks one wait on each daemon in turn, to learn which row of waiting_agents is whose.
  { name: 'probe', role: 'worker' },
];
/** Successful calls each client makes before the kill, and must make after it. */
const BEFORE_KILL = 10;
const AFTER_KILL = 20;
/** Writers per client, so that calls are in flight on the daemon when it dies. */
const LOOPS = 2;
/** A call not answered within this is a hang (a failure of the test), not a clear error. */
const CALL_DEADLINE_MS = 20_000;

type Who = 'bridge' | 'sdk';
interface Call {
  readonly who: Who;
  readonly tool: string;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly ok: boolean;
  readonly error?: string;
  readonly hang?: boolean;
}

describe.runIf(RUN)('nginx in front of three daemons: one is killed under write load', () => {
  let boards: TestBoard[] = [];
  let nginx: TestNginx;
  let sdk: Client | undefined;
  const bridges: BridgeSession[] = [];

  /** Each daemon's id in waiting_agents, to its board. */
  const daemonOf = new Map<string, TestBoard>();
  const NOW_MS = 'EXTRACT(EPOCH FROM clock_timestamp()) * 1000';

  beforeAll(async () => {
    boards = await startDaemons(3, { agents: AGENTS, label: 'failover', env: { ROUNDTABLE_ALLOWED_HOSTS: HOST, ROUNDTABLE_TRUST_PROXY: 'true' } });
    nginx = await startNginx({ daemonPorts: boards.map((b) => b.port) });
    resolveBoardNameHere(nginx);
    // `members` through any daemon shows waits parked on all of them (they share waiting_agents), so which daemon holds
    // a wait is read from that table: a probe wait parked straight on each daemon tells its id.
    const sql = connectTo(boards[0]!.databaseUrl!);
    try {
      for (const board of boards) {
        const probe = api(board, 'probe', 'wait_for_activity', { timeout_s: 30, for: ['messages'] });
        const known = [...daemonOf.keys()];
        const row = await eventually(`the probe's wait on the daemon at port ${board.port} in waiting_agents`, async () => {
          const rows = await sql.unsafe<Array<{ daemon_id: string }>>(
            `SELECT daemon_id FROM waiting_agents WHERE agent = 'probe' AND expires_ms > ${NOW_MS} AND daemon_id <> ALL($1::text[])`,
            [known],
          );
          return rows[0];
        });
        daemonOf.set(row.daemon_id, board);
        expect((await api(board, 'lead', 'post', { to: 'probe', text: 'seen' })).status).toBe(200);
        expect((await probe).body.reason).toBe('activity');
        // Read, so the next probe parks instead of answering at once with this message pending.
        expect((await api(board, 'probe', 'read_unread')).status).toBe(200);
      }
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  afterAll(async () => {
    await sdk?.close();
    for (const bridge of bridges) await bridge.close();
    await nginx?.stop();
    await Promise.all(boards.map((b) => b.stop()));
  });

  const alive = () => boards.filter((b) => b.process.exitCode === null && b.process.signalCode === null);
  const bridgeFor = async (agent: string, ...args: string[]) => {
    const bridge = await startBridge({
      args: ['--url', nginx.url, '--ca', nginx.cert, ...args],
      env: bridgeEnv({ ROUNDTABLE_TOKEN: boards[0]!.tokens[agent]!, NODE_OPTIONS: `--require ${JSON.stringify(nginx.resolverPreload)}` }),
    });
    bridges.push(bridge);
    return bridge;
  };
  /** The daemon among `candidates` on which `agent` has a wait parked, from the daemons' rows in waiting_agents. */
  const waitingOn = async (candidates: TestBoard[], agent: string) => {
    const sql = connectTo(boards[0]!.databaseUrl!);
    try {
      const rows = await sql.unsafe<Array<{ daemon_id: string }>>(`SELECT daemon_id FROM waiting_agents WHERE agent = $1 AND expires_ms > ${NOW_MS}`, [agent]);
      return candidates.find((board) => rows.some((r) => daemonOf.get(r.daemon_id) === board));
    } finally {
      await sql.end({ timeout: 1 });
    }
  };

  it('the bridge and the SDK client keep working through the others, and no acknowledged write is lost', async () => {
    const databaseUrl = boards[0]!.databaseUrl!;
    const proxy = nginx;
    sdk = await mcpClient({ url: proxy.url, tokens: boards[0]!.tokens }, 'w1', { caFile: proxy.cert });
    const sdkClient = sdk;
    const lead = await bridgeFor('lead');
    const waiter = await bridgeFor('waiter');

    // A wait through the bridge, parked on one daemon: that daemon is the one to die.
    const woken = waiter.client.callTool({ name: 'wait_for_activity', arguments: { timeout_s: 45, for: ['tasks'] } }, { timeout: 120_000 });
    const victim = await eventually('the waiter to be parked on a daemon', () => waitingOn(boards, 'waiter'));
    const survivors = boards.filter((b) => b !== victim);

    // The load: the bridge (leader) creates tasks and posts a note on each; the SDK client (worker) claims them and
    // posts progress, or posts in the room while none is waiting. Every answered write is noted, to be looked up.
    const calls: Call[] = [];
    const acked = {
      tasks: new Map<number, string>(),
      claims: [] as Array<{ taskId: number; claimId: number }>,
      messages: [] as Array<{ id: number; taskId: number; text: string }>,
      room: [] as Array<{ id: number; text: string }>,
    };
    const toClaim: number[] = [];
    let stopping = false;

    const record = async (who: Who, tool: string, args: Record<string, unknown>, deadlineMs = CALL_DEADLINE_MS): Promise<any> => {
      const startedAt = performance.now();
      const what = `${who} ${tool}`;
      let outcome: Pick<Call, 'ok' | 'error' | 'hang'>;
      let output: any;
      try {
        const options = { timeout: deadlineMs + 10_000 };
        const answer = who === 'bridge' ? lead.client.callTool({ name: tool, arguments: args }, options) : sdkClient.callTool({ name: tool, arguments: args }, options);
        const result = await within(what, answer, deadlineMs);
        if (result.isError) outcome = { ok: false, error: JSON.stringify(result.content) };
        else {
          output = resultJson(result);
          outcome = { ok: true };
        }
      } catch (error) {
        const message = String((error as Error)?.message ?? error);
        outcome = { ok: false, error: message, hang: message.startsWith(`${what} did not happen within`) };
      }
      calls.push({ who, tool, startedAt, endedAt: performance.now(), ...outcome });
      return outcome.ok ? output : undefined;
    };

    const bridgeWriter = async (loop: number) => {
      for (let i = 0; !stopping; i++) {
        const title = `bridge ${loop}.${i}`;
        const created = await record('bridge', 'create_task', { title, required_skills: ['load'] });
        if (!created) continue;
        const taskId = created.task.id as number;
        acked.tasks.set(taskId, title);
        toClaim.push(taskId);
        const text = `note on ${title}`;
        const note = await record('bridge', 'post_message', { task_id: taskId, kind: 'note', text });
        if (note) acked.messages.push({ id: note.message.id, taskId, text });
      }
    };
    const sdkWriter = async (loop: number) => {
      for (let i = 0; !stopping; i++) {
        const taskId = toClaim.shift();
        if (taskId === undefined) {
          const text = `sdk ${loop}.${i} in the room`;
          const posted = await record('sdk', 'post', { to: 'lead', text });
          if (posted) acked.room.push({ id: posted.message.id, text });
          continue;
        }
        const claimed = await record('sdk', 'claim_task', { task_id: taskId });
        if (!claimed) continue;
        const claimId = claimed.task.claim_id as number;
        acked.claims.push({ taskId, claimId });
        const text = `sdk ${loop}.${i} progress`;
        const progress = await record('sdk', 'post_message', { task_id: taskId, kind: 'progress', text, claim_id: claimId });
        if (progress) acked.messages.push({ id: progress.message.id, taskId, text });
      }
    };
    const successes = (who: Who, since = 0) => calls.filter((c) => c.who === who && c.ok && c.startedAt >= since).length;

    // The SDK client's own long polls (w1 waits for room messages, which only the test sends it), started until one
    // is parked on the daemon that will die: that call is sure to be cut off, the SDK client sees the 502.
    const sdkWaits: Array<Promise<unknown>> = [];
    await eventually(
      'an SDK wait parked on the same daemon',
      async () => {
        if (await waitingOn([victim], 'w1')) return true;
        if (sdkWaits.length < 6) sdkWaits.push(record('sdk', 'wait_for_activity', { timeout_s: 45, for: ['messages'] }, 60_000));
        return false;
      },
      { intervalMs: 300 },
    );
    const writers = Array.from({ length: LOOPS }, (_, loop) => [bridgeWriter(loop), sdkWriter(loop)]).flat();

    let killedAt = 0;
    let parkedAgainAt = 0;
    let probedAt = 0;
    const nginxSaw = (board: TestBoard, text: string) =>
      readFileSync(join(proxy.logs, 'roundtable.error.log'), 'utf8')
        .split('\n')
        .filter((line) => line.includes(`127.0.0.1:${board.port}`) && line.includes(text)).length;
    try {
      await eventually('both clients writing', () => successes('bridge') >= BEFORE_KILL && successes('sdk') >= BEFORE_KILL);
      killedAt = performance.now();
      await victim.stop('SIGKILL');
      await eventually(`${AFTER_KILL} successful calls of each client after the kill`, () => successes('bridge', killedAt) >= AFTER_KILL && successes('sdk', killedAt) >= AFTER_KILL, {
        timeoutMs: 30_000,
      });

      // The wait that was parked on the killed daemon: the bridge retried it, and it is parked on a survivor now.
      await eventually('the waiter to wait again on a surviving daemon', () => waitingOn(survivors, 'waiter'));
      parkedAgainAt = performance.now();
      expect((await api(survivors[0]!, 'lead', 'create_task', { title: 'wake up', required_skills: ['wake'] })).status).toBe(200);
      const wake = resultJson(await within('the waiter to wake', woken, 15_000));
      expect(wake).toMatchObject({ reason: 'activity', claimable_tasks: 1 });

      // fail_timeout after the kill, nginx tries the dead daemon again with a live request: the connection is
      // refused, so the request never reached it and nginx passes it on, POST or not. No client sees that.
      await eventually('nginx to try the dead daemon again', () => nginxSaw(victim, 'Connection refused') > 0, { timeoutMs: 20_000 });
      probedAt = performance.now();
      await eventually('calls answered after that', () => successes('bridge', probedAt) >= 5 && successes('sdk', probedAt) >= 5);

      // The SDK client's waits on the survivors are still parked; a message for w1 ends them.
      expect((await api(survivors[1]!, 'lead', 'post', { to: 'w1', text: 'wake up' })).status).toBe(200);
      await Promise.all(sdkWaits);
    } finally {
      stopping = true;
      await Promise.all(writers);
    }

    // Failures: none before the kill; the bridge none at all (it retries a 502 under the same idempotency key); the
    // SDK client only clear gateway errors for calls that were under way as the daemon died; no hangs.
    const failures = calls.filter((c) => !c.ok);
    expect(failures.filter((c) => c.hang), 'calls that hung').toEqual([]);
    expect(failures.filter((c) => c.endedAt < killedAt), 'failures before the kill').toEqual([]);
    expect(failures.filter((c) => c.who === 'bridge'), 'failed bridge calls').toEqual([]);
    // Under way as the daemon died: sent before the kill, or within moments of it (nginx reusing a kept-alive
    // connection to it before it noticed the connection closed); a loaded machine gets 2 s for that.
    expect(failures.filter((c) => c.startedAt > killedAt + 2000), 'failures of calls made well after the kill').toEqual([]);
    for (const failure of failures) expect(failure.error, JSON.stringify(failure)).toMatch(/HTTP 50[234]\b|Bad Gateway/);
    // The SDK client's wait on the killed daemon came back as a 502; its next calls went through (it needs no new session:
    // /mcp is stateless).
    const cutOff = failures.filter((c) => c.who === 'sdk' && c.tool === 'wait_for_activity');
    expect(cutOff.length, 'SDK waits cut off with the killed daemon').toBeGreaterThanOrEqual(1);
    expect(calls.filter((c) => c.who === 'sdk' && c.tool === 'wait_for_activity' && c.ok)).toHaveLength(sdkWaits.length - cutOff.length);
    const lastFailure = Math.max(...failures.map((c) => c.endedAt));
    expect(successes('sdk', lastFailure), 'SDK calls after its last failure').toBeGreaterThanOrEqual(AFTER_KILL);

    // (a) Every acknowledged write is on the board: through a surviving daemon, and in the database.
    for (const [taskId, title] of acked.tasks) {
      const { task, messages } = (await api(survivors[taskId % 2]!, 'lead', 'get_task', { task_id: taskId, messages_limit: 50 })).body;
      expect(task.title).toBe(title);
      for (const m of acked.messages.filter((m) => m.taskId === taskId)) {
        expect(messages.map((x: { id: number }) => x.id), `message ${m.id} on task ${taskId}`).toContain(m.id);
      }
    }
    const sql = connectTo(databaseUrl);
    try {
      const tasks = await sql<Array<{ id: number; title: string }>>`SELECT id, title FROM tasks`;
      const titles = new Map(tasks.map((t) => [t.id, t.title]));
      for (const [taskId, title] of acked.tasks) expect(titles.get(taskId), `task ${taskId}`).toBe(title);
      // A bridge retry after a 502 was applied once: no title twice.
      const bridgeTitles = tasks.map((t) => t.title).filter((t) => t.startsWith('bridge '));
      expect(new Set(bridgeTitles).size).toBe(bridgeTitles.length);
      const claims = await sql<Array<{ id: number; task_id: number; agent: string }>>`SELECT id, task_id, agent FROM claims`;
      for (const { taskId, claimId } of acked.claims) expect(claims, `claim ${claimId}`).toContainEqual({ id: claimId, task_id: taskId, agent: 'w1' });
      const messages = await sql<Array<{ id: number; task_id: number; text: string }>>`SELECT id, task_id, text FROM messages`;
      for (const m of acked.messages) expect(messages, `message ${m.id}`).toContainEqual({ id: m.id, task_id: m.taskId, text: m.text });
      const room = await sql<Array<{ id: number; text: string }>>`SELECT id, text FROM room_messages`;
      for (const m of acked.room) expect(room, `room message ${m.id}`).toContainEqual({ id: m.id, text: m.text });

      // (c) Nothing half-written, acknowledged or not: each change has its history and its audit row, from one transaction.
      const perTask = await sql<Array<{ id: number; created: number; created_audit: number; claims: number; claimed: number; claim_audit: number; messages: number; message_audit: number }>>`
        SELECT t.id,
          (SELECT count(*) FROM activity a WHERE a.task_id = t.id AND a.action = 'created')::int AS created,
          (SELECT count(*) FROM audit_log l WHERE l.task_id = t.id AND l.tool = 'create_task' AND l.outcome = 'ok')::int AS created_audit,
          (SELECT count(*) FROM claims c WHERE c.task_id = t.id)::int AS claims,
          (SELECT count(*) FROM activity a WHERE a.task_id = t.id AND a.action = 'claimed')::int AS claimed,
          (SELECT count(*) FROM audit_log l WHERE l.task_id = t.id AND l.tool = 'claim_task' AND l.outcome = 'ok')::int AS claim_audit,
          (SELECT count(*) FROM messages m WHERE m.task_id = t.id)::int AS messages,
          (SELECT count(*) FROM audit_log l WHERE l.task_id = t.id AND l.tool = 'post_message' AND l.outcome = 'ok')::int AS message_audit
        FROM tasks t`;
      for (const row of perTask) {
        expect(row, `task ${row.id}`).toMatchObject({ created: 1, created_audit: 1, claimed: row.claims, claim_audit: row.claims, message_audit: row.messages });
      }
      const [roomCounts] = await sql<Array<{ rows: number; audit: number }>>`
        SELECT (SELECT count(*) FROM room_messages)::int AS rows, (SELECT count(*) FROM audit_log WHERE tool = 'post' AND outcome = 'ok')::int AS audit`;
      expect(roomCounts!.audit).toBe(roomCounts!.rows);
    } finally {
      await sql.end();
    }

    // The figures, for docs/DEPLOY.md §15: calls, failures in the kill window, and what nginx saw of the dead daemon.
    const summary = {
      calls: { bridge: calls.filter((c) => c.who === 'bridge').length, sdk: calls.filter((c) => c.who === 'sdk').length },
      after_kill: { bridge: successes('bridge', killedAt), sdk: successes('sdk', killedAt) },
      failures: failures.map((c) => ({ who: c.who, tool: c.tool, started_ms_after_kill: Math.round(c.startedAt - killedAt), error: c.error?.slice(0, 80) })),
      acked: { tasks: acked.tasks.size, claims: acked.claims.length, messages: acked.messages.length, room: acked.room.length },
      nginx_on_the_dead_daemon: {
        refused: nginxSaw(victim, 'Connection refused'),
        closed_in_flight: nginxSaw(victim, 'prematurely closed'),
        disabled: nginxSaw(victim, 'temporarily disabled'),
      },
      waiter_parked_again_ms_after_kill: Math.round(parkedAgainAt - killedAt),
      tried_again_ms_after_kill: Math.round(probedAt - killedAt),
    };
    console.info(`nginx failover: ${JSON.stringify(summary)}`);
  });

  it('a wait cut off by the death of its daemon, retried through another, still ends by its own timeout_s', async () => {
    const timeoutS = 10;
    // The bridge's deadline for a wait is timeout_s plus --timeout; a retry that waited the whole timeout_s again
    // would run past it, and the agent would get an error instead of its answer.
    const sleeper = await bridgeFor('sleeper', '--timeout', '4');
    const startedAt = performance.now();
    const answer = sleeper.client.callTool({ name: 'wait_for_activity', arguments: { timeout_s: timeoutS, for: ['reviews'] } }, { timeout: 60_000 });
    const parkedOn = await eventually('the sleeper to be parked on a daemon', () => waitingOn(alive(), 'sleeper'));
    // The daemon dies well into the wait (6 s of 10): the moment is the point of the test, not a wait for a condition.
    await sleep(Math.max(0, startedAt + 6000 - performance.now()));
    await parkedOn.stop('SIGKILL');
    const result = await within('the wait to end', answer, 30_000);
    const elapsedS = (performance.now() - startedAt) / 1000;
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(resultJson(result)).toMatchObject({ reason: 'timeout' });
    // It ended by the wait's own timeout (a loaded machine may add a little), not timeout_s after the retry.
    expect(elapsedS).toBeLessThan(timeoutS + 4);
  });
});
