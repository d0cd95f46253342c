// Waiting in tests: poll a condition until it holds or a deadline passes, never a fixed sleep before an assertion.

/** Generous: the test machines have 2 cores and run several suites at once; a passing check returns at once anyway. */
export const EVENTUALLY_TIMEOUT_MS = 20_000;

export interface EventuallyOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

/**
 * Resolves with the first truthy value `check` returns; rejects naming `what` once the deadline has passed.
 * `check` is always run once more after the deadline, so a slow poll cannot miss a condition that holds.
 * Errors thrown by `check` are not retried: they are real failures.
 */
export async function eventually<T>(what: string, check: () => T | Promise<T>, options: EventuallyOptions = {}): Promise<Truthy<T>> {
  const timeoutMs = options.timeoutMs ?? EVENTUALLY_TIMEOUT_MS;
  const intervalMs = options.intervalMs ?? 50;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pastDeadline = Date.now() > deadline;
    const value = await check();
    if (value) return value as Truthy<T>;
    if (pastDeadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/**
 * A fixed pause: only for jitter, between polls, or a window in which something must NOT happen (the call site says
 * what a slow machine does to it). Never before asserting that something did happen: use `eventually`.
 */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves as `promise` does, or rejects naming `what` if it has not settled within `timeoutMs`. */
export async function within<T>(what: string, promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
