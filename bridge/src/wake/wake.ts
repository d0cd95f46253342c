// `roundtable-bridge wake --exec CMD`: long-polls wait_for_activity for the agent and runs CMD when something new
// concerns it, once per batch of pending items, at most once per debounce period; it outlives daemon restarts.
import { LIMITS, type WaitCategory } from 'roundtable-shared';
import { BoardRefusal, type BoardClient } from '../board-client.js';
import { log } from '../log.js';
import { commandEnv, runWakeCommand } from './exec.js';
import { collectPending, pendingIn, wakeEnv, type Pending, type WaitAnswer } from './pending.js';

export interface WakeOptions {
  readonly client: BoardClient;
  readonly command: string;
  readonly watch: readonly WaitCategory[];
  /** Least time between two runs of CMD. */
  readonly debounceMs: number;
  /** How often categories that already woke the agent are re-checked for new items. */
  readonly recheckMs: number;
  readonly env?: NodeJS.ProcessEnv;
}

/** Pauses after a failed wait (daemon restarting, network down): short at first, never longer than the last. */
const BACKOFF_MS = [250, 500, 1000, 2000, 5000];

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

  /** Runs until stop(); rejects only when the board refuses the token (nothing a retry could fix). */
  async run(): Promise<void> {
    const me = await this.retrying(() => this.options.client.callTool('whoami', {}, { signal: this.stopping.signal }));
    if (!me) return;
    const agent = String(me['name']);
    log.info(`waiting for ${this.options.watch.join(', ')} for ${agent}`);
    // Categories with nothing pending are long-polled; the others already woke the agent and are only re-checked.
    let quiet: WaitCategory[] = [...this.options.watch];
    while (!this.stopped) {
      const answer = await this.retrying(() => this.waitOnce(quiet));
      if (!answer) break;
      let pending = await this.retrying(() => collectPending(this.options.client, agent, answer, this.options.watch));
      if (!pending) break;
      if (this.hasNew(pending)) {
        const early = this.lastRunAt + this.options.debounceMs - Date.now();
        if (early > 0) {
          await this.pause(early);
          // Look again after the pause: the batch is what is pending then (reviews already reported are kept).
          const again = await this.retrying(() => this.wait(this.options.watch, 0));
          if (!again) break;
          const fresh = await this.retrying(() => collectPending(this.options.client, agent, { ...again, reviews: [...answer.reviews, ...again.reviews] }, this.options.watch));
          if (!fresh) break;
          pending = fresh;
        }
        if (this.hasNew(pending)) await this.runCommand(agent, pending);
      }
      // Forget what is no longer pending, so a task that comes back (released, rejected) wakes the agent again.
      this.notified = new Set([...this.notified].filter((key) => pending.keys.has(key)));
      quiet = this.options.watch.filter((category) => pendingIn(category, pending) === 0);
    }
  }

  private waitOnce(quiet: WaitCategory[]): Promise<WaitAnswer> {
    if (quiet.length === this.options.watch.length) return this.wait(quiet, LIMITS.waitMaxS);
    if (quiet.length > 0) return this.wait(quiet, Math.max(1, Math.round(this.options.recheckMs / 1000)));
    // Everything watched is pending and known: nothing to long-poll on, so look again after a while.
    return this.pause(this.options.recheckMs).then(() => this.wait(this.options.watch, 0));
  }

  private async wait(categories: readonly WaitCategory[], timeoutS: number): Promise<WaitAnswer> {
    const answer = await this.options.client.callTool('wait_for_activity', { timeout_s: timeoutS, for: categories }, { signal: this.stopping.signal });
    return answer as unknown as WaitAnswer;
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
