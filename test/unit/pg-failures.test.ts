// How the PostgreSQL store tells a broken connection from a refused statement, and which statements it may run again.
import { expect, it } from 'vitest';
import { connectionFailure, isReadOnly, isRetryable, statementCancelled } from '../../daemon/src/store/postgres/failures.js';

/** A PostgreSQL error reply as node-postgres hands it over: a SQLSTATE code and a severity. */
const serverError = (code: string) => Object.assign(new Error('x'), { code, severity: 'ERROR' });
const socketError = (code: string) => Object.assign(new Error('x'), { code, errno: -104, syscall: 'read' });

it.each([
  [socketError('ECONNRESET'), 'unreachable'],
  [socketError('EPIPE'), 'unreachable'],
  [socketError('ECONNREFUSED'), 'unreachable'],
  [serverError('57P01'), 'unreachable'],
  [serverError('08006'), 'unreachable'],
  [serverError('23505'), undefined],
  [serverError('40P01'), undefined],
  [serverError('57014'), undefined],
  [new TypeError('a bug of ours'), undefined],
])('connectionFailure(%o) is %s', (error, expected) => {
  expect(connectionFailure(error)).toBe(expected);
});

it('retries deadlocks and serialization failures only, and tells a statement timeout apart', () => {
  expect(isRetryable(serverError('40P01'))).toBe(true);
  expect(isRetryable(serverError('40001'))).toBe(true);
  expect(isRetryable(serverError('23505'))).toBe(false);
  expect(isRetryable(socketError('40001'))).toBe(false);
  expect(statementCancelled(serverError('57014'))).toBe(true);
  expect(statementCancelled(serverError('57P01'))).toBe(false);
});

it.each([
  ['SELECT id FROM tasks WHERE id = $1', true],
  ['  select 1', true],
  ['WITH c AS (SELECT 1 AS n) SELECT n FROM c', true],
  ['SHOW statement_timeout', true],
  ['SELECT pg_notify($1, $2)', false],
  ['SELECT pg_advisory_xact_lock(1)', false],
  ['SELECT id FROM tasks WHERE id = $1 FOR UPDATE', false],
  ['WITH gone AS (DELETE FROM waiting_agents WHERE daemon_id = $1) INSERT INTO waiting_agents VALUES ($1)', false],
  ['INSERT INTO audit_log (at) VALUES ($1)', false],
  ['UPDATE tasks SET lease_expires_at = $2', false],
])('isReadOnly(%s) is %s', (text, expected) => {
  expect(isReadOnly(text)).toBe(expected);
});
