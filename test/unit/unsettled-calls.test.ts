// The bridge's memory of changes whose outcome is unknown: which calls count as the same, and for how long.
import { expect, it } from 'vitest';
import { IDEMPOTENCY_KEY_TTL_MS } from 'roundtable-shared';
import { canonicalJson, UNSETTLED_WINDOW_MS, UnsettledCalls } from '../../bridge/src/unsettled-calls.js';

it('the window is stated (an hour) and never outlasts the daemon keeping the key', () => {
  expect(UNSETTLED_WINDOW_MS).toBe(60 * 60_000);
  expect(UNSETTLED_WINDOW_MS).toBeLessThanOrEqual(IDEMPOTENCY_KEY_TTL_MS);
});

it('the same call is the same tool with the same arguments, whatever the order of their keys', () => {
  expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}');
  expect(canonicalJson({ a: 1, gone: undefined })).toBe(canonicalJson({ a: 1 }));
  const calls = new UnsettledCalls();
  calls.unsettled('create_task', { title: 't', required_skills: ['a', 'b'] }, 'key-1');
  expect(calls.keyFor('create_task', { required_skills: ['a', 'b'], title: 't' })).toBe('key-1');
  // Arrays keep their order, another tool or another value is another call.
  expect(calls.keyFor('create_task', { title: 't', required_skills: ['b', 'a'] })).toBeUndefined();
  expect(calls.keyFor('update_task', { title: 't', required_skills: ['a', 'b'] })).toBeUndefined();
  expect(calls.keyFor('create_task', { title: 'T', required_skills: ['a', 'b'] })).toBeUndefined();
});

it('a key is reused within the window from the first attempt, and forgotten once the call settles or the window ends', () => {
  let now = 0;
  const calls = new UnsettledCalls({ windowMs: 1000, now: () => now });
  calls.unsettled('post', { to: 'all', text: 'x' }, 'k');
  now = 600;
  // A repeat that is lost again keeps the first attempt's time: the window is not stretched by retries.
  calls.unsettled('post', { to: 'all', text: 'x' }, 'k');
  now = 999;
  expect(calls.keyFor('post', { text: 'x', to: 'all' })).toBe('k');
  now = 1000;
  expect(calls.keyFor('post', { text: 'x', to: 'all' })).toBeUndefined();
  expect(calls.size).toBe(0);
  calls.unsettled('post', { to: 'all', text: 'y' }, 'k2');
  calls.settled('post', { text: 'y', to: 'all' });
  expect(calls.keyFor('post', { to: 'all', text: 'y' })).toBeUndefined();
});
