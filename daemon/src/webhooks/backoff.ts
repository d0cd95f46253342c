// When a failed delivery is tried again: exponential backoff with jitter, and the bound after which it is dead-lettered.

export interface RetrySchedule {
  /** The delay after the first failure. */
  readonly baseMs: number;
  /** No delay grows past this. */
  readonly maxMs: number;
  /** Attempts in all; after the last one fails the delivery goes to the dead-letter list. */
  readonly maxAttempts: number;
}

export const DEFAULT_RETRY: RetrySchedule = Object.freeze({ baseMs: 5_000, maxMs: 3_600_000, maxAttempts: 10 });

/**
 * The wait after `failedAttempts` failures (1 for the first), or null when the delivery is out of attempts. "Equal
 * jitter": half the exponential delay, plus a random part of the other half, so retries of many deliveries spread.
 */
export function retryDelayMs(failedAttempts: number, schedule: RetrySchedule, random: () => number = Math.random): number | null {
  if (failedAttempts >= schedule.maxAttempts) return null;
  const exponential = Math.min(schedule.maxMs, schedule.baseMs * 2 ** Math.min(failedAttempts - 1, 40));
  return Math.round(exponential / 2 + random() * (exponential / 2));
}
