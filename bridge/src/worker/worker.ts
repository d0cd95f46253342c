// The model worker's loop: claim what the board says it may, ask the model, submit or release; never more than asked.
import { randomUUID } from 'node:crypto';
import { LIMITS, type Task, type TaskSummary } from 'roundtable-shared';
import { BoardRefusal, type BoardClient } from '../board-client.js';
import { BridgeError, isUnsettled } from '../errors.js';
import { log } from '../log.js';
import type { WorkerConfig } from './config.js';
import { FailureBook } from './failures.js';
import { askModel, ModelFailure } from './model.js';
import { taskMessages, titleForLog } from './prompt.js';
import { HourlyQuota } from './quota.js';

const LEASE_RENEW_MS = 10_000;
const PAGE = 100;

export class WorkerStartError extends Error {}

function describe(error: unknown): string {
  if (error instanceof BoardRefusal) return `the board refused a call (${error.body.error.code}): ${error.body.error.message}`;
  if (error instanceof BridgeError) return `${error.message}. ${error.fix}`;
  return `unexpected error: ${String((error as Error)?.message ?? error)}`;
}

export interface WorkerOptions {
  readonly config: WorkerConfig;
  readonly client: BoardClient;
}

export class ModelWorker {
  private readonly instanceId = randomUUID();
  private readonly quota: HourlyQuota;
  private readonly failures: FailureBook;
  /** The board's change cursor from the last wait: the next one is answered only for what is newer. */
  private changeCursor: string | undefined;
  private readonly stopper = new AbortController();
  private name = '';
  private renewTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: WorkerOptions) {
    this.quota = new HourlyQuota(options.config.maxCallsPerHour);
    this.failures = new FailureBook({ cooldownMs: options.config.cooldownMs, maxFailures: options.config.maxFailures });
  }

  private get client(): BoardClient {
    return this.options.client;
  }

  /** Asks the loop to stop; a model call in progress is cancelled and its task released. */
  stop(): void {
    this.stopper.abort();
  }

  async run(): Promise<void> {
    await this.start();
    try {
      while (!this.stopper.signal.aborted) {
        try {
          await this.step();
        } catch (error) {
          if (this.stopper.signal.aborted) break;
          // The board is down, rate-limiting, or said no: say so, wait, and look again.
          log.warn(`${describe(error)}; trying again in ${Math.round(this.options.config.pollIntervalMs / 1000)} s`);
          await this.sleep(this.options.config.pollIntervalMs);
        }
      }
    } finally {
      clearInterval(this.renewTimer);
      await this.client.releaseInstance(this.instanceId).catch(() => undefined);
    }
  }

  private async start(): Promise<void> {
    const me = await this.client.callTool('whoami', {});
    if (me['role'] !== 'worker') {
      throw new WorkerStartError(`this token belongs to ${String(me['name'])}, the ${String(me['role'])}; the worker needs a worker's token`);
    }
    this.name = String(me['name']);
    try {
      await this.client.acquireInstance(this.instanceId);
    } catch (error) {
      if (error instanceof BoardRefusal && error.body.error.code === 'conflict') throw new WorkerStartError(error.body.error.message);
      throw error;
    }
    this.renewTimer = setInterval(() => void this.renewLease(), LEASE_RENEW_MS);
    log.info(`started as ${this.name} (skills: ${(me['skills'] as string[]).join(', ') || 'none'}), instance ${this.instanceId.slice(0, 8)}`);
    // A task still claimed under this name was left by an earlier run that died: nobody is working on it.
    for (const task of await this.allTasks({ status: 'claimed', assignee: this.name })) {
      await this.change('release_task', { task_id: task.id, ...(task.claim_id !== null && { claim_id: task.claim_id }) });
      log.info(`released task ${task.id}, left claimed by an earlier run`);
    }
  }

  private async renewLease(): Promise<void> {
    try {
      await this.client.acquireInstance(this.instanceId);
    } catch (error) {
      if (error instanceof BoardRefusal && error.body.error.code === 'conflict') {
        log.error(`another process took over ${this.name}'s token; stopping`);
        this.stop();
      } else {
        log.warn(`could not renew the instance lease: ${String((error as Error).message)}`);
      }
    }
  }

  private async step(): Promise<void> {
    const wait = this.quota.waitMs();
    if (wait > 0) {
      log.info(`quota wait: ${this.quota.used} model calls in the last hour (limit ${this.options.config.maxCallsPerHour}); next in ${Math.ceil(wait / 1000)} s`);
      await this.sleep(wait);
      return;
    }
    const candidate = await this.nextCandidate();
    if (!candidate) {
      await this.waitForWork();
      return;
    }
    let task: Task;
    try {
      task = (await this.change('claim_task', { task_id: candidate.id }))['task'] as Task;
    } catch (error) {
      if (error instanceof BoardRefusal) return; // taken by someone else, or changed: look again
      throw error;
    }
    log.info(`claimed task ${task.id} ${titleForLog(task.title)}`);
    await this.work(task);
  }

  /**
   * Waits on the board instead of sleeping: the call returns as soon as a task this worker may claim appears.
   * It waits for tasks only: the worker never reads the room, so an unread message must neither end nor wake
   * the wait. From the second wait on it passes the board's change cursor, so tasks already pending that it cannot
   * take now (cooling down, given up) do not answer at once: only a new one does, or the end of the first cool-down.
   */
  private async waitForWork(): Promise<void> {
    const coolMs = this.failures.nextTryInMs();
    const timeoutS = coolMs === undefined ? LIMITS.waitDefaultS : Math.min(LIMITS.waitDefaultS, Math.ceil(coolMs / 1000));
    const since = this.changeCursor;
    let answer: Record<string, unknown>;
    try {
      answer = await this.client.callTool('wait_for_activity', { timeout_s: timeoutS, for: ['tasks'], ...(since !== undefined && { since }) }, { signal: this.stopper.signal });
    } catch (error) {
      // The board no longer knows the cursor (its log moved past it, or it is another board): start again without.
      if (since !== undefined && error instanceof BoardRefusal && (error.status === 400 || error.status === 409)) {
        this.changeCursor = undefined;
        return;
      }
      throw error;
    }
    this.changeCursor = typeof answer['cursor'] === 'string' ? answer['cursor'] : undefined;
    // A board older than change cursors answers at once while such a task is pending: look again after the interval.
    if (this.changeCursor === undefined && answer['reason'] === 'pending') await this.sleep(this.options.config.pollIntervalMs);
  }

  /** The first task the board says this worker may claim that is not cooling down, paging through all of them. */
  private async nextCandidate(): Promise<TaskSummary | undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.client.callTool('list_tasks', { claimable_by_me: true, limit: PAGE, ...(cursor && { cursor }) });
      const found = (page['tasks'] as TaskSummary[]).find((t) => this.failures.mayTry(t.id));
      if (found) return found;
      cursor = (page['next_cursor'] as string | null) ?? undefined;
    } while (cursor && !this.stopper.signal.aborted);
    return undefined;
  }

  private async allTasks(filter: Record<string, unknown>): Promise<TaskSummary[]> {
    const tasks: TaskSummary[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.client.callTool('list_tasks', { ...filter, limit: PAGE, ...(cursor && { cursor }) });
      tasks.push(...(page['tasks'] as TaskSummary[]));
      cursor = (page['next_cursor'] as string | null) ?? undefined;
    } while (cursor);
    return tasks;
  }

  private async work(task: Task): Promise<void> {
    // The model call can outlast the claim's lease: beat while it runs, and fence every later write with the claim id.
    const beat = this.keepClaimAlive(task);
    try {
      await this.workOn(task, task.claim_id!);
    } finally {
      clearInterval(beat);
    }
  }

  /** Heartbeats at a third of the lease while the task is worked on. */
  private keepClaimAlive(task: Task): NodeJS.Timeout {
    const leaseMs = task.lease_expires_at ? Date.parse(task.lease_expires_at) - Date.now() : 0;
    const beat = setInterval(() => {
      this.client.heartbeat().catch((error: unknown) => log.warn(`heartbeat failed: ${describe(error)}`));
    }, Math.max(1000, leaseMs / 3));
    beat.unref();
    return beat;
  }

  private async workOn(task: Task, claimId: number): Promise<void> {
    const detail = await this.client.callTool('get_task', { task_id: task.id });
    const reviews = detail['reviews'] as Array<{ verdict: string; note: string | null }>;
    const lastReject = reviews.filter((r) => r.verdict === 'reject').at(-1)?.note ?? undefined;
    this.quota.record();
    log.info(`asked model for task ${task.id} (${this.quota.used} of ${this.options.config.maxCallsPerHour} calls this hour)`);
    let failure: string | undefined;
    let answer = '';
    try {
      answer = await askModel(this.options.config.model, taskMessages(detail['task'] as Task, lastReject), this.stopper.signal);
      if (!answer.trim()) failure = 'the model gave an empty answer';
      else if (answer.length > LIMITS.result) failure = `the answer was ${answer.length} characters, over the board's result limit of ${LIMITS.result}`;
    } catch (error) {
      if (!(error instanceof ModelFailure)) throw error;
      failure = error.message;
    }
    if (this.stopper.signal.aborted) {
      await this.client.callTool('release_task', { task_id: task.id, claim_id: claimId });
      log.info(`released task ${task.id}: stopping`);
      return;
    }
    if (failure === undefined) {
      try {
        await this.change('submit_result', { task_id: task.id, result: answer, claim_id: claimId });
        this.failures.succeed(task.id);
        log.info(`submitted task ${task.id}`);
      } catch (error) {
        if (!(error instanceof BoardRefusal)) throw error;
        log.warn(`could not submit task ${task.id}: ${error.body.error.code}`);
      }
      return;
    }
    const { count, giveUp } = this.failures.fail(task.id);
    // The help request goes out while the claim is still ours, so it is fenced like every other write.
    if (giveUp) {
      await this.change('post_message', {
        task_id: task.id,
        kind: 'help_request',
        claim_id: claimId,
        text: `${this.name} (roundtable-worker) gave up on this task after ${count} failed attempts. Last failure: ${failure}. Another worker or a person should take it.`,
      });
    }
    await this.change('release_task', { task_id: task.id, claim_id: claimId });
    log.info(`released task ${task.id}: ${failure}`);
    if (giveUp) {
      log.info(`gave up on task ${task.id} after ${count} failures; posted a help_request`);
    } else {
      log.info(`cooling down task ${task.id} for ${Math.round(this.options.config.cooldownMs / 1000)} s (${count} of ${this.options.config.maxFailures} failures)`);
    }
  }

  /**
   * A change, repeated while its outcome is unknown (the answer was lost to a timeout or a broken connection): the
   * same call goes out under the same idempotency key (the client keeps it for the window), so it is applied once
   * and the worker learns how it ended before it moves on. Past the window a repeat would be a new change, so the
   * worker stops there and leaves the claim to its lease.
   */
  private async change(tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const started = Date.now();
    for (;;) {
      try {
        return await this.client.callTool(tool, args);
      } catch (error) {
        if (!isUnsettled(error) || this.stopper.signal.aborted) throw error;
        const left = started + error.unsettledWindowMs! - this.options.config.pollIntervalMs - Date.now();
        if (left <= 0) throw error;
        log.warn(`the board's answer to ${tool} was lost (${error.code}); repeating the same call in ${Math.round(this.options.config.pollIntervalMs / 1000)} s, under the same idempotency key`);
        await this.sleep(this.options.config.pollIntervalMs);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const signal = this.stopper.signal;
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
