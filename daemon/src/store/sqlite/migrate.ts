// SQLite's numbered migrations (daemon/migrations/), each applied in one transaction; a database newer than the code is refused.
import type Database from 'better-sqlite3';
import { codeSchemaVersion, readMigrations, SchemaTooNew } from '../migration-files.js';

export const CODE_SCHEMA_VERSION = codeSchemaVersion(readMigrations('migrations'));

export function migrate(db: Database.Database): number {
  db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
  const current = (db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM schema_version').get() as { v: number }).v;
  if (current > CODE_SCHEMA_VERSION) throw new SchemaTooNew(current, CODE_SCHEMA_VERSION);
  for (const migration of readMigrations('migrations')) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)').run(migration.version, new Date().toISOString());
    }).immediate();
  }
  return CODE_SCHEMA_VERSION;
}
