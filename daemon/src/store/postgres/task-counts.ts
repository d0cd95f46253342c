// Each project's tasks by state on a PostgreSQL board (for `roundtable projects list` and `projects remove`), read from
// the projects' schemas beside the running daemons, over one short-lived connection, migrating nothing.
import { TASK_STATUSES, type TaskStatus } from 'roundtable-shared';
import { openPool, quoteIdent } from './connection.js';
import { schemaOf } from './project-schema.js';

/** The tasks table of project `slug`: qualified by its schema; `default`'s found on the database's own path. */
function tasksOf(slug: string): string {
  const schema = schemaOf(slug);
  return schema === undefined ? 'tasks' : `${quoteIdent(schema)}.tasks`;
}

/** The counts of each slug's project; a project whose schema is not made yet (added, never served) has no tasks. */
export async function readProjectTaskCounts(url: string, slugs: readonly string[]): Promise<Map<string, Record<TaskStatus, number>>> {
  const counts = new Map<string, Record<TaskStatus, number>>();
  const sql = openPool({ url, max: 1 });
  try {
    for (const slug of slugs) {
      const byStatus = Object.fromEntries(TASK_STATUSES.map((s) => [s, 0])) as Record<TaskStatus, number>;
      counts.set(slug, byStatus);
      const [table] = await sql`SELECT to_regclass(${tasksOf(slug)}) IS NOT NULL AS present`;
      if (!table?.['present']) continue;
      const rows = await sql.unsafe<Array<{ status: string; n: number }>>(`SELECT status, COUNT(*) AS n FROM ${tasksOf(slug)} GROUP BY status`);
      for (const row of rows) if (row.status in byStatus) byStatus[row.status as TaskStatus] = Number(row.n);
    }
    return counts;
  } finally {
    await sql.end({ timeout: 1 });
  }
}
