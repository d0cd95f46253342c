// The deadline of the call a store operation serves: the dispatcher sets it for a whole tool call, and every database
// round trip made for that call stops at it, however many the call makes (PostgreSQL: connection.ts).
// Only a store that reads it turns it on (usesCallDeadlines): AsyncLocalStorage hooks every promise the process makes
// (Node 20), a cost the SQLite store, whose calls make no round trip that could hang, has no use for.
import { AsyncLocalStorage } from 'node:async_hooks';

let current: AsyncLocalStorage<number> | undefined;

/** Called by a store that bounds its round trips by the call's deadline, before it serves any call. */
export function usesCallDeadlines(): void {
  current ??= new AsyncLocalStorage<number>();
}

/** Runs `work` with every store operation inside it bounded by `atMs` (epoch ms). */
export function withCallDeadline<T>(atMs: number, work: () => Promise<T>): Promise<T> {
  return current ? current.run(atMs, work) : work();
}

/** The current call's deadline (epoch ms), or undefined outside a call (timers, start-up). */
export function callDeadline(): number | undefined {
  return current?.getStore();
}
