// Which stores a test run covers, from the environment: ROUNDTABLE_STORES narrows the run (npm run test:quick), and
// ROUNDTABLE_REQUIRE_POSTGRES=1 (CI) turns any reason to skip PostgreSQL into a failure.
export type StoreName = 'sqlite' | 'postgres';

export interface StoreSelection {
  readonly stores: readonly StoreName[];
  /** Why the PostgreSQL tests are skipped in this run, or undefined when they run. */
  readonly postgresSkip: string | undefined;
}

const ALL: readonly StoreName[] = ['sqlite', 'postgres'];

/** ROUNDTABLE_STORES: a comma-separated list of sqlite and postgres; unset or empty means both. */
function listedStores(raw: string | undefined): readonly StoreName[] {
  if (raw === undefined || raw.trim() === '') return ALL;
  const names = raw.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(ALL as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new Error(`ROUNDTABLE_STORES names ${unknown.length} store(s) other than sqlite and postgres: give a comma-separated list of those two, or unset it for both`);
  }
  return ALL.filter((store) => names.includes(store));
}

/** Reads the selection once; throws, naming the variables, when they contradict each other or CI's requirement. */
export function storeSelection(env: NodeJS.ProcessEnv): StoreSelection {
  const stores = listedStores(env['ROUNDTABLE_STORES']);
  const requirePostgres = env['ROUNDTABLE_REQUIRE_POSTGRES'] === '1';
  if (requirePostgres && !stores.includes('postgres')) {
    throw new Error('ROUNDTABLE_REQUIRE_POSTGRES=1, but ROUNDTABLE_STORES leaves PostgreSQL out: unset one of them (CI sets the first and never the second)');
  }
  if (requirePostgres && !env['ROUNDTABLE_TEST_PG_URL']) {
    throw new Error('ROUNDTABLE_REQUIRE_POSTGRES=1, but ROUNDTABLE_TEST_PG_URL is unset: start a cluster with `eval "$(scripts/pg-cluster.sh start)"`');
  }
  const postgresSkip = !stores.includes('postgres')
    ? 'ROUNDTABLE_STORES leaves PostgreSQL out of this run (npm run test:quick runs SQLite only; npm test runs both)'
    : env['ROUNDTABLE_TEST_PG_URL']
      ? undefined
      : 'ROUNDTABLE_TEST_PG_URL is unset (start a throwaway cluster with `eval "$(scripts/pg-cluster.sh start)"`; CI sets ROUNDTABLE_REQUIRE_POSTGRES=1)';
  return { stores, postgresSkip };
}

/** This run's selection. */
export const SELECTION = storeSelection(process.env);
