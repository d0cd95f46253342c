// Test file order: the files known to run longest start first, so that on a fresh clone (no timing cache, as in CI)
// none of them starts last and becomes the tail of a two-worker run; the rest keep vitest's own order.
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files whose scenarios run longest (over 40 s each in a full run on a 2-core machine), longest first. A file
 * missing here only costs time, never correctness; `npm test` prints the slowest files at its end to update this by.
 */
export const HEAVY_FILES: readonly string[] = [
  'test/apps/node-versions.test.ts', // builds better-sqlite3 for Node 24 from source
  'test/daemon/postgres-faults.test.ts', // a 60 s run of connection resets
  'test/daemon/leases.test.ts',
  'test/daemon/webhooks.test.ts',
  'test/worker/worker.test.ts',
  'test/daemon/multi-daemon.test.ts',
];

/** HEAVY_FILES first, in their listed order; the others after them in the order vitest would have chosen. */
export function heavyFirst<T>(files: readonly T[], pathOf: (file: T) => string): T[] {
  const rank = (file: T) => {
    const at = HEAVY_FILES.indexOf(pathOf(file));
    return at === -1 ? HEAVY_FILES.length : at;
  };
  // Array.prototype.sort is stable: files of equal rank keep the incoming order.
  return [...files].sort((a, b) => rank(a) - rank(b));
}

export default class HeavyFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    return heavyFirst(await super.sort(files), (file) => relative(root, file.moduleId).split('\\').join('/'));
  }
}
