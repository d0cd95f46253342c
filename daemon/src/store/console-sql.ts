// The SQL of the page's console reads (issue 36: "Needs me" and progress), the same text on both stores: named
// parameters are written :name here and turned into each driver's own form by the store that runs them.

/**
 * A help request nobody answered: the newest message of its task. Read from the help requests (their partial index,
 * migrations 018 / 017), not task by task, so it costs what the help requests cost, not what the unfinished tasks do.
 * CROSS JOIN: SQLite then keeps the help requests as the outer loop (it would otherwise start from the tasks by state).
 */
const UNANSWERED_HELP = `FROM messages m CROSS JOIN tasks t
  WHERE m.kind = 'help_request' AND t.id = m.task_id AND t.status IN ('open', 'claimed', 'submitted')
    AND NOT EXISTS (SELECT 1 FROM messages x WHERE x.task_id = m.task_id AND x.id > m.id)`;

/** Unfinished tasks whose newest message is a help request (nobody answered it yet), newest request first. */
export const HELP_REQUESTS = `SELECT t.id AS task_id, t.title, m.author, m.created_at AS at ${UNANSWERED_HELP}
  ORDER BY m.id DESC LIMIT :limit`;

/** How many unfinished tasks wait on an answer to their help request. */
export const COUNT_HELP_REQUESTS = `SELECT COUNT(*) AS n ${UNANSWERED_HELP}`;

/**
 * Room messages to the agent by name, unread, with no later message of the agent's own that reached their author (to
 * them or to all: a message to all gives every member a receipt).
 */
export const MESSAGES_TO = `SELECT m.id, m.author, substr(m.text, 1, 200) AS text, m.created_at AS at FROM room_receipts r JOIN room_messages m ON m.id = r.message_id
  WHERE r.agent = :agent AND r.read_at IS NULL AND m.recipients != 'all'
    AND NOT EXISTS (SELECT 1 FROM room_messages x JOIN room_receipts xr ON xr.message_id = x.id
      WHERE x.author = :agent AND x.id > m.id AND xr.agent = m.author)
  ORDER BY m.id DESC LIMIT :limit`;

/** Lapses since a time on tasks still open and not claimed since; the store keeps the newest per task. */
export const LAPSED = `SELECT a.task_id, t.title, c.agent, a.created_at AS at FROM activity a
  JOIN tasks t ON t.id = a.task_id JOIN claims c ON c.id = a.claim_id
  WHERE a.action = 'lease_expired' AND a.created_at >= :since AND t.status = 'open'
    AND NOT EXISTS (SELECT 1 FROM activity b WHERE b.task_id = a.task_id AND b.id > a.id AND b.action = 'claimed')
  ORDER BY a.id DESC LIMIT :limit`;

/** Both walk the (action, created_at) index of the history. */
export const COUNTS_BEFORE = `SELECT action, COUNT(*) AS n FROM activity
  WHERE action IN ('created', 'cancelled', 'approved') AND created_at < :from GROUP BY action`;

export const COUNTS_PER_DAY = `SELECT substr(created_at, 1, 10) AS day,
    SUM(CASE WHEN action = 'created' THEN 1 ELSE 0 END) AS created,
    SUM(CASE WHEN action = 'cancelled' THEN 1 ELSE 0 END) AS cancelled,
    SUM(CASE WHEN action = 'approved' THEN 1 ELSE 0 END) AS done
  FROM activity WHERE action IN ('created', 'cancelled', 'approved') AND created_at >= :from
  GROUP BY substr(created_at, 1, 10) ORDER BY day`;

/** Each approval with the start of the task's last claim before it (by the task's history index). */
export const CYCLES = `SELECT a.task_id, COALESCE(a.assignee, '') AS agent, a.created_at AS done_at,
    (SELECT MAX(c.created_at) FROM activity c WHERE c.task_id = a.task_id AND c.action = 'claimed' AND c.id < a.id) AS claimed_at
  FROM activity a WHERE a.action = 'approved' AND a.created_at >= :from`;

export const WIP = `SELECT assignee AS agent, COUNT(*) AS claimed FROM tasks WHERE status = 'claimed' AND assignee IS NOT NULL
  GROUP BY assignee ORDER BY assignee`;

/** The newest lapse per task, as the list shows it. */
export function newestPerTask<R extends { readonly task_id: number }>(rows: readonly R[]): R[] {
  const seen = new Set<number>();
  return rows.filter((row) => !seen.has(row.task_id) && seen.add(row.task_id));
}
