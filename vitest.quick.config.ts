// The inner loop (`npm run test:quick`): the unit tests and the board's rule suite on SQLite only, in a few minutes.
// Not for CI: `npm test` runs every file on every store, and ROUNDTABLE_REQUIRE_POSTGRES=1 refuses this selection.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// Spread rather than mergeConfig, which would append this include list to the full one.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [
      'test/unit/**/*.test.ts',
      // The rule suite: each tool's rules end to end through the daemon, and the claim, lease and reservation rules.
      'test/daemon/rules*.test.ts',
      'test/daemon/dependencies.test.ts',
      'test/daemon/reservations.test.ts',
      'test/daemon/leases.test.ts',
      'test/daemon/idempotency.test.ts',
      'test/daemon/hostile-input.test.ts',
      'test/daemon/tool-list.test.ts',
    ],
    env: { ROUNDTABLE_STORES: 'sqlite' },
  },
});
