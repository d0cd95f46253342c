// Numbered SQL migrations, each applied in one transaction; a database newer than the code is refused.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { PACKAGE_DIR } from '../package-dir.js';

const MIGRATIONS_DIR = join(PACKAGE_DIR, 'migrations/');

export class SchemaTooNew extends Error {}

interface Migration {
  readonly version: number;
  readonly sql: string;
}

function readMigrations(): Migration[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 3)), sql: readFileSync(MIGRATIONS_DIR + f, 'utf8') }));
}

export const CODE_SCHEMA_VERSION = Math.max(0, ...readMigrations().map((m) => m.version));

export function migrate(db: Database.Database): number {
  db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
  const current = (db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM schema_version').get() as { v: number }).v;
  if (current > CODE_SCHEMA_VERSION) {
    throw new SchemaTooNew(
      `the database is at schema version ${current}, newer than this roundtable (${CODE_SCHEMA_VERSION}); upgrade roundtable-daemon or restore an older backup`,
    );
  }
  for (const migration of readMigrations()) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)').run(migration.version, new Date().toISOString());
    }).immediate();
  }
  return CODE_SCHEMA_VERSION;
}
