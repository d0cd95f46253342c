// `roundtable doctor` on PostgreSQL: the connection, the schema version, and a LISTEN/NOTIFY round trip (the
// daemons wake each other's waiters through it). It only reads; the URL's credentials are never printed.
import { randomBytes } from 'node:crypto';
import type { CheckResult } from '../check-result.js';
import { Unavailable } from '../../errors.js';
import { openPool } from './connection.js';
import { PG_SCHEMA_VERSION, schemaVersion } from './migrate.js';

const NOTIFY_TIMEOUT_MS = 3_000;

export async function checkPostgres(url: string, shown: string): Promise<CheckResult> {
  const sql = openPool({ url, max: 2 });
  try {
    let version: number;
    try {
      version = await schemaVersion(sql);
    } catch (error) {
      // The driver's own error (ECONNREFUSED, an authentication failure, ...) when the store wrapped it.
      const cause = error instanceof Unavailable && error.cause !== undefined ? error.cause : error;
      const code = (cause as { code?: string }).code ?? '';
      return {
        name: 'database',
        status: 'fail',
        detail: `cannot connect to ${shown}: ${code || (cause as Error).message}`,
        fix: 'check ROUNDTABLE_DATABASE_URL (host, port, database, user and password), and that PostgreSQL accepts connections from this machine (pg_hba.conf)',
      };
    }
    const channel = `roundtable_doctor_${randomBytes(6).toString('hex')}`;
    const heard = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), NOTIFY_TIMEOUT_MS);
      void sql
        .listen(channel, () => {
          clearTimeout(timer);
          resolve(true);
        })
        .then(() => sql.notify(channel, 'ping'))
        .catch(() => resolve(false));
    });
    const notified = await heard;
    const parts = [`PostgreSQL ${shown}`, version > 0 ? `schema ${version} of ${PG_SCHEMA_VERSION}` : 'no Roundtable schema yet', notified ? 'LISTEN/NOTIFY ok' : ''];
    const detail = parts.filter(Boolean).join(', ');
    if (!notified) {
      return {
        name: 'database',
        status: 'fail',
        detail: `${detail}; a NOTIFY was not heard within ${NOTIFY_TIMEOUT_MS / 1000} s`,
        fix: 'connect the daemons to PostgreSQL directly or through a session-mode pooler: transaction-mode poolers (PgBouncer pool_mode=transaction) drop LISTEN',
      };
    }
    if (version > PG_SCHEMA_VERSION) {
      return { name: 'database', status: 'fail', detail: `${detail}: newer than this roundtable; the board refuses to start on it`, fix: 'upgrade roundtable-daemon to the version that wrote it' };
    }
    if (version < PG_SCHEMA_VERSION) {
      return { name: 'database', status: 'warn', detail: `${detail}: it migrates at the next start`, fix: 'take a backup first (pg_dump; docs/DEPLOY.md)' };
    }
    return { name: 'database', status: 'ok', detail };
  } finally {
    await sql.end({ timeout: 1 });
  }
}
