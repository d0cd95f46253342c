// PostgreSQL for the tests: a fresh database per board on the cluster ROUNDTABLE_TEST_PG_URL points at
// (scripts/pg-cluster.sh starts one; .ci/run does so and sets ROUNDTABLE_REQUIRE_POSTGRES=1, which turns a skip into a failure).
import { randomBytes } from 'node:crypto';
import { openPool, type Sql } from '../../daemon/src/store/postgres/connection.js';

export const PG_URL = process.env['ROUNDTABLE_TEST_PG_URL'];
const REQUIRE_POSTGRES = process.env['ROUNDTABLE_REQUIRE_POSTGRES'] === '1';

if (!PG_URL && REQUIRE_POSTGRES) {
  throw new Error('ROUNDTABLE_REQUIRE_POSTGRES=1, but ROUNDTABLE_TEST_PG_URL is unset: start a cluster with `eval "$(scripts/pg-cluster.sh start)"`');
}

/** Why the PostgreSQL tests are skipped here, or undefined when a cluster is available. */
export const PG_SKIP_REASON = PG_URL
  ? undefined
  : 'ROUNDTABLE_TEST_PG_URL is unset (start a throwaway cluster with `eval "$(scripts/pg-cluster.sh start)"`; CI sets ROUNDTABLE_REQUIRE_POSTGRES=1)';

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
