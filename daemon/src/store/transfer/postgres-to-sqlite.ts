// One project's board on PostgreSQL copied into a fresh SQLite board file (`projects export` and the backup that
// `projects remove --force` writes): the reverse of postgres/copy-board.ts, the same tables, the event log and its key included.
import Database from 'better-sqlite3';
import { MigrationRefused } from '../migration-refused.js';
import { createPrivately } from '../sqlite/connection.js';
import { migrate } from '../sqlite/migrate.js';
import { BOOLEAN_COLUMNS, TABLES } from '../postgres/copy-board.js';
import { quoteIdent, type Sql, type Tx } from '../postgres/connection.js';

const BATCH = 1000;

/** The rows of `table` in PostgreSQL, `columns` only (the SQLite board's), inserted into `target` in batches. */
async function copyTable(tx: Tx, target: Database.Database, table: string, columns: readonly string[], convert: (row: Record<string, unknown>) => void): Promise<number> {
  const insert = target.prepare(`INSERT INTO ${table} (${columns.map(quoteIdent).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
  const insertAll = target.transaction((rows: Array<Record<string, unknown>>) => {
    for (const row of rows) insert.run(columns.map((c) => row[c] ?? null));
  });
  let copied = 0;
  // Keyset pages by ctid would tie the copy to PostgreSQL's storage; OFFSET pages inside one snapshot are exact.
  for (let offset = 0; ; offset += BATCH) {
    const rows = await tx.unsafe<Array<Record<string, unknown>>>(`SELECT ${columns.map(quoteIdent).join(', ')} FROM ${table} ORDER BY 1 LIMIT ${BATCH} OFFSET ${offset}`);
    for (const row of rows) convert(row);
    insertAll(rows);
    copied += rows.length;
    if (rows.length < BATCH) return copied;
  }
}

/**
 * Makes a SQLite board at `dbPath` (a new file, mode 600, the SQLite store's own migrations) holding the board of the
 * project `sql` is scoped to, read in one snapshot. Event ids are kept, so a change cursor's id reads on there; the
 * transaction ids PostgreSQL orders by are not (docs/DECISIONS.md, issue 33: export and import on PostgreSQL).
 */
export async function copyProjectToSqlite(sql: Sql, dbPath: string): Promise<Record<string, number>> {
  createPrivately(dbPath);
  const target = new Database(dbPath);
  try {
    migrate(target);
    // Checked once at the end instead of row by row: PostgreSQL hands rows in its order, not parents first.
    target.pragma('foreign_keys = OFF');
    const rows: Record<string, number> = {};
    let ran = false;
    await sql.begin('ISOLATION LEVEL REPEATABLE READ READ ONLY', async (tx) => {
      // The pool runs a body again after a broken connection; the rows already in the file would then be there twice.
      if (ran) throw new MigrationRefused('the connection to PostgreSQL broke during the copy; nothing was written, run the command again');
      ran = true;
      for (const table of TABLES) {
        const columns = target.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all() as string[];
        const booleans = BOOLEAN_COLUMNS[table] ?? [];
        rows[table] = await copyTable(tx, target, table, columns, (row) => booleans.forEach((c) => (row[c] = row[c] === true ? 1 : 0)));
      }
      rows['event_log'] = await copyTable(tx, target, 'event_log', ['id', 'at', 'kind', 'task_id', 'event'], (row) => {
        if (row['at'] instanceof Date) row['at'] = row['at'].toISOString();
      });
      const [state] = await tx<Array<{ secret: Buffer; pruned_id: number }>>`SELECT secret, pruned_id FROM event_log_state WHERE id = 1`;
      if (state) target.prepare('UPDATE event_log_state SET secret = ?, pruned_through = ? WHERE id = 1').run(state.secret, Number(state.pruned_id));
    });
    const broken = target.pragma('foreign_key_check') as unknown[];
    if (broken.length) throw new MigrationRefused(`the project's board has ${broken.length} row(s) whose parent row is missing; nothing was written`);
    target.pragma('foreign_keys = ON');
    return rows;
  } finally {
    target.close();
  }
}
