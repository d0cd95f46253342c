// Failed attempts per task: a cool-down before the next try, and giving up after too many.

interface Record {
  count: number;
  lastAt: number;
  gaveUp: boolean;
}

export class FailureBook {
  private readonly byTask = new Map<number, Record>();

  constructor(private readonly options: { cooldownMs: number; maxFailures: number; now?: () => number }) {}

  private get now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** False while the task is cooling down or after the worker gave up on it. */
  mayTry(taskId: number): boolean {
    const record = this.byTask.get(taskId);
    if (!record) return true;
    return !record.gaveUp && this.now - record.lastAt >= this.options.cooldownMs;
  }

  /** Records a failure; returns true when this one reaches the limit and the worker should give up. */
  fail(taskId: number): { count: number; giveUp: boolean } {
    const record = this.byTask.get(taskId) ?? { count: 0, lastAt: 0, gaveUp: false };
    record.count += 1;
    record.lastAt = this.now;
    record.gaveUp = record.count >= this.options.maxFailures;
    this.byTask.set(taskId, record);
    return { count: record.count, giveUp: record.gaveUp };
  }

  /** How long until the first task now cooling down may be tried again; undefined when none is. */
  nextTryInMs(): number | undefined {
    let soonest: number | undefined;
    for (const record of this.byTask.values()) {
      if (record.gaveUp) continue;
      const left = record.lastAt + this.options.cooldownMs - this.now;
      if (left > 0 && (soonest === undefined || left < soonest)) soonest = left;
    }
    return soonest;
  }

  succeed(taskId: number): void {
    this.byTask.delete(taskId);
  }
}
