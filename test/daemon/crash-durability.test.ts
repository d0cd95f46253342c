// Crash durability: writers on both faces, the real daemon SIGKILLed at seeded random moments, every acknowledged write kept.
import { randomInt } from 'node:crypto';
import Database from 'better-sqlite3';
import type { Client } from '@modelcontextprotocol/client';
import { expect, it } from 'vitest';
import { api, mcpClient, resultJson, startBoard, type TestBoard } from '../helpers/board.js';
import { eventually, sleep } from '../helpers/eventually.js';

/** Set ROUNDTABLE_CRASH_SEED to replay a run; the seed of every run is printed and named in each failure. */
const SEED = Number(process.env['ROUNDTABLE_CRASH_SEED'] ?? randomInt(2 ** 31));
const ROUNDS = 5;

/** mulberry32: a tiny seeded PRNG, so the kill points of a run can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A tool call through one face: the answer of a successful call, a refusal, or a throw when no whole answer came. */
type Answer = { ok: true; body: Record<string, any> } | { ok: false; detail: string };
type Face = (tool: string, args: Record<string, unknown>) => Promise<Answer>;

function apiFace(board: TestBoard, agent: string): Face {
  return async (tool, args) => {
    const answer = await api(board, agent, tool, args);
    return answer.status === 200 ? { ok: true, body: answer.body } : { ok: false, detail: `HTTP ${answer.status} ${JSON.stringify(answer.body)}` };
  };
}

function mcpFace(client: Client): Face {
  return async (tool, args) => {
    const result = await client.callTool({ name: tool, arguments: args }, { timeout: 15_000 });
    return result.isError ? { ok: false, detail: JSON.stringify(result.content) } : { ok: true, body: resultJson(result) };
  };
}

/** Everything the board acknowledged, across all rounds: each must be found after every restart. */
const acked = {
  tasks: new Map<number, string>(),
  claims: new Map<number, string>(),
  submitted: new Map<number, string>(),
  approved: new Set<number>(),
  messages: [] as Array<{ taskId: number; text: string }>,
  room: [] as Array<{ id: number; text: string }>,
};
/** Work handed between writers: acknowledged open tasks to claim, acknowledged submissions to review. */
const toClaim: number[] = [];
const toReview: number[] = [];
const STATUS_RANK: Record<string, number> = { open: 0, claimed: 1, submitted: 2, done: 3 };

interface Round {
  readonly number: number;
  killSent: boolean;
  acks: number;
  /** Calls that got no whole answer because of the kill: writes in flight at that moment. */
  cutOff: number;
  /** Refusals and failures before the kill: the workload itself must run clean. */
  surprises: string[];
}

async function attempt(round: Round, face: Face, tool: string, args: Record<string, unknown>): Promise<Record<string, any> | undefined> {
  try {
    const answer = await face(tool, args);
    if (answer.ok) {
      round.acks++;
      return answer.body;
    }
    if (!round.killSent) round.surprises.push(`${tool} refused: ${answer.detail}`);
  } catch (error) {
    if (!round.killSent) round.surprises.push(`${tool} failed: ${String(error)}`);
    else round.cutOff++;
  }
  return undefined;
}

/** The leader on one face: creates tasks, posts to the room, approves submissions. */
async function leader(round: Round, face: Face, label: string): Promise<void> {
  for (let i = 0; !round.killSent; i++) {
    const title = `r${round.number} ${label} task ${i}`;
    const created = await attempt(round, face, 'create_task', { title, description: 'd'.repeat(500) });
    if (created) {
      acked.tasks.set(created['task'].id, title);
      toClaim.push(created['task'].id);
    }
    if (i % 3 === 2) {
      const text = `r${round.number} ${label} room ${i}`;
      const posted = await attempt(round, face, 'post', { to: 'all', text });
      if (posted) acked.room.push({ id: posted['message'].id, text });
    }
    const review = toReview.shift();
    if (review !== undefined && (await attempt(round, face, 'review_task', { task_id: review, verdict: 'approve' }))) acked.approved.add(review);
  }
}

/** A worker on one face: claims, reports progress, and submits about half of what it claims. */
async function worker(round: Round, face: Face, agent: string, random: () => number): Promise<void> {
  while (!round.killSent) {
    const id = toClaim.shift();
    if (id === undefined) {
      await sleep(5); // nothing to claim yet: a short pause between polls of the in-test queue
      continue;
    }
    if (!(await attempt(round, face, 'claim_task', { task_id: id }))) continue;
    acked.claims.set(id, agent);
    const text = `r${round.number} ${agent} progress on ${id}`;
    if (await attempt(round, face, 'post_message', { task_id: id, kind: 'progress', text })) acked.messages.push({ taskId: id, text });
    if (random() < 0.5) {
      const result = `r${round.number} ${agent} result for ${id}`;
      if (await attempt(round, face, 'submit_result', { task_id: id, result })) {
        acked.submitted.set(id, result);
        toReview.push(id);
      }
    }
  }
}

/** Looks up every acknowledged write in the database file (read-only) and checks the rows that must come with each task. */
function checkDatabase(path: string, when: string): void {
  const where = `${when}, seed ${SEED}`;
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const task = db.prepare('SELECT title, status, assignee, result FROM tasks WHERE id = ?');
    const titled = db.prepare('SELECT COUNT(*) FROM tasks WHERE title = ?').pluck();
    for (const [id, title] of acked.tasks) {
      const row = task.get(id) as { title: string; status: string; assignee: string | null; result: string | null } | undefined;
      expect(row?.title, `acknowledged task ${id} (${where})`).toBe(title);
      expect(titled.get(title), `task "${title}" written once (${where})`).toBe(1);
    }
    for (const [id, agent] of acked.claims) {
      const row = task.get(id) as { status: string; assignee: string | null };
      expect(row.assignee, `acknowledged claim of ${id} by ${agent} (${where})`).toBe(agent);
      expect(STATUS_RANK[row.status], `task ${id} is ${row.status} after an acknowledged claim (${where})`).toBeGreaterThanOrEqual(STATUS_RANK['claimed']!);
    }
    for (const [id, result] of acked.submitted) {
      const row = task.get(id) as { status: string; result: string | null };
      expect(row.result, `acknowledged result of ${id} (${where})`).toBe(result);
      expect(STATUS_RANK[row.status], `task ${id} is ${row.status} after an acknowledged submit (${where})`).toBeGreaterThanOrEqual(STATUS_RANK['submitted']!);
    }
    for (const id of acked.approved) expect((task.get(id) as { status: string }).status, `acknowledged approval of ${id} (${where})`).toBe('done');
    const message = db.prepare('SELECT COUNT(*) FROM messages WHERE task_id = ? AND text = ?').pluck();
    for (const m of acked.messages) expect(message.get(m.taskId, m.text), `acknowledged message "${m.text}" (${where})`).toBe(1);
    const room = db.prepare('SELECT text FROM room_messages WHERE id = ?').pluck();
    for (const m of acked.room) expect(room.get(m.id), `acknowledged room message ${m.id} (${where})`).toBe(m.text);

    // Every task on the board, acknowledged or not, came with its history and audit rows in the same transaction.
    const withoutCreated = db
      .prepare("SELECT id FROM tasks t WHERE NOT EXISTS (SELECT 1 FROM activity a WHERE a.task_id = t.id AND a.action = 'created')")
      .pluck()
      .all();
    expect(withoutCreated, `tasks without a created activity row (${where})`).toEqual([]);
    const withoutAudit = db
      .prepare(
        "SELECT id FROM tasks t WHERE NOT EXISTS (SELECT 1 FROM audit_log l WHERE l.task_id = t.id AND l.tool = 'create_task' AND l.outcome = 'ok')",
      )
      .pluck()
      .all();
    expect(withoutAudit, `tasks without an ok create_task audit row (${where})`).toEqual([]);
    const claimedWithoutHistory = db
      .prepare("SELECT id FROM tasks t WHERE status <> 'open' AND NOT EXISTS (SELECT 1 FROM activity a WHERE a.task_id = t.id AND a.action = 'claimed')")
      .pluck()
      .all();
    expect(claimedWithoutHistory, `claimed tasks without a claimed activity row (${where})`).toEqual([]);
  } finally {
    db.close();
  }
}

it(`keeps every acknowledged write through ${ROUNDS} SIGKILLs under load on both faces`, async () => {
  console.log(`crash-durability: seed ${SEED} (ROUNDTABLE_CRASH_SEED=${SEED} replays the kill points)`);
  const random = prng(SEED);
  const env = { ROUNDTABLE_BACKUP_INTERVAL: '0' };
  let board = await startBoard({ env });
  const { dir, tokens } = board;
  const started = Date.now();
  const perRound: string[] = [];
  let cutOff = 0;
  let stopCode: number | null = null;
  try {
    for (let number = 1; number <= ROUNDS; number++) {
      const round: Round = { number, killSent: false, acks: 0, cutOff: 0, surprises: [] };
      const leadMcp = await mcpClient(board, 'lead');
      const w2Mcp = await mcpClient(board, 'w2');
      const writers = [
        leader(round, apiFace(board, 'lead'), 'api'),
        leader(round, mcpFace(leadMcp), 'mcp'),
        worker(round, apiFace(board, 'w1'), 'w1', prng(SEED + number)),
        worker(round, mcpFace(w2Mcp), 'w2', prng(SEED - number)),
      ];
      // A random moment: after a random number of acknowledged writes, plus a random few milliseconds.
      const target = 40 + Math.floor(random() * 120);
      const jitterMs = Math.floor(random() * 25);
      try {
        await eventually(`${target} acknowledged writes in round ${number} (seed ${SEED})`, () => round.acks >= target || round.surprises.length > 0, {
          intervalMs: 2,
        });
        expect(round.surprises, `round ${number}, seed ${SEED}`).toEqual([]);
        await sleep(jitterMs);
        round.killSent = true;
        await board.stop('SIGKILL');
      } finally {
        // On a failure too: the writers stop after their call in flight, so none is left running.
        round.killSent = true;
        await Promise.all(writers);
        await Promise.all([leadMcp.close(), w2Mcp.close()]);
      }
      expect(round.surprises, `round ${number}, seed ${SEED}`).toEqual([]);
      cutOff += round.cutOff;
      perRound.push(`round ${number}: killed after ${round.acks} acknowledged writes (target ${target}, +${jitterMs} ms), ${round.cutOff} cut off`);

      board = await startBoard({ dir, tokens, env });
      checkDatabase(board.dbPath, `after restart ${number}`);
      // The restarted daemon serves what it acknowledged before the kill, on both faces.
      const newest = Math.max(...acked.tasks.keys());
      expect((await api(board, 'w3', 'get_task', { task_id: newest })).body.task.title).toBe(acked.tasks.get(newest));
      const reader = await mcpClient(board, 'w3');
      try {
        expect(resultJson(await reader.callTool({ name: 'get_task', arguments: { task_id: newest } })).task.title).toBe(acked.tasks.get(newest));
      } finally {
        await reader.close();
      }
    }
  } finally {
    // Not asserted here, so a failure above is the one reported; a board already killed answers null.
    stopCode = await board.stop('SIGTERM');
  }
  expect(stopCode, 'the last daemon stops cleanly on SIGTERM').toBe(0);
  const db = new Database(board.dbPath, { readonly: true, fileMustExist: true });
  try {
    expect(db.pragma('integrity_check', { simple: true }), `seed ${SEED}`).toBe('ok');
  } finally {
    db.close();
  }
  checkDatabase(board.dbPath, 'after the last clean stop');
  // Real coverage, not a vacuous pass: both faces wrote, and every kind of write was acknowledged.
  expect(acked.tasks.size).toBeGreaterThan(ROUNDS * 10);
  expect(cutOff, 'writes in flight when the daemon was killed').toBeGreaterThan(0);
  expect([...acked.tasks.values()].some((t) => t.includes(' api '))).toBe(true);
  expect([...acked.tasks.values()].some((t) => t.includes(' mcp '))).toBe(true);
  expect(new Set(acked.claims.values())).toEqual(new Set(['w1', 'w2']));
  expect(acked.messages.length).toBeGreaterThan(0);
  expect(acked.submitted.size).toBeGreaterThan(0);
  expect(acked.room.length).toBeGreaterThan(0);
  console.log(
    `crash-durability: seed ${SEED}, ${Date.now() - started} ms; ${perRound.join('; ')}; acknowledged ${acked.tasks.size} tasks, ` +
      `${acked.claims.size} claims, ${acked.submitted.size} results, ${acked.approved.size} approvals, ${acked.messages.length} task messages, ${acked.room.length} room posts`,
  );
});
