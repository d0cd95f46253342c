// Token-bucket rate limiting per key (an agent for tool calls, a client IP for /status).

/** Takes one token for a key: 0 when allowed, else the whole seconds to wait. Shared through the database on PostgreSQL. */
export interface RateLimit {
  take(key: string): number | Promise<number>;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export interface RateLimiterOptions {
  readonly perMinute: number;
  /** Injected clock, for tests of refill. */
  readonly now?: () => number;
}

export class RateLimiter implements RateLimit {
  private readonly buckets = new Map<string, Bucket>();
  private readonly capacity: number;
  private readonly refillPerMs: number;
  private readonly now: () => number;

  constructor(options: RateLimiterOptions) {
    this.capacity = options.perMinute;
    this.refillPerMs = options.perMinute / 60_000;
    this.now = options.now ?? Date.now;
  }

  /** Takes one token; returns 0 when allowed, else the whole seconds to wait. */
  take(key: string): number {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.capacity, updatedAt: now };
    bucket.tokens = Math.min(this.capacity, bucket.tokens + (now - bucket.updatedAt) * this.refillPerMs);
    bucket.updatedAt = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    this.evictFullBuckets(now);
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.refillPerMs / 1000));
  }

  /** Keeps memory bounded under many distinct keys: a bucket that has refilled holds no state worth keeping. */
  private evictFullBuckets(now: number): void {
    if (this.buckets.size < 10_000) return;
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.updatedAt) * this.refillPerMs >= this.capacity) this.buckets.delete(key);
    }
  }
}
