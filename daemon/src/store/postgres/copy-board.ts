// `roundtable migrate --to postgres://…`: copies a SQLite board, audit log included, into an empty PostgreSQL
// database in one transaction, then checks that every table holds as many rows on both sides.
import type Database from 'better-sqlite3';
import type { Sql } from './connection.js';
import { MigrationRefused } from '../migration-refused.js';
import { MAINTENANCE_DEADLINES, openPool, type Schema } from './connection.js';
import { migratePostgres } from './migrate.js';

/** Parents before children, so every foreign key finds its row. */
const TABLES = [
  'tasks',
  'task_skills',
  'task_dependencies',
  'claims',
  'messages',
  'reviews',
  'activity',
  'audit_log',
  'idempotency_keys',
  'agent_instances',
  'room_messages',
  'room_receipts',
  'agent_cursors',
  'reservations',
] as const;
/** Tables with an identity id: after the copy, new ids continue after the largest one copied. */
const WITH_IDS = new Set(['tasks', 'claims', 'messages', 'reviews', 'activity', 'audit_log', 'room_messages', 'reservations']);
/** SQLite keeps booleans as 0/1. */
const BOOLEAN_COLUMNS: Readonly<Record<string, readonly string[]>> = { reservations: ['exclusive'] };
const BATCH = 1000;

export interface CopyReport {
  readonly rows: Record<string, number>;
}

async function isEmpty(sql: Sql): Promise<string | undefined> {
  for (const table of TABLES) {
    const [row] = await sql.unsafe(`SELECT EXISTS (SELECT 1 FROM ${table}) AS any`);
    if (row?.['any']) return table;
  }
  return undefined;
}

/** Copies one project's SQLite board into its schema (`schema`: project-schema.ts schemaOf; undefined: `default`'s, the public one). */
export async function copyBoard(source: Database.Database, url: string, schema?: Schema): Promise<CopyReport> {
  const sql = openPool({ url, max: 1, deadlines: MAINTENANCE_DEADLINES, schema });
  try {
    await migratePostgres(sql);
    const busy = await isEmpty(sql);
    if (busy) throw new MigrationRefused(`the target database is not empty (table ${busy}${schema ? ` in schema ${schema}` : ''} has rows); migrate copies a board only into an empty database`);
    const rows: Record<string, number> = {};
    // One read transaction on SQLite (a consistent snapshot) and one write transaction on PostgreSQL: all or nothing.
    source.exec('BEGIN');
    try {
      await sql.begin(async (tx) => {
        for (const table of TABLES) {
          const columns = (source.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all() as string[]);
          const booleans = BOOLEAN_COLUMNS[table] ?? [];
          let copied = 0;
          let batch: Array<Record<string, unknown>> = [];
          const flush = async () => {
            if (batch.length === 0) return;
            // One multi-row INSERT per batch: the names come from SQLite's own schema, every value is a parameter.
            const params: unknown[] = [];
            const tuples = batch.map((row) => `(${columns.map((c) => `$${params.push(row[c] ?? null)}`).join(', ')})`);
            await tx.unsafe(`INSERT INTO ${table} (${columns.map((c) => `"${c}"`).join(', ')}) VALUES ${tuples.join(', ')}`, params);
            copied += batch.length;
            batch = [];
          };
          for (const row of source.prepare(`SELECT ${columns.map((c) => `"${c}"`).join(', ')} FROM ${table}`).iterate() as IterableIterator<Record<string, unknown>>) {
            for (const column of booleans) row[column] = row[column] === 1;
            batch.push(row);
            if (batch.length >= BATCH) await flush();
          }
          await flush();
          rows[table] = copied;
          if (WITH_IDS.has(table)) {
            await tx.unsafe(`SELECT setval(pg_get_serial_sequence('${table}', 'id'), COALESCE((SELECT MAX(id) FROM ${table}), 0) + 1, false)`);
          }
        }
        // The check, inside the transaction: a count that differs rolls the whole copy back.
        for (const table of TABLES) {
          const expected = source.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;
          const [row] = await tx.unsafe(`SELECT COUNT(*) AS n FROM ${table}`);
          if (Number(row?.['n']) !== expected) throw new MigrationRefused(`table ${table}: ${Number(row?.['n'])} rows copied, ${expected} in the SQLite board; nothing was kept`);
        }
      });
    } finally {
      source.exec('COMMIT');
    }
    return { rows };
  } finally {
    await sql.end({ timeout: 5 });
  }
}
