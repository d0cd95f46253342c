// Reading a test board's database whichever store it runs on: a fingerprint to prove a refused call changed nothing,
// and plain queries written in the SQL both stores share.
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import type { TestBoard } from './board.js';
import { DbReader, type DbSnapshot } from './db-snapshot.js';
import { connectTo } from './postgres.js';

/**
 * Tables a refused call still writes: every call, refused or not, appends its audit row, and on PostgreSQL takes a
 * token from its agent's rate-limit bucket (in memory on SQLite).
 */
const APPEND_ONLY_ON_REFUSAL = new Set(['audit_log', 'rate_buckets']);

export interface BoardDb {
  snapshot(): Promise<DbSnapshot>;
  /** Rows of a query in the SQL both stores speak (no dialect-specific functions). */
  rows<T = Record<string, unknown>>(query: string): Promise<T[]>;
  /** Runs one statement that writes, as another process sharing the database would (another daemon, a CLI). */
  exec(statement: string): Promise<void>;
  close(): Promise<void>;
}

export function openBoardDb(board: TestBoard): BoardDb {
  if (board.databaseUrl) return postgresDb(board.databaseUrl);
  const reader = new DbReader(board.dbPath);
  return {
    snapshot: async () => reader.snapshot(),
    async rows<T>(query: string) {
      const db = new Database(board.dbPath, { readonly: true });
      try {
        return db.prepare(query).all() as T[];
      } finally {
        db.close();
      }
    },
    async exec(statement: string) {
      const db = new Database(board.dbPath);
      try {
        db.pragma('busy_timeout = 10000');
        db.exec(statement);
      } finally {
        db.close();
      }
    },
    close: async () => reader.close(),
  };
}

function postgresDb(url: string): BoardDb {
  const sql = connectTo(url);
  return {
    async snapshot() {
      const tables: DbSnapshot['tables'] = {};
      await sql.begin('ISOLATION LEVEL REPEATABLE READ READ ONLY', async (tx) => {
        const names = await tx<Array<{ name: string }>>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`;
        for (const { name } of names) {
          if (APPEND_ONLY_ON_REFUSAL.has(name)) continue;
          const hash = createHash('sha256');
          const rows = await tx.unsafe<Array<{ row: string }>>(`SELECT row_to_json(t)::text AS row FROM "${name}" t ORDER BY 1`);
          for (const { row } of rows) hash.update(`${row}\n`);
          tables[name] = { rows: rows.length, sha256: hash.digest('hex') };
        }
      });
      return { tables };
    },
    async rows<T>(query: string) {
      return [...(await sql.unsafe(query))] as T[];
    },
    async exec(statement: string) {
      await sql.unsafe(statement);
    },
    close: () => sql.end({ timeout: 1 }),
  };
}
