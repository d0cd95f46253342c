// `roundtable-bridge wake --exec CMD`: long-polls wait_for_activity for the agent and runs CMD when something new
// concerns it, also while older items are pending (change cursors), once per burst of new items, at most once per
// debounce period; it outlives daemon restarts.
import { LIMITS, type WaitCategory } from 'roundtable-shared';
import { BoardRefusal, type BoardClient } from '../board-client.js';
import { log } from '../log.js';
import { commandEnv, runWakeCommand } from './exec.js';
import { collectPending, wakeEnv, type Pending, type WaitAnswer } from './pending.js';

export interface WakeOptions {
  readonly client: BoardClient;
  readonly command: string;
  readonly watch: readonly WaitCategory[];
  /** Least time between two runs of CMD. */
  readonly debounceMs: number;
  readonly env?: NodeJS.ProcessEnv;
}

/** Pauses after a failed wait (daemon restarting, network down): short at first, never longer than the last. */
const BACKOFF_MS = [250, 500, 1000, 2000, 5000];
/**
 * After a wake, how long more items of the same burst are waited for (each one restarts it, up to BURST_ROUNDS), so a
 * burst of items runs CMD once. Short against the 100 ms within which CMD runs for a new item.
 */
const BURST_MS = 10;
const BURST_ROUNDS = 3;
/** A board older than change cursors (no cursor in its answer) answers at once while work is pending: look again this late. */
const LEGACY_RECHECK_MS = 15_000;

export class Waker {
  private readonly stopping = new AbortController();
  private notified = new Set<string>();
  private lastRunAt = Number.NEGATIVE_INFINITY;
  private batch = 0;

  constructor(private readonly options: WakeOptions) {}

  stop(): void {
    this.stopping.abort();
  }

  private get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  /**
   * Runs until stop(); rejects only when the board refuses the token (nothing a retry could fix). The first wait is
   * level-triggered (what is pending now wakes the agent); each later one passes the cursor of the one before, so the
   * board answers as soon as something new concerns the agent, however much older work is still pending.
   */
  async run(): Promise<void> {
    const me = await this.retrying(() => this.options.client.callTool('whoami', {}, { signal: this.stopping.signal }));
    if (!me) return;
    const agent = String(me['name']);
    log.info(`waiting for ${this.options.watch.join(', ')} for ${agent}`);
    let cursor: string | undefined;
    while (!this.stopped) {
      const first = await this.retrying(() => this.wait(LIMITS.waitMaxS, cursor));
      if (!first) break;
      if (first === 'lost') {
        // The board no longer knows the cursor (its log moved past it, or it is another board): read it whole again.
        log.warn('the board no longer knows this wake\'s place in its event log; looking at everything pending again');
        cursor = undefined;
        continue;
      }
      const legacy = first.cursor === undefined;
      let answer = first;
      cursor = first.cursor;
      if (cursor !== undefined && first.changes !== undefined && first.changes.length > 0) {
        // The rest of a burst: the items that land within BURST_MS of the last make the same batch.
        for (let round = 0; round < BURST_ROUNDS; round++) {
          await this.pause(BURST_MS);
          const more = await this.retrying(() => this.wait(0, cursor));
          if (!more || more === 'lost') break;
          cursor = more.cursor;
          answer = { ...more, reviews: [...answer.reviews, ...more.reviews], changes: [...(answer.changes ?? []), ...(more.changes ?? [])] };
          if ((more.changes?.length ?? 0) === 0) break;
        }
      }
      let pending = await this.retrying(() => collectPending(this.options.client, agent, answer, this.options.watch));
      if (!pending) break;
      if (this.hasNew(pending)) {
        const early = this.lastRunAt + this.options.debounceMs - Date.now();
        if (early > 0) {
          await this.pause(early);
          // Look again after the pause: the batch is what is pending then (reviews already reported are kept).
          const again = await this.retrying(() => this.wait(0, cursor));
          if (!again) break;
          if (again !== 'lost') {
            cursor = again.cursor ?? cursor;
            const merged = { ...again, reviews: [...answer.reviews, ...again.reviews], changes: [...(answer.changes ?? []), ...(again.changes ?? [])] };
            const fresh = await this.retrying(() => collectPending(this.options.client, agent, merged, this.options.watch));
            if (!fresh) break;
            pending = fresh;
          }
        }
        if (this.hasNew(pending)) await this.runCommand(agent, pending);
      }
      // Forget what is no longer pending, so a task that comes back (released, rejected) wakes the agent again.
      this.notified = new Set([...this.notified].filter((key) => pending.keys.has(key)));
      if (legacy && [...pending.keys].length > 0) await this.pause(LEGACY_RECHECK_MS);
    }
  }

  /** One wait_for_activity; 'lost' when the board refuses the cursor (expired: 409; not its own: 400). */
  private async wait(timeoutS: number, since: string | undefined): Promise<WaitAnswer | 'lost'> {
    const args = { timeout_s: timeoutS, for: this.options.watch, ...(since !== undefined && { since }) };
    try {
      return (await this.options.client.callTool('wait_for_activity', args, { signal: this.stopping.signal })) as unknown as WaitAnswer;
    } catch (error) {
      if (since !== undefined && error instanceof BoardRefusal && (error.status === 409 || error.status === 400)) return 'lost';
      throw error;
    }
  }

  private hasNew(pending: Pending): boolean {
    for (const key of pending.keys) if (!this.notified.has(key)) return true;
    return false;
  }

  private async runCommand(agent: string, pending: Pending): Promise<void> {
    const newTaskIds = [...pending.keys]
      .filter((key) => !this.notified.has(key) && !key.startsWith('messages:'))
      .map((key) => Number(key.split(':')[1]));
    this.batch += 1;
    this.lastRunAt = Date.now();
    for (const key of pending.keys) this.notified.add(key);
    const env = commandEnv(this.options.env ?? process.env, wakeEnv(pending, { agent, batch: this.batch, newTaskIds: [...new Set(newTaskIds)] }));
    log.debug('running the wake command', { batch: this.batch, claimable: pending.claimable, unread: pending.unread });
    const code = await runWakeCommand(this.options.command, env);
    if (code !== 0) log.warn(`the wake command exited with ${code === null ? 'a signal' : `code ${code}`} (batch ${this.batch})`);
  }

  /** Runs `step`, retrying network failures with backoff until it succeeds; undefined once stopped. */
  private async retrying<T>(step: () => Promise<T>): Promise<T | undefined> {
    for (let failures = 0; !this.stopped; failures++) {
      try {
        return await step();
      } catch (error) {
        if (this.stopped) return undefined;
        if (error instanceof BoardRefusal && (error.status === 401 || error.status === 403)) throw error;
        const delay = BACKOFF_MS[Math.min(failures, BACKOFF_MS.length - 1)]!;
        // Said once per outage, not once per retry.
        if (failures === 0) log.warn(`the board did not answer (${describe(error)}); retrying until it does`);
        await this.pause(delay);
      }
    }
    return undefined;
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const signal = this.stopping.signal;
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }
}

function describe(error: unknown): string {
  const e = error as { message?: string; fix?: string };
  return String(e?.message ?? error);
}
