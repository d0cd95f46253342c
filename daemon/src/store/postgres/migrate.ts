// PostgreSQL's own numbered migrations (daemon/migrations-pg/), each in one transaction; a newer schema is refused.
// Several daemons may start at once: an advisory lock lets one migrate while the others wait, then find nothing to do.
import { MAINTENANCE_DEADLINES, openPool, quoteIdent, type Schema, type Sql } from './connection.js';
import { codeSchemaVersion, readMigrations, SchemaTooNew } from '../migration-files.js';

/** Any fixed number: the key of the advisory lock migrations hold. */
const MIGRATION_LOCK = 7_316_001;

export const PG_SCHEMA_VERSION = codeSchemaVersion(readMigrations('migrations-pg'));

/** The schema version the database is at (0 when it has none). */
export async function schemaVersion(sql: Sql): Promise<number> {
  const [exists] = await sql`SELECT to_regclass('schema_version') IS NOT NULL AS present`;
  if (!exists?.['present']) return 0;
  const [row] = await sql`SELECT COALESCE(MAX(version), 0)::int AS v FROM schema_version`;
  return Number(row?.['v'] ?? 0);
}

/**
 * Brings `sql`'s schema up to date: the public one (the catalog and the project `default`), or a project's, made first
 * if it is new. Each schema keeps its own schema_version; the same files run in each (012 tells them apart).
 */
export async function migratePostgres(sql: Sql): Promise<number> {
  const schema = sql.schema;
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    if (schema !== undefined) {
      await tx.unsafe(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
      // The connection's path is already the schema's (connection.ts); LOCAL also covers what a migration file sets.
      await tx.unsafe(`SET LOCAL search_path TO ${quoteIdent(schema)}`);
      await tx.unsafe(`SET LOCAL roundtable.project_schema = 'on'`);
    }
    await tx`CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)`;
    const [row] = await tx`SELECT COALESCE(MAX(version), 0)::int AS v FROM schema_version`;
    const current = Number(row?.['v'] ?? 0);
    if (current > PG_SCHEMA_VERSION) {
      throw new SchemaTooNew(current, PG_SCHEMA_VERSION);
    }
    for (const migration of readMigrations('migrations-pg')) {
      if (migration.version <= current) continue;
      await tx.unsafe(migration.sql);
      await tx`INSERT INTO schema_version (version, applied_at) VALUES (${migration.version}, ${new Date().toISOString()})`;
    }
  });
  return PG_SCHEMA_VERSION;
}

/**
 * A one-connection pool for a command of the CLI (`agents`, `webhooks`), its schema brought up to date first (a newer
 * one is refused) and closed again if that fails; in a project's schema when given (project-schema.ts schemaOf). Migrating may take long, so it runs without the daemon's per-call deadlines.
 */
export async function openMigratedPool(url: string, schema?: Schema): Promise<Sql> {
  const sql = openPool({ url, max: 1, deadlines: MAINTENANCE_DEADLINES, schema });
  try {
    await migratePostgres(sql);
  } catch (error) {
    await sql.end({ timeout: 1 });
    throw error;
  }
  return sql;
}
