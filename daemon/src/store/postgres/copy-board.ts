// `roundtable migrate --to postgres://…`: copies a SQLite board, audit log included, into an empty PostgreSQL
// database in one transaction, then checks that every table holds as many rows on both sides.
import type Database from 'better-sqlite3';
import type { Sql, Tx } from './connection.js';
import { MigrationRefused } from '../migration-refused.js';
import { MAINTENANCE_DEADLINES, openPool, type Schema } from './connection.js';
import { migratePostgres } from './migrate.js';

/** Parents before children, so every foreign key finds its row (store/transfer/postgres-to-sqlite.ts copies the same tables back). */
export const TABLES = [
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
  'work_records',
  'usage_reports',
] as const;
/** Tables with an identity id: after the copy, new ids continue after the largest one copied. */
const WITH_IDS = new Set(['tasks', 'claims', 'messages', 'reviews', 'activity', 'audit_log', 'room_messages', 'reservations', 'work_records', 'usage_reports']);
/** SQLite keeps booleans as 0/1. */
export const BOOLEAN_COLUMNS: Readonly<Record<string, readonly string[]>> = { reservations: ['exclusive'] };
const BATCH = 1000;

export interface CopyReport {
  readonly rows: Record<string, number>;
}

async function isEmpty(sql: Sql): Promise<string | undefined> {
  for (const table of [...TABLES, 'event_log']) {
    const [row] = await sql.unsafe(`SELECT EXISTS (SELECT 1 FROM ${table}) AS any`);
    if (row?.['any']) return table;
  }
  return undefined;
}

/** Copies one table's rows in batches of one multi-row INSERT (`into`: the INSERT's head, default the table's columns). */
async function copyRows(
  tx: Tx,
  options: { source: Database.Database; table: string; columns: readonly string[]; into?: string; convert?: (row: Record<string, unknown>) => void },
): Promise<number> {
  const { source, table, columns } = options;
  let copied = 0;
  let batch: Array<Record<string, unknown>> = [];
  const flush = async () => {
    if (batch.length === 0) return;
    // The names come from SQLite's own schema, every value is a parameter.
    const params: unknown[] = [];
    const tuples = batch.map((row) => `(${columns.map((c) => `$${params.push(row[c] ?? null)}`).join(', ')})`);
    await tx.unsafe(`${options.into ?? `INSERT INTO ${table} (${columns.map((c) => `"${c}"`).join(', ')})`} VALUES ${tuples.join(', ')}`, params);
    copied += batch.length;
    batch = [];
  };
  for (const row of source.prepare(`SELECT ${columns.map((c) => `"${c}"`).join(', ')} FROM ${table}`).iterate() as IterableIterator<Record<string, unknown>>) {
    options.convert?.(row);
    batch.push(row);
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  return copied;
}

/**
 * The event log with its ids and its signing key, so the change cursors the SQLite board gave out read on here: the
 * rows go in at transaction id 0, ordered by their ids below every row written later (a position is (xid, id); one
 * SQLite gave out is (0, id)), and retention's mark keeps its place (docs/DECISIONS.md, issue 33: export and import).
 */
async function copyEventLog(tx: Tx, source: Database.Database): Promise<number> {
  const copied = await copyRows(tx, {
    source,
    table: 'event_log',
    columns: ['id', 'at', 'kind', 'task_id', 'event'],
    into: `INSERT INTO event_log (id, at, kind, task_id, event) OVERRIDING SYSTEM VALUE`,
  });
  // The target held no event (isEmpty), so every row here is one just copied.
  await tx.unsafe(`UPDATE event_log SET xid = '0'`);
  await tx.unsafe(`SELECT setval(pg_get_serial_sequence('event_log', 'id'), COALESCE((SELECT MAX(id) FROM event_log), 0) + 1, false)`);
  const state = source.prepare('SELECT secret, pruned_through FROM event_log_state WHERE id = 1').get() as { secret: Buffer; pruned_through: number } | undefined;
  if (state) await tx`UPDATE event_log_state SET secret = ${state.secret}, pruned_xid = '0', pruned_id = ${state.pruned_through} WHERE id = 1`;
  return copied;
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
          const columns = source.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all() as string[];
          const booleans = BOOLEAN_COLUMNS[table] ?? [];
          rows[table] = await copyRows(tx, { source, table, columns, convert: (row) => booleans.forEach((column) => (row[column] = row[column] === 1)) });
          if (WITH_IDS.has(table)) {
            await tx.unsafe(`SELECT setval(pg_get_serial_sequence('${table}', 'id'), COALESCE((SELECT MAX(id) FROM ${table}), 0) + 1, false)`);
          }
        }
        rows['event_log'] = await copyEventLog(tx, source);
        // The check, inside the transaction: a count that differs rolls the whole copy back.
        for (const table of [...TABLES, 'event_log']) {
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
