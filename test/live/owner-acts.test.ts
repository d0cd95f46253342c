// Agents hear of an owner's acts as they hear of the leader's, on both stores: a parked wait_for_activity, the real
// `roundtable-bridge wake` watcher and the real hooks each fire for an owner's new task, rejection and direct message,
// all made through the page. And an owner waiting is woken for what it reviews and for a stranded task.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startBoard, type AgentSpec, type TestBoard } from '../helpers/board.js';
import { BRIDGE_BIN, bridgeEnv } from '../helpers/bridge.js';
import { eventually } from '../helpers/eventually.js';
import { fixture, runHookProcess } from '../helpers/hook.js';
import { pageAction, signInPage, type PageSession } from '../helpers/page-session.js';
import { spawnTracked, stopProcess } from '../helpers/processes.js';
import { describeEachStore } from '../helpers/stores.js';

const AGENTS: AgentSpec[] = [
  { name: 'lead', role: 'leader' },
  { name: 'alice', role: 'owner' },
  { name: 'w1', role: 'worker', skills: ['python'] },
  { name: 'w2', role: 'worker', skills: ['python'] },
  { name: 'w3', role: 'worker', skills: ['python'] },
];
// The wake watcher's command: writes the variables it was given to batch-N.
const RECORD = 'd="$WAKE_OUT"; n="$ROUNDTABLE_WAKE_BATCH"; env > "$d/.tmp-$n" && mv "$d/.tmp-$n" "$d/batch-$n"';

describeEachStore((store) => {
  let board: TestBoard;
  let owner: PageSession;

  beforeAll(async () => {
    board = await startBoard({ store, agents: AGENTS });
    owner = await signInPage(board, 'alice');
  });
  afterAll(async () => {
    await board?.stop();
  });

  async function act(tool: string, args: Record<string, unknown>): Promise<any> {
    const answer = await pageAction(board, owner, tool, args);
    expect(answer.status, `${tool}: ${JSON.stringify(answer.body)}`).toBe(200);
    return answer.body;
  }

  /**
   * Starts a wait and resolves once the daemon shows the agent parked, so an act after it is news to the wait; the
   * wait's answer is in `answer` (an object, since an async function would wait for a promise it returned).
   */
  async function parkedWait(agent: string, args: Record<string, unknown>): Promise<{ answer: Promise<any> }> {
    const answer = api(board, agent, 'wait_for_activity', { timeout_s: 20, ...args }).then((a) => a.body);
    await eventually(`${agent} to be parked in wait_for_activity`, async () => {
      const members = (await api(board, 'lead', 'members')).body.members as Array<{ name: string; waiting: boolean }>;
      return members.find((m) => m.name === agent)?.waiting;
    });
    return { answer };
  }

  it("a parked worker is woken by the owner's new task, rejection and direct message", async () => {
    const forTask = await parkedWait('w1', { for: ['tasks'] });
    const created = await act('create_task', { title: 'for w1', assignee: 'w1' });
    const id = created.task.id as number;
    expect(await forTask.answer).toMatchObject({ reason: 'activity', claimable_tasks: 1 });

    await api(board, 'w1', 'claim_task', { task_id: id });
    await api(board, 'w1', 'submit_result', { task_id: id, result: 'first try' });
    const forReview = await parkedWait('w1', { for: ['reviews'] });
    await act('review_task', { task_id: id, verdict: 'reject', note: 'needs tests' });
    const reviewed = await forReview.answer;
    expect(reviewed.reason).toBe('activity');
    expect(reviewed.reviews).toEqual([expect.objectContaining({ task_id: id, verdict: 'reject', reviewer: 'alice' })]);

    const forMessage = await parkedWait('w1', { for: ['messages'] });
    await act('post', { to: 'w1', text: 'ping from the owner' });
    expect(await forMessage.answer).toMatchObject({ reason: 'activity', unread_messages: 1 });
    await api(board, 'w1', 'read_unread');
    await api(board, 'lead', 'cancel_task', { task_id: id });
  });

  it('a waiting owner is woken by a submission to review and by a task stranded by a cancelled blocker', async () => {
    const id = (await act('create_task', { title: 'to be reviewed', assignee: 'w2' })).task.id as number;
    await api(board, 'w2', 'claim_task', { task_id: id });
    const ownerWait = await parkedWait('alice', { for: ['tasks'] });
    await api(board, 'w2', 'submit_result', { task_id: id, result: 'done' });
    expect(await ownerWait.answer).toMatchObject({ reason: 'activity', to_review: 1 });
    await act('review_task', { task_id: id, verdict: 'approve' });

    const blocker = (await api(board, 'lead', 'create_task', { title: 'blocker' })).body.task.id as number;
    const dependent = (await api(board, 'lead', 'create_task', { title: 'dependent', depends_on: [blocker] })).body.task.id as number;
    const strandedWait = await parkedWait('alice', { for: ['tasks'] });
    await api(board, 'lead', 'cancel_task', { task_id: blocker });
    expect(await strandedWait.answer).toMatchObject({ reason: 'blocker_cancelled', stranded_tasks: [dependent] });
    await act('cancel_task', { task_id: dependent, reason: 'its blocker is gone' });
  });

  it("the wake watcher runs its command for the owner's new task, rejection and direct message", async () => {
    const out = mkdtempSync(join(tmpdir(), 'roundtable-owner-wake-'));
    const wake = spawnTracked(process.execPath, [BRIDGE_BIN, 'wake', '--url', board.url, '--exec', RECORD, '--for', 'tasks,messages,reviews', '--debounce', '0.1', '--recheck', '1'], {
      env: bridgeEnv({ ROUNDTABLE_TOKEN: board.tokens['w3']!, WAKE_OUT: out }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const batch = (n: number) => {
      const file = join(out, `batch-${n}`);
      if (!existsSync(file)) return undefined;
      return Object.fromEntries(readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith('ROUNDTABLE_WAKE_')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    };
    try {
      await eventually('w3 to be parked by its wake watcher', async () =>
        ((await api(board, 'lead', 'members')).body.members as Array<{ name: string; waiting: boolean }>).find((m) => m.name === 'w3')?.waiting,
      );
      const id = (await act('create_task', { title: 'for w3', assignee: 'w3' })).task.id as number;
      expect(await eventually('the run for the new task', () => batch(1))).toMatchObject({ ROUNDTABLE_WAKE_NEW_TASK_IDS: String(id), ROUNDTABLE_WAKE_CLAIMABLE: '1' });

      await api(board, 'w3', 'claim_task', { task_id: id });
      await api(board, 'w3', 'submit_result', { task_id: id, result: 'done' });
      await act('review_task', { task_id: id, verdict: 'reject', note: 'again' });
      expect(await eventually('the run for the rejection', () => batch(2))).toMatchObject({ ROUNDTABLE_WAKE_REVIEWS: '1', ROUNDTABLE_WAKE_REVIEWED_IDS: String(id) });

      await act('post', { to: 'w3', text: 'a word from the owner' });
      expect(await eventually('the run for the direct message', () => batch(3))).toMatchObject({ ROUNDTABLE_WAKE_UNREAD: '1' });
      await api(board, 'lead', 'cancel_task', { task_id: id });
    } finally {
      await stopProcess(wake);
    }
  });

  describe('hooks', () => {
    const hook = (event: string, stateDir: string, args: string[] = []) =>
      runHookProcess({ url: board.url, token: board.tokens['w2']!, client: 'claude-code', event, stdin: fixture('claude-code', event), stateDir, args });

    it("UserPromptSubmit speaks up after the owner's new task and after its rejection; Stop blocks for its direct message", async () => {
      const stateDir = mkdtempSync(join(tmpdir(), 'roundtable-owner-hook-'));
      // The tests before this one leave nothing w2 may claim.
      expect((await api(board, 'w2', 'list_tasks', { claimable_by_me: true })).body.tasks).toEqual([]);
      await hook('SessionStart', stateDir);
      expect((await hook('UserPromptSubmit', stateDir)).stdout).toBe('');

      const id = (await act('create_task', { title: 'for w2', assignee: 'w2' })).task.id as number;
      const afterTask = JSON.parse((await hook('UserPromptSubmit', stateDir)).stdout);
      expect(afterTask.hookSpecificOutput.additionalContext).toMatch(/^Roundtable: you hold no claimed task; 1 task you may claim/);

      await api(board, 'w2', 'claim_task', { task_id: id });
      await api(board, 'w2', 'submit_result', { task_id: id, result: 'done' });
      // The prompt after the claim sees nothing new to speak of (only less), but keeps what it saw.
      expect((await hook('UserPromptSubmit', stateDir)).code).toBe(0);
      await act('review_task', { task_id: id, verdict: 'reject', note: 'again, please' });
      const afterReject = JSON.parse((await hook('UserPromptSubmit', stateDir)).stdout);
      expect(afterReject.hookSpecificOutput.additionalContext).toMatch(/1 task you may claim/);

      expect((await hook('Stop', stateDir)).stdout).toBe('');
      await act('post', { to: 'w2', text: 'stop and read this' });
      const stop = JSON.parse((await hook('Stop', stateDir)).stdout);
      expect(stop.decision).toBe('block');
      expect(stop.reason).toContain('You have 1 unread room message: call read_unread.');
      expect(JSON.stringify(stop)).not.toContain('stop and read this');
    });
  });
});
