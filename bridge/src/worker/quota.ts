// The hard cap on model calls per rolling hour: every attempt counts, successful or not.

const HOUR_MS = 60 * 60 * 1000;

export class HourlyQuota {
  private readonly calls: number[] = [];

  constructor(private readonly max: number, private readonly now: () => number = Date.now) {}

  /** Milliseconds until another call is allowed; 0 when one is allowed now. */
  waitMs(): number {
    const cutoff = this.now() - HOUR_MS;
    while (this.calls.length && this.calls[0]! <= cutoff) this.calls.shift();
    return this.calls.length < this.max ? 0 : this.calls[0]! + HOUR_MS - this.now();
  }

  record(): void {
    this.calls.push(this.now());
  }

  get used(): number {
    return this.calls.length;
  }
}
