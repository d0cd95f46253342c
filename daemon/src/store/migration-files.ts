// The numbered migration files both stores apply (daemon/migrations/, daemon/migrations-pg/), and the refusal of a
// database whose schema is newer than the code; each store applies them in its own transactions.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_DIR } from '../runtime/package-dir.js';

export class SchemaTooNew extends Error {
  constructor(current: number, code: number) {
    super(`the database is at schema version ${current}, newer than this roundtable (${code}); upgrade roundtable-daemon or restore an older backup`);
  }
}

export interface Migration {
  readonly version: number;
  readonly sql: string;
}

/** The folder's NNN_name.sql files, in order. */
export function readMigrations(folder: 'migrations' | 'migrations-pg'): Migration[] {
  const dir = join(PACKAGE_DIR, `${folder}/`);
  return readdirSync(dir)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 3)), sql: readFileSync(dir + f, 'utf8') }));
}

/** The schema version the code brings: its newest migration's. */
export function codeSchemaVersion(migrations: readonly Migration[]): number {
  return Math.max(0, ...migrations.map((m) => m.version));
}
