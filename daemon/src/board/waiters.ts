// Agents waiting for activity: a timer and a callback each, woken by board events that concern them. No polling.
import type { BoardEvent, EventBus } from '../events.js';

export interface WaitersOptions {
  readonly events: EventBus;
  /** The agents an event concerns; waiters of other agents are not woken. */
  readonly concerns: (event: BoardEvent) => Iterable<string>;
}

export class ActivityWaiters {
  private readonly waiting = new Map<string, Set<() => void>>();
  private readonly lastWaitEnded = new Map<string, number>();
  private readonly unsubscribe: () => void;

  constructor(private readonly options: WaitersOptions) {
    this.unsubscribe = options.events.subscribe((event) => this.wake(event));
  }

  /** Resolves 'activity' when an event concerns the agent, 'timeout' after timeoutMs, 'aborted' if the caller left. */
  wait(agent: string, timeoutMs: number, signal?: AbortSignal): Promise<'activity' | 'timeout' | 'aborted'> {
    return new Promise((resolve) => {
      const set = this.waiting.get(agent) ?? new Set<() => void>();
      this.waiting.set(agent, set);
      const finish = (how: 'activity' | 'timeout' | 'aborted') => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        set.delete(waker);
        if (set.size === 0) this.waiting.delete(agent);
        this.lastWaitEnded.set(agent, Date.now());
        resolve(how);
      };
      const waker = () => finish('activity');
      const onAbort = () => finish('aborted');
      const timer = setTimeout(() => finish('timeout'), timeoutMs);
      set.add(waker);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  isWaiting(agent: string): boolean {
    return this.waiting.has(agent);
  }

  lastWait(agent: string): number | undefined {
    return this.isWaiting(agent) ? Date.now() : this.lastWaitEnded.get(agent);
  }

  get count(): number {
    let n = 0;
    for (const set of this.waiting.values()) n += set.size;
    return n;
  }

  close(): void {
    this.unsubscribe();
  }

  private wake(event: BoardEvent): void {
    if (this.waiting.size === 0) return;
    for (const agent of this.options.concerns(event)) {
      const set = this.waiting.get(agent);
      if (set) for (const waker of [...set]) waker();
    }
  }
}
