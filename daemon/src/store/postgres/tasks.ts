// Tasks on PostgreSQL: create, read, list, transitions and edits. Each write locks the task's row (SELECT ... FOR
// UPDATE) before the rule decides, so of concurrent claims through any number of daemons exactly one wins.
import type { Activity, Message, Review, Task, TaskStatus, TaskSummary } from 'roundtable-shared';
import { TASK_STATUSES } from 'roundtable-shared';
import { changedRow, createdRow, editedRow } from '../history-rows.js';
import { changedFields, endedClaim, priorityRank, settlesDependents, type TaskRow } from '../task-rows.js';
import {
  FIRST_PAGES,
  knownTotal,
  type CheckDependencies,
  type CheckTask,
  type DecideChange,
  type DecideEdit,
  type ItemPage,
  type NewMessage,
  type NewTask,
  type TaskDetail,
  type TaskDetailPages,
  type TaskPage,
  type TaskQuery,
  type WriteExtras,
} from '../store.js';
import { insertActivity } from './activity.js';
import { recordExtras } from './write-extras.js';
import type { Db, Tx } from './connection.js';
import { attachGraph, dependentIds, graphFacts, replaceEdges, settle, unfinishedDependentIds } from './dependencies.js';
import { endReservations } from './claim-end.js';
import { loadTask, lockRow, lockTask, SUMMARY_COLUMNS, TASK_COLUMNS, taskOf, toTask, type SummaryRow } from './task-read.js';

const now = () => new Date().toISOString();

async function toSummaries(db: Db, rows: readonly SummaryRow[]): Promise<TaskSummary[]> {
  return (await attachGraph(db, rows)).map((row) => ({ ...row, required_skills: JSON.parse(row.required_skills) as string[] }));
}

export async function createTask(tx: Tx, task: NewTask, extras: WriteExtras<Task> | undefined, check: CheckDependencies | undefined): Promise<Task> {
  const dependsOn = task.dependsOn ?? [];
  if (check) check(await graphFacts(tx, dependsOn, false));
  const at = now();
  const [inserted] = await tx<Array<{ id: number }>>`
    INSERT INTO tasks (title, description, required_skills, status, assignee, created_by, created_at, updated_at, priority)
    VALUES (${task.title}, ${task.description}, ${JSON.stringify(task.requiredSkills)}, 'open', ${task.assignee}, ${task.createdBy}, ${at}, ${at},
      ${priorityRank(task.priority ?? 'normal')})
    RETURNING id`;
  const id = inserted!.id;
  if (task.requiredSkills.length > 0) {
    await tx`INSERT INTO task_skills (task_id, skill) SELECT ${id}, unnest(${[...task.requiredSkills]}::text[]) ON CONFLICT DO NOTHING`;
  }
  if (dependsOn.length > 0) await replaceEdges(tx, id, dependsOn);
  await insertActivity(tx, createdRow(id, task, at));
  return recordExtras(tx, extras, await loadTask(tx, id), id);
}

const MESSAGE_COLUMNS = 'id, task_id, author, kind, text, created_at';
const ACTIVITY_COLUMNS = 'id, task_id, agent, action, from_status, to_status, assignee, note, created_at, claim_id, edit';

export async function getTask(tx: Tx, id: number, pages: TaskDetailPages = FIRST_PAGES): Promise<TaskDetail | undefined> {
  const [row] = await tx.unsafe<TaskRow[]>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE id = $1`, [id], { prepare: true });
  if (!row) return undefined;
  const messages = await pageOf<Message>(tx, 'messages', MESSAGE_COLUMNS, id, pages.messages);
  const history = await pageOf<Omit<Activity, 'edit'> & { edit: string | null }>(tx, 'activity', ACTIVITY_COLUMNS, id, pages.history);
  return {
    task: await toTask(tx, row),
    messages: messages.rows,
    messageCount: knownTotal(messages, pages.messages) ?? (await countOf(tx, 'messages', id)),
    moreMessages: messages.more,
    reviews: [...(await tx<Review[]>`SELECT id, task_id, reviewer, verdict, note, created_at FROM reviews WHERE task_id = ${id} ORDER BY id`)],
    history: history.rows.map((a) => ({ ...a, edit: a.edit === null ? null : (JSON.parse(a.edit) as Activity['edit']) })),
    historyCount: knownTotal(history, pages.history) ?? (await countOf(tx, 'activity', id)),
    moreHistory: history.more,
    dependents: await dependentIds(tx, id),
  };
}

/** One page of a task's messages or history in the order asked, and whether more remain past it (as on SQLite). */
async function pageOf<T extends object>(tx: Tx, table: 'messages' | 'activity', columns: string, task: number, page: ItemPage): Promise<{ rows: T[]; more: boolean }> {
  if (page.limit === 0) return { rows: [], more: false };
  const query = page.newestFirst
    ? `SELECT ${columns} FROM ${table} WHERE task_id = $1 AND id < $2::bigint ORDER BY id DESC LIMIT $3`
    : `SELECT ${columns} FROM ${table} WHERE task_id = $1 AND id > $2::bigint ORDER BY id LIMIT $3`;
  const from = page.from ?? (page.newestFirst ? Number.MAX_SAFE_INTEGER : 0);
  const rows = [...(await tx.unsafe<T[]>(query, [task, from, page.limit + 1], { prepare: true }))];
  const more = rows.length > page.limit;
  return { rows: more ? rows.slice(0, page.limit) : rows, more };
}

async function countOf(tx: Tx, table: 'messages' | 'activity', task: number): Promise<number> {
  const [row] = await tx.unsafe<Array<{ n: number }>>(`SELECT COUNT(*)::int AS n FROM ${table} WHERE task_id = $1`, [task], { prepare: true });
  return row!.n;
}

export async function listTasks(db: Db, query: TaskQuery): Promise<TaskPage> {
  const byPriority = query.order === 'priority';
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const where = [byPriority ? `(priority, id) > (${param(query.afterRank ?? -1)}::int, ${param(query.afterId)}::int)` : `id > ${param(query.afterId)}::int`];
  if (query.status) where.push(`status = ${param(query.status)}`);
  if (query.assignee) where.push(`assignee = ${param(query.assignee)}`);
  if (query.claimableBy) {
    where.push(
      "status = 'open'",
      'blocker_count = 0',
      `(assignee IS NULL OR assignee = ${param(query.claimableBy.name)})`,
      `NOT EXISTS (SELECT 1 FROM task_skills s WHERE s.task_id = tasks.id AND s.skill <> ALL(${param([...query.claimableBy.skills])}::text[]))`,
    );
  }
  if (query.ready && !query.claimableBy) where.push("status = 'open'", 'blocker_count = 0');
  const limit = param(query.limit + 1);
  const text = `SELECT ${SUMMARY_COLUMNS} FROM tasks WHERE ${where.join(' AND ')} ORDER BY ${byPriority ? 'priority, id' : 'id'} LIMIT ${limit}`;
  // One prepared statement per filter combination (the text differs), as on SQLite.
  const rows = await db.unsafe<SummaryRow[]>(text, params as never[], { prepare: true });
  const more = rows.length > query.limit;
  const page = more ? rows.slice(0, query.limit) : [...rows];
  const last = more ? page[page.length - 1]! : undefined;
  return { tasks: await toSummaries(db, page), lastId: last ? last.id : null, lastRank: last ? last.priority : null };
}

export async function latestTasks(db: Db, status: TaskStatus, limit: number): Promise<TaskSummary[]> {
  return toSummaries(db, await db.unsafe<SummaryRow[]>(`SELECT ${SUMMARY_COLUMNS} FROM tasks WHERE status = $1 ORDER BY id DESC LIMIT $2`, [status, limit], { prepare: true }));
}

/**
 * A transition's writes in one statement: the new claim (when the change grants a lease), the task's row, the review
 * (when there is one) and the history row, returning the row as it now is. A claim is then five round trips to the
 * database (BEGIN, the lock, this, the audit row, COMMIT) where it was ten, and the row lock is held that much
 * shorter under contention between daemons.
 */
const TRANSITION = `WITH new_claim AS (
    INSERT INTO claims (task_id, agent, claimed_at) SELECT $1, $2, $3 WHERE $4::boolean RETURNING id
  ), updated AS (
    UPDATE tasks SET status = $5, assignee = $2, result = $6, claim_id = COALESCE((SELECT id FROM new_claim), $7::int),
      lease_expires_at = $8, updated_at = $3
    WHERE id = $1 RETURNING ${TASK_COLUMNS}
  ), review AS (
    INSERT INTO reviews (task_id, reviewer, verdict, note, submitter, created_at) SELECT $1, $9, $10, $11, $12, $3 WHERE $13::boolean
  ), history AS (
    INSERT INTO activity (task_id, agent, action, from_status, to_status, assignee, note, claim_id, edit, created_at)
    SELECT $1, $9, $14, $15, $5, $2, $16, COALESCE((SELECT id FROM new_claim), $17::int), NULL, $3
  )
  SELECT * FROM updated`;

/** Locks the task, lets the rule decide, and writes the change with its history, all in the caller's transaction. */
export async function transition(tx: Tx, id: number, decide: DecideChange, extras: WriteExtras<Task> | undefined): Promise<Task> {
  const { edges, ...locked } = await lockRow(tx, id);
  const before = taskOf(locked, edges);
  const change = decide(before);
  const at = now();
  // The row and history as the change leaves them (store/task-rows.ts, history-rows.ts); where the change grants a
  // lease, the statement puts the new claim's id in place of the null these carry.
  const fields = changedFields(before, change, null);
  const history = changedRow(before, change, null, at);
  const review = change.review;
  const [row] = await tx.unsafe<TaskRow[]>(
    TRANSITION,
    [
      id,
      change.assignee,
      at,
      change.lease !== undefined,
      change.status,
      fields.result,
      fields.claimId,
      fields.leaseExpiresAt,
      history.agent,
      review?.verdict ?? null,
      review?.note ?? null,
      review?.submitter ?? null,
      review !== undefined,
      history.action,
      history.from_status,
      history.note,
      history.claim_id,
    ] as never[],
    { prepare: true },
  );
  const claimId = row!.claim_id;
  if (settlesDependents(before, change)) await settle(tx, id, change.status, at);
  // A reservation belongs to its claim: when the claim ends, so does it, in this same transaction.
  const ended = endedClaim(before, change, claimId, at);
  if (ended) await endReservations(tx, ended);
  // The task's own edges did not change, and neither did its blockers (their rows are not written here).
  return recordExtras(tx, extras, taskOf(row!, edges), id);
}

export async function postMessage(tx: Tx, id: number, check: CheckTask, message: NewMessage, extras: WriteExtras<Message> | undefined): Promise<Message> {
  // FOR UPDATE: the task cannot change state (say, be cancelled) between the check and the insert.
  const task = await lockTask(tx, id);
  check(task);
  const at = now();
  const [row] = await tx<Array<{ id: number }>>`INSERT INTO messages (task_id, author, kind, text, created_at)
    VALUES (${id}, ${message.author}, ${message.kind}, ${message.text}, ${at}) RETURNING id`;
  const posted: Message = { id: row!.id, task_id: id, author: message.author, kind: message.kind, text: message.text, created_at: at };
  return recordExtras(tx, extras, posted, id);
}

export async function updateTask(tx: Tx, id: number, dependsOn: readonly number[] | undefined, decide: DecideEdit, extras: WriteExtras<Task> | undefined): Promise<Task> {
  const before = await lockTask(tx, id);
  const edit = decide(before, await graphFacts(tx, dependsOn ?? [], dependsOn !== undefined));
  if (edit) {
    const at = now();
    const { set } = edit;
    const assignee = set.assignee === undefined ? before.assignee : set.assignee;
    await tx`UPDATE tasks SET title = ${set.title ?? before.title}, description = ${set.description ?? before.description},
      required_skills = ${JSON.stringify(set.requiredSkills ?? before.required_skills)}, priority = ${priorityRank(set.priority ?? before.priority)},
      assignee = ${assignee}, updated_at = ${at} WHERE id = ${id}`;
    if (set.requiredSkills) {
      await tx`DELETE FROM task_skills WHERE task_id = ${id}`;
      if (set.requiredSkills.length > 0) {
        await tx`INSERT INTO task_skills (task_id, skill) SELECT ${id}, unnest(${[...set.requiredSkills]}::text[]) ON CONFLICT DO NOTHING`;
      }
    }
    if (set.dependsOn) await replaceEdges(tx, id, set.dependsOn);
    await insertActivity(tx, editedRow(before, edit, assignee, at));
  }
  return recordExtras(tx, extras, await loadTask(tx, id), id);
}

export async function dependentsOf(tx: Tx, id: number): Promise<TaskSummary[]> {
  const tasks: TaskSummary[] = [];
  for (const dependent of await unfinishedDependentIds(tx, id)) {
    const { description: _d, result: _r, ...summary } = await loadTask(tx, dependent);
    tasks.push(summary);
  }
  return tasks;
}

export async function countTasksByStatus(db: Db): Promise<Record<TaskStatus, number>> {
  const counts = Object.fromEntries(TASK_STATUSES.map((s) => [s, 0])) as Record<TaskStatus, number>;
  for (const row of await db<Array<{ status: TaskStatus; n: number }>>`SELECT status, COUNT(*) AS n FROM tasks GROUP BY status`) counts[row.status] = Number(row.n);
  return counts;
}
