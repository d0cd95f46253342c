// The error family's mapping to wire codes and HTTP statuses, pinned as a table.
import { expect, it } from 'vitest';
import { ERROR_CODES, ERROR_STATUS } from 'roundtable-shared';
import { asBoardError, Conflict, CursorAhead, CursorExpired, Forbidden, Internal, InvalidInput, NotFound, RateLimited, Unauthorized, Unavailable } from '../../daemon/src/errors.js';

it.each([
  [new Unauthorized('x'), 'unauthorized', 401],
  [new Forbidden('x'), 'forbidden', 403],
  [new NotFound('x'), 'not_found', 404],
  [new Conflict('x'), 'conflict', 409],
  [new CursorExpired('x'), 'conflict', 409],
  [new CursorAhead('x'), 'conflict', 409],
  [new InvalidInput('x'), 'invalid_input', 400],
  [new RateLimited(3), 'rate_limited', 429],
  [new Internal(), 'internal', 500],
  [new Unavailable('unreachable', 'no'), 'unavailable', 503],
])('%s maps to %s / %i', (error, code, status) => {
  expect(error.code).toBe(code);
  expect(error.status).toBe(status);
  expect(error.toBody().error.code).toBe(code);
});

it('covers every wire code', () => {
  expect(Object.keys(ERROR_STATUS).sort()).toEqual([...ERROR_CODES].sort());
});

it('unknown errors become internal with no detail', () => {
  const mapped = asBoardError(new Error('SELECT secret FROM tokens'));
  expect(mapped.code).toBe('internal');
  expect(mapped.message).not.toContain('secret');
});

it('rate_limited carries the retry time', () => {
  expect(new RateLimited(7).toBody()).toEqual({ error: { code: 'rate_limited', message: expect.stringContaining('7 s'), retry_after_s: 7 } });
});

it.each([
  ['unreachable', 'no', /database is unreachable; nothing was changed\. Repeat the call: retry/],
  ['deadline', 'no', /did not answer within its deadline; nothing was changed/],
  ['disk_full', 'no', /disk is full; nothing was changed\. Repeat the call: retry once the board owner has freed space/],
  ['unreachable', 'unknown', /may have been applied: check the board .* before repeating it, and retry/],
] as const)('unavailable (%s, applied %s) names the cause and whether the change stands', (reason, applied, message) => {
  const error = new Unavailable(reason, applied);
  expect(error.message).toMatch(message);
  expect(error.unchanged().message).toMatch(/nothing was changed/);
});
