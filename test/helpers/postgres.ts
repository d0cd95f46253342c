// PostgreSQL for the tests: a fresh database per board on the cluster ROUNDTABLE_TEST_PG_URL points at
// (scripts/pg-cluster.sh starts one; .ci/run does so and sets ROUNDTABLE_REQUIRE_POSTGRES=1, which turns a skip into a
// failure: store-selection.ts).
import { randomBytes } from 'node:crypto';
import { openPool, type Sql } from '../../daemon/src/store/postgres/connection.js';
import { SELECTION } from './store-selection.js';

export const PG_URL = process.env['ROUNDTABLE_TEST_PG_URL'];

/** Why the PostgreSQL tests are skipped here, or undefined when a cluster is available and the run covers it. */
export const PG_SKIP_REASON = SELECTION.postgresSkip;

let admin: Sql | undefined;

function adminConnection(): Sql {
  if (!PG_URL) throw new Error(PG_SKIP_REASON);
  admin ??= openPool({ url: PG_URL, max: 1 });
  return admin;
}

/** Creates an empty database with a unique name and returns its URL. */
export async function createTestDatabase(label = 'board'): Promise<string> {
  const name = `rt_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(6).toString('hex')}`;
  await adminConnection().unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(PG_URL!);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * A connection to a test database, for reading what the daemons wrote; close it with `end()`. The store's own pool
 * (node-postgres): `sql\`...\``, `sql.unsafe`, `sql.begin`, `sql.listen`, bigints as numbers.
 */
export function connectTo(url: string): Sql {
  return openPool({ url, max: 2 });
}
