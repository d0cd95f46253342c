// The task history (activity rows) on PostgreSQL: written inside the transaction of the change it records.
import type { Tx } from './connection.js';

export interface ActivityRow {
  readonly task_id: number;
  readonly agent: string;
  readonly action: string;
  readonly from_status: string | null;
  readonly to_status: string;
  readonly assignee: string | null;
  readonly note: string | null;
  readonly claim_id: number | null;
  readonly edit?: string | null;
  readonly at: string;
}

export async function insertActivity(tx: Tx, row: ActivityRow): Promise<void> {
  await tx`INSERT INTO activity (task_id, agent, action, from_status, to_status, assignee, note, claim_id, edit, created_at)
    VALUES (${row.task_id}, ${row.agent}, ${row.action}, ${row.from_status}, ${row.to_status}, ${row.assignee}, ${row.note}, ${row.claim_id}, ${row.edit ?? null}, ${row.at})`;
}
