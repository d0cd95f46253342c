// A reporter that lists the slowest test files at the end of a run, to show where the suite's time goes.
import { relative } from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';

export interface FileTime {
  readonly file: string;
  readonly ms: number;
}

/** The `count` longest files, longest first, as lines of a small table. */
export function slowestLines(times: readonly FileTime[], count: number): string[] {
  const slowest = [...times].sort((a, b) => b.ms - a.ms).slice(0, count);
  if (slowest.length === 0) return [];
  return [`Slowest ${slowest.length} test files:`, ...slowest.map(({ file, ms }) => `${(ms / 1000).toFixed(1).padStart(7)} s  ${file}`)];
}

/**
 * Listed before `default` in vitest.config.ts, so that its table prints above vitest's own summary and the run
 * still closes with the "Test Files" / "Tests" / "Duration" lines that CI logs end with.
 */
export default class SlowestFilesReporter implements Reporter {
  private vitest: Vitest | undefined;

  constructor(private readonly count = 10) {}

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    if (!this.vitest) return;
    const root = this.vitest.config.root;
    // A file's time: the collection of its suites plus its tests and hooks (set-up included), as the default reporter shows it.
    const times = testModules.map((module) => {
      const { collectDuration, duration } = module.diagnostic();
      return { file: relative(root, module.moduleId), ms: collectDuration + duration };
    });
    const lines = slowestLines(times, this.count);
    if (lines.length > 0) this.vitest.logger.log(['', ...lines].join('\n'));
  }
}
