// The deadline of the call a store operation serves: the dispatcher sets it for a whole tool call, and every database
// round trip made for that call stops at it, however many the call makes (PostgreSQL: connection.ts).
import { AsyncLocalStorage } from 'node:async_hooks';

const current = new AsyncLocalStorage<number>();

/** Runs `work` with every store operation inside it bounded by `atMs` (epoch ms). */
export function withCallDeadline<T>(atMs: number, work: () => Promise<T>): Promise<T> {
  return current.run(atMs, work);
}

/** The current call's deadline (epoch ms), or undefined outside a call (timers, start-up). */
export function callDeadline(): number | undefined {
  return current.getStore();
}
