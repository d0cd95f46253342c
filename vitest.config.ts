// Test runner settings: integration tests start real processes, so give them time and fail on leaks.
import { defineConfig } from 'vitest/config';
import HeavyFirstSequencer from './test/runner/heavy-first.js';
import SlowestFilesReporter from './test/runner/slowest-files.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/helpers/no-leaked-processes.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits for something live to show (a page update, a webhook, a lease): vitest's default of 1 s
    // failed a page test in CI on a 2-core machine under load. A poll that succeeds returns at once, so the longer
    // bound costs time only when a test fails.
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    // Two, one per core: a third made the run no shorter and broke a latency bound under load (docs/DECISIONS.md, issue 32).
    maxWorkers: 2,
    // The longest files start first, so that none of them is left to run alone at the end.
    sequence: { sequencer: HeavyFirstSequencer },
    // The slowest files print above vitest's summary, which stays the run's closing lines.
    reporters: [new SlowestFilesReporter(10), 'default'],
  },
});
