// The task history (activity rows) on SQLite: written inside the transaction of the change it records.
import type Database from 'better-sqlite3';
import type { ActivityRow } from '../history-rows.js';

export class SqliteActivity {
  private readonly insert: Database.Statement;

  constructor(db: Database.Database) {
    this.insert = db.prepare(
      `INSERT INTO activity (task_id, agent, action, from_status, to_status, assignee, note, claim_id, edit, created_at)
       VALUES (@task_id, @agent, @action, @from_status, @to_status, @assignee, @note, @claim_id, @edit, @at)`,
    );
  }

  insertActivity(row: ActivityRow): void {
    this.insert.run({ ...row, edit: row.edit ?? null });
  }
}
