// get_task's whole read on PostgreSQL in one statement (issue 37): the task's row and edges, one page of its messages
// and of its history (each counted only when the page cannot tell the total), its reviews, dependents, reservations,
// latest work record and usage. One statement is one snapshot and one round trip; the rows come back as JSON built
// from the same columns the separate reads used, so they reach the caller in the same shapes.
import type { Activity, Message, Review } from 'roundtable-shared';
import { toReservation, type ReservationRow } from '../reservation-rows.js';
import type { ItemPage, TaskDetailPages, TaskView } from '../store.js';
import { foldUsage, NO_USAGE, workRecordOf, type UsageGroupRow, type WorkRow } from '../work-rows.js';
import type { Db } from './connection.js';
import { latestWorkJson, usageJson } from './work.js';
import { EDGES_OF_TASK, TASK_COLUMNS, taskOf, type LockedRow } from './task-read.js';

const jsonOf = (alias: string, columns: readonly string[]) => `json_build_object(${columns.map((c) => `'${c}', ${alias}.${c}`).join(', ')})`;
const MESSAGE = ['id', 'task_id', 'author', 'kind', 'text', 'created_at'];
const ACTIVITY = ['id', 'task_id', 'agent', 'action', 'from_status', 'to_status', 'assignee', 'note', 'created_at', 'claim_id', 'edit'];
const REVIEW = ['id', 'task_id', 'reviewer', 'verdict', 'note', 'created_at'];
const RESERVATION = ['id', 'task_id', 'claim_id', 'agent', 'scope', 'pattern', 'exclusive', 'reason', 'created_at'];

/** A page as a JSON array in the order asked, with its length: `LIMIT` is the page's limit plus one, to tell `more`. */
function pageJoin(table: 'messages' | 'activity', columns: readonly string[], alias: string, newestFirst: boolean, from: string, limit: string): string {
  const order = newestFirst ? 'DESC' : '';
  return `LEFT JOIN LATERAL (SELECT COALESCE(json_agg(${jsonOf('x', columns)} ORDER BY x.id ${order}), '[]'::json) AS rows, COUNT(*)::int AS n
    FROM (SELECT ${columns.join(', ')} FROM ${table} WHERE task_id = t.id AND id ${newestFirst ? '<' : '>'} ${from}::bigint ORDER BY id ${order} LIMIT ${limit}) x) ${alias} ON true`;
}

/** The statement for one combination of page orders (four in all, each prepared once per connection). */
function statement(messagesNewestFirst: boolean, historyNewestFirst: boolean): string {
  return `SELECT ${TASK_COLUMNS.split(', ').map((c) => `t.${c}`).join(', ')}, ${EDGES_OF_TASK.replaceAll('tasks.id', 't.id')} AS edges,
    mp.rows AS messages, CASE WHEN $4::boolean OR mp.n >= $3 THEN (SELECT COUNT(*)::int FROM messages WHERE task_id = t.id) END AS message_count,
    hp.rows AS history, CASE WHEN $7::boolean OR hp.n >= $6 THEN (SELECT COUNT(*)::int FROM activity WHERE task_id = t.id) END AS history_count,
    COALESCE((SELECT json_agg(${jsonOf('r', REVIEW)} ORDER BY r.id) FROM reviews r WHERE r.task_id = t.id), '[]'::json) AS reviews,
    COALESCE((SELECT json_agg(d.task_id ORDER BY d.task_id) FROM task_dependencies d WHERE d.depends_on = t.id), '[]'::json) AS dependents,
    COALESCE((SELECT json_agg(${jsonOf('v', RESERVATION)} ORDER BY v.id) FROM reservations v WHERE v.task_id = t.id), '[]'::json) AS reservations,
    ${latestWorkJson('t.id', '$8')} AS work,
    ${usageJson('t.id')} AS usage
  FROM tasks t
  ${pageJoin('messages', MESSAGE, 'mp', messagesNewestFirst, '$2', '$3')}
  ${pageJoin('activity', ACTIVITY, 'hp', historyNewestFirst, '$5', '$6')}
  WHERE t.id = $1`;
}

const STATEMENTS = new Map<string, string>();

interface ViewRow extends LockedRow {
  readonly messages: Message[];
  readonly message_count: number | null;
  readonly history: Array<Omit<Activity, 'edit'> & { edit: string | null }>;
  readonly history_count: number | null;
  readonly reviews: Review[];
  readonly dependents: number[];
  readonly reservations: ReservationRow[];
  readonly work: WorkRow | null;
  readonly usage: UsageGroupRow[];
}

const fromOf = (page: ItemPage) => page.from ?? (page.newestFirst ? Number.MAX_SAFE_INTEGER : 0);
/** The total must be counted: a later page, or a page of none. Otherwise a first page shorter than its limit tells it. */
const mustCount = (page: ItemPage) => page.from !== undefined || page.limit === 0;

/** Rows past the page's limit only told whether more remain; a page of none is none, as on SQLite. */
function cut<T>(rows: readonly T[], page: ItemPage): { rows: T[]; more: boolean } {
  if (page.limit === 0) return { rows: [], more: false };
  return { rows: rows.slice(0, page.limit), more: rows.length > page.limit };
}

export async function readTaskView(db: Db, id: number, pages: TaskDetailPages, includePatch: boolean): Promise<TaskView | undefined> {
  const key = `${pages.messages.newestFirst}:${pages.history.newestFirst}`;
  let text = STATEMENTS.get(key);
  if (!text) STATEMENTS.set(key, (text = statement(pages.messages.newestFirst, pages.history.newestFirst)));
  const [row] = await db.unsafe<ViewRow[]>(
    text,
    [id, fromOf(pages.messages), pages.messages.limit + 1, mustCount(pages.messages), fromOf(pages.history), pages.history.limit + 1, mustCount(pages.history), includePatch] as never[],
    { prepare: true },
  );
  if (!row) return undefined;
  const { edges, messages: messageRows, message_count, history: historyRows, history_count, reviews, dependents, reservations, work, usage, ...taskRow } = row;
  const messages = cut(messageRows, pages.messages);
  const history = cut(historyRows, pages.history);
  return {
    task: taskOf(taskRow, edges),
    messages: messages.rows,
    messageCount: message_count ?? messages.rows.length,
    moreMessages: messages.more,
    reviews,
    history: history.rows.map((a) => ({ ...a, edit: a.edit === null ? null : (JSON.parse(a.edit) as Activity['edit']) })),
    historyCount: history_count ?? history.rows.length,
    moreHistory: history.more,
    dependents,
    reservations: reservations.map(toReservation),
    work: { work: work ? workRecordOf(work, includePatch) : null, usage: foldUsage(usage).get(id) ?? NO_USAGE },
  };
}
