// A fingerprint of a board's database, read through a read-only connection, to prove a refused call changed nothing.
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';

/** Tables whose rows a refused call may add to: every call, refused or not, appends its audit row. */
const APPEND_ONLY_ON_REFUSAL = new Set(['audit_log']);

export interface DbSnapshot {
  /** Per table: row count and a hash of every row, in rowid order. */
  readonly tables: Record<string, { rows: number; sha256: string }>;
}

export class DbReader {
  private readonly db: Database.Database;

  constructor(path: string) {
    // The daemon writes in WAL mode, so a read-only connection sees every committed change.
    this.db = new Database(path, { readonly: true, fileMustExist: true });
  }

  snapshot(): DbSnapshot {
    const names = this.db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .pluck()
      .all() as string[];
    const tables: DbSnapshot['tables'] = {};
    const read = this.db.transaction(() => {
      for (const name of names) {
        if (APPEND_ONLY_ON_REFUSAL.has(name)) continue;
        const hash = createHash('sha256');
        let rows = 0;
        for (const row of this.db.prepare(`SELECT * FROM "${name}"`).raw().iterate()) {
          hash.update(JSON.stringify(row, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value)));
          hash.update('\n');
          rows++;
        }
        tables[name] = { rows, sha256: hash.digest('hex') };
      }
    });
    read();
    return { tables };
  }

  close(): void {
    this.db.close();
  }
}
