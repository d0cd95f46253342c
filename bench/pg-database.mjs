// A throwaway PostgreSQL database for a bench section: the admin URL the sections read, and one new database on it per
// call, named bench_<label>_<random> so runs never share one (the cluster is the bench's own; scripts/pg-cluster.sh).
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** An admin URL that may create databases, or undefined: then the PostgreSQL sections say so and measure nothing. */
export const PG_ADMIN_URL = process.env.ROUNDTABLE_BENCH_PG_URL ?? process.env.ROUNDTABLE_TEST_PG_URL;

/** Creates an empty database on the admin URL's cluster and returns its URL (the admin's credentials, the new name). */
export async function createBenchDatabase(label) {
  if (!PG_ADMIN_URL) throw new Error('no PostgreSQL for the bench: set ROUNDTABLE_BENCH_PG_URL (scripts/pg-cluster.sh start prints one)');
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  const name = `bench_${label}_${randomBytes(4).toString('hex')}`;
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}
