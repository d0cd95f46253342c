// Log lines batched by turn: every line logged while the microtask queue runs is written to its destination in one write
// once that queue is empty (process.nextTick scheduled from a microtask runs then), instead of one synchronous write per
// line. A group commit's answers all run in one such turn, so their lines go out in one write, in the same event-loop
// iteration (setImmediate would hold every answer for one more iteration, and cost more than it saves). written() says
// when the lines so far are out, so a request can be answered after its own lines: a crash (even SIGKILL) then loses
// only lines of requests not yet answered. At exit whatever is pending is written synchronously.

/** Where the lines go: a synchronous writer (pino's destination with sync: true, which retries a full pipe). */
export interface LineSink {
  write(text: string): unknown;
}

export class LineBatch {
  private lines: string[] = [];
  private waiters: Array<() => void> = [];
  private scheduled = false;

  constructor(private readonly sink: LineSink) {
    process.once('exit', () => this.flush());
  }

  /** pino's destination interface: one serialized line, newline included. */
  write(line: string): void {
    this.lines.push(line);
    if (!this.scheduled) {
      this.scheduled = true;
      process.nextTick(() => this.flush());
    }
  }

  /** Resolves once every line written so far is out (at once if none is pending). */
  written(): Promise<void> {
    if (this.lines.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Writes what is pending, in order, in one write, then releases whoever waited for it. */
  flush(): void {
    this.scheduled = false;
    const lines = this.lines;
    const waiters = this.waiters;
    this.lines = [];
    this.waiters = [];
    try {
      if (lines.length > 0) this.sink.write(lines.length === 1 ? lines[0]! : lines.join(''));
    } finally {
      // A write that failed fails as it did before batching (pino's destination reports it); no request waits on it.
      for (const resolve of waiters) resolve();
    }
  }
}
