// The task history (activity rows) on PostgreSQL: written inside the transaction of the change it records.
import type { ActivityRow } from '../history-rows.js';
import type { Tx } from './connection.js';

export async function insertActivity(tx: Tx, row: ActivityRow): Promise<void> {
  await tx`INSERT INTO activity (task_id, agent, action, from_status, to_status, assignee, note, claim_id, edit, created_at)
    VALUES (${row.task_id}, ${row.agent}, ${row.action}, ${row.from_status}, ${row.to_status}, ${row.assignee}, ${row.note}, ${row.claim_id}, ${row.edit ?? null}, ${row.at})`;
}
