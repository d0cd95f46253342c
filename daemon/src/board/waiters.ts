// Agents waiting for activity: a timer and a callback each, woken by board events that concern them. No polling.
import type { WaitCategory } from 'roundtable-shared';
import type { BoardEvent, EventBus } from '../events.js';

/** An agent an event may have given something to do, and what kind of thing. */
export interface Concern {
  readonly agent: string;
  readonly about: WaitCategory;
}

export interface WaitersOptions {
  readonly events: EventBus;
  /** Whom an event concerns, and how; waiters of other agents, or waiting for other things, are not woken. */
  readonly concerns: (event: BoardEvent) => Iterable<Concern>;
  /** Called when an agent's first wait here begins or its last one ends (several daemons share who waits). */
  readonly onWaitingChanged?: (() => void) | undefined;
}

export interface WaitOptions {
  readonly timeoutMs: number;
  /** Only events about these wake the wait. */
  readonly about: ReadonlySet<WaitCategory>;
  /** Aborted when the caller went away. */
  readonly signal?: AbortSignal | undefined;
}

/** activity: an event concerned the agent; revoked: its token was removed or rotated; aborted: the caller left. */
export type WaitOutcome = 'activity' | 'timeout' | 'aborted' | 'revoked';

interface Waiter {
  readonly about: ReadonlySet<WaitCategory>;
  finish(how: WaitOutcome): void;
}

export class ActivityWaiters {
  private readonly waiting = new Map<string, Set<Waiter>>();
  private readonly lastWaitEnded = new Map<string, number>();
  private readonly unsubscribe: () => void;

  constructor(private readonly options: WaitersOptions) {
    this.unsubscribe = options.events.subscribe((event) => this.wake(event));
  }

  /** Resolves when an event about one of `about` concerns the agent, after the timeout, when the caller leaves, or when revoked. */
  wait(agent: string, options: WaitOptions): Promise<WaitOutcome> {
    const { signal } = options;
    return new Promise((resolve) => {
      const set = this.waiting.get(agent) ?? new Set<Waiter>();
      if (set.size === 0) {
        this.waiting.set(agent, set);
        this.options.onWaitingChanged?.();
      }
      const waiter: Waiter = {
        about: options.about,
        finish: (how) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          set.delete(waiter);
          if (set.size === 0 && this.waiting.get(agent) === set) {
            this.waiting.delete(agent);
            this.options.onWaitingChanged?.();
          }
          this.lastWaitEnded.set(agent, Date.now());
          resolve(how);
        },
      };
      const onAbort = () => waiter.finish('aborted');
      const timer = setTimeout(() => waiter.finish('timeout'), options.timeoutMs);
      set.add(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Ends every wait of these agents at once: their token no longer names them (removed or rotated). */
  revoke(agents: Iterable<string>): void {
    for (const agent of agents) {
      const set = this.waiting.get(agent);
      if (set) for (const waiter of [...set]) waiter.finish('revoked');
    }
  }

  isWaiting(agent: string): boolean {
    return this.waiting.has(agent);
  }

  /** The agents with at least one wait parked here. */
  agents(): string[] {
    return [...this.waiting.keys()];
  }

  lastWait(agent: string): number | undefined {
    return this.isWaiting(agent) ? Date.now() : this.lastWaitEnded.get(agent);
  }

  get count(): number {
    let n = 0;
    for (const set of this.waiting.values()) n += set.size;
    return n;
  }

  /** At shutdown: stop listening, and answer every parked wait now (as a timeout), so the daemon need not wait for them. */
  close(): void {
    this.unsubscribe();
    for (const set of [...this.waiting.values()]) for (const waiter of [...set]) waiter.finish('timeout');
  }

  private wake(event: BoardEvent): void {
    if (this.waiting.size === 0) return;
    for (const { agent, about } of this.options.concerns(event)) {
      const set = this.waiting.get(agent);
      if (set) for (const waiter of [...set]) if (waiter.about.has(about)) waiter.finish('activity');
    }
  }
}
