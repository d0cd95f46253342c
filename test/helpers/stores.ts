// The board's stores, for suites that run the same tests on each (one suite, every store: STYLE.md point 16).
import { describe } from 'vitest';
import { PG_SKIP_REASON } from './postgres.js';
import { SELECTION, type StoreName } from './store-selection.js';

export type { StoreName };

export interface StoreKind {
  readonly name: StoreName;
  /** Why this store's tests are skipped on this machine, if they are. */
  readonly skip: string | undefined;
}

export const STORES: readonly StoreKind[] = [
  { name: 'sqlite', skip: SELECTION.stores.includes('sqlite') ? undefined : 'ROUNDTABLE_STORES leaves SQLite out of this run' },
  { name: 'postgres', skip: PG_SKIP_REASON },
];

/**
 * Declares the suite once per store (`describe.each` over STORES); a store that cannot run here is skipped, and the
 * skipped block's name says why.
 */
export function describeEachStore(body: (store: StoreKind) => void): void {
  describe.each(STORES)('on $name', (store) => {
    if (store.skip) {
      describe.skip(`skipped: ${store.skip}`, () => body(store));
      return;
    }
    body(store);
  });
}
