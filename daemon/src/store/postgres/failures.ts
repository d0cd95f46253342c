// Which PostgreSQL errors mean the connection failed rather than the statement, which a transaction may retry, and
// how a connection that must not be reused is cut.

/** The connection broke (`unreachable`), or it was cut because the call's deadline passed (`deadline`). */
export type ConnectionFailure = 'unreachable' | 'deadline';

/** Node's own socket errors: the connection is gone, whatever the statement was. */
const SOCKET_ERRORS = new Set(['ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTCONN']);
/** SQLSTATEs of a server that ended the session: shut down (57P01-57P03), or a connection exception (class 08). */
const ENDED_SESSION = /^(08|57P0[1-3])/;

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

/** A PostgreSQL error reply carries a severity; an error of the driver or the socket does not. */
function fromServer(error: unknown): boolean {
  return typeof (error as { severity?: unknown } | null)?.severity === 'string';
}

export function connectionFailure(error: unknown): ConnectionFailure | undefined {
  const code = codeOf(error);
  if (fromServer(error)) return ENDED_SESSION.test(code) ? 'unreachable' : undefined;
  return SOCKET_ERRORS.has(code) ? 'unreachable' : undefined;
}

/** A deadlock or a serialization failure: PostgreSQL rolled the transaction back, and running it again is correct. */
export function isRetryable(error: unknown): boolean {
  const code = codeOf(error);
  return fromServer(error) && (code === '40001' || code === '40P01');
}

/** PostgreSQL cancelled the statement: it ran past statement_timeout (57014). */
export function statementCancelled(error: unknown): boolean {
  return fromServer(error) && codeOf(error) === '57014';
}

/**
 * A statement that changes nothing, so running it again after a broken connection is harmless: a SELECT (or a WITH
 * of SELECTs) that writes no row, takes no lock and sends no notification. Anything else counts as a write.
 */
export function isReadOnly(text: string): boolean {
  return /^\s*(SELECT|SHOW|WITH)\b/i.test(text) && !/\b(INSERT|UPDATE|DELETE|MERGE|TRUNCATE)\b|pg_notify|nextval|setval|pg_advisory|pg_terminate|\bFOR\s+(UPDATE|SHARE)\b/i.test(text);
}

/**
 * Closes a connection's socket at once. node-postgres's end() sends a goodbye and waits for the server's, which a
 * stalled network never delivers, and waits for queries in flight first; a connection past its deadline is cut instead.
 */
export function cutConnection(client: object): void {
  (client as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}
