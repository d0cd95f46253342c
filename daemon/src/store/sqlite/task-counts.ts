// A project's tasks by state, read from its SQLite file beside a running daemon (for `roundtable projects list` and
// `projects remove`): opened read-only, no lock taken, so the daemon serving it keeps serving.
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { TASK_STATUSES, type TaskStatus } from 'roundtable-shared';

/**
 * The counts, or undefined when the file cannot be read here (its folder is not this user's, or it is not a board).
 * A project whose file does not exist yet (added, never served) has no tasks.
 */
export function readTaskCounts(dbPath: string): Record<TaskStatus, number> | undefined {
  const counts = Object.fromEntries(TASK_STATUSES.map((s) => [s, 0])) as Record<TaskStatus, number>;
  if (!existsSync(dbPath)) return counts;
  let db: Database.Database | undefined;
  try {
    db = new Database(dbPath, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    // Counted from the rows, not board_counts, so a file at any schema version answers the same.
    for (const row of db.prepare('SELECT status, COUNT(*) AS n FROM tasks GROUP BY status').all() as Array<{ status: string; n: number }>) {
      if (row.status in counts) counts[row.status as TaskStatus] = row.n;
    }
    return counts;
  } catch {
    return undefined;
  } finally {
    db?.close();
  }
}
