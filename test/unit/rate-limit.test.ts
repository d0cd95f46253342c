// The token bucket: capacity, refill over time, and the wait it reports.
import { expect, it } from 'vitest';
import { RateLimiter } from '../../daemon/src/runtime/rate-limit.js';

it('allows the capacity at once, then refills one token per 60/perMinute seconds', () => {
  let now = 0;
  const limiter = new RateLimiter({ perMinute: 60, now: () => now });
  for (let i = 0; i < 60; i++) expect(limiter.take('a')).toBe(0);
  expect(limiter.take('a')).toBe(1);
  expect(limiter.take('b')).toBe(0);
  now += 1000;
  expect(limiter.take('a')).toBe(0);
  expect(limiter.take('a')).toBe(1);
  now += 60_000;
  for (let i = 0; i < 60; i++) expect(limiter.take('a')).toBe(0);
  expect(limiter.take('a')).toBeGreaterThan(0);
});

it('reports the whole seconds to wait at a low rate', () => {
  let now = 0;
  const limiter = new RateLimiter({ perMinute: 2, now: () => now });
  limiter.take('a');
  limiter.take('a');
  expect(limiter.take('a')).toBe(30);
  now += 29_500;
  expect(limiter.take('a')).toBe(1);
});
