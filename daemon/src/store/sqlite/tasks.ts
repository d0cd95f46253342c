// Tasks on SQLite: create, read, list, transitions and edits. Writes run inside the store's group commit, which holds
// SQLite's one write lock, so the rule decides on the task as it stands.
import type Database from 'better-sqlite3';
import { TASK_STATUSES, type Activity, type Message, type Review, type Task, type TaskStatus, type TaskSummary } from 'roundtable-shared';
import { NotFound } from '../../errors.js';
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
import { changedRow, createdRow, editedRow } from '../history-rows.js';
import { changedFields, endedClaim, priorityRank, settlesDependents, type TaskRow } from '../task-rows.js';
import type { SqliteActivity } from './activity.js';
import type { SqliteAudit } from './audit.js';
import type { SqliteDependencies } from './dependencies.js';
import type { SqliteReservations } from './reservations.js';

const SUMMARY_COLUMNS = 'id, title, required_skills, status, assignee, created_by, claim_id, lease_expires_at, created_at, updated_at, priority';

type SummaryRow = Omit<TaskRow, 'description' | 'result' | 'blocker_count' | 'cancelled_blocker_count'>;

const now = () => new Date().toISOString();

export class SqliteTasks {
  private readonly stmt;
  private readonly listStatements = new Map<string, Database.Statement>();
  private readonly activity: SqliteActivity;
  private readonly audit: SqliteAudit;
  private readonly graph: SqliteDependencies;
  private readonly reservations: SqliteReservations;

  constructor(
    private readonly db: Database.Database,
    deps: { readonly activity: SqliteActivity; readonly audit: SqliteAudit; readonly graph: SqliteDependencies; readonly reservations: SqliteReservations },
  ) {
    this.activity = deps.activity;
    this.audit = deps.audit;
    this.graph = deps.graph;
    this.reservations = deps.reservations;
    this.stmt = {
      insertTask: db.prepare(
        `INSERT INTO tasks (title, description, required_skills, status, assignee, created_by, created_at, updated_at, priority)
         VALUES (@title, @description, @required_skills, 'open', @assignee, @created_by, @at, @at, @priority)`,
      ),
      insertSkill: db.prepare('INSERT OR IGNORE INTO task_skills (task_id, skill) VALUES (?, ?)'),
      deleteSkills: db.prepare('DELETE FROM task_skills WHERE task_id = ?'),
      editTask: db.prepare(
        `UPDATE tasks SET title = @title, description = @description, required_skills = @required_skills, priority = @priority,
           assignee = @assignee, updated_at = @at WHERE id = @id`,
      ),
      getTask: db.prepare('SELECT * FROM tasks WHERE id = ?'),
      updateTask: db.prepare(
        `UPDATE tasks SET status = @status, assignee = @assignee, result = @result, claim_id = @claim_id, lease_expires_at = @lease_expires_at,
           updated_at = @at WHERE id = @id`,
      ),
      insertClaim: db.prepare('INSERT INTO claims (task_id, agent, claimed_at) VALUES (?, ?, ?)'),
      insertReview: db.prepare('INSERT INTO reviews (task_id, reviewer, verdict, note, submitter, created_at) VALUES (?, ?, ?, ?, ?, ?)'),
      insertMessage: db.prepare('INSERT INTO messages (task_id, author, kind, text, created_at) VALUES (?, ?, ?, ?, ?)'),
      // Pages walk the (task_id, id) indexes from the cursor, so a task's 10,000th message costs what its first does.
      messagesNewest: db.prepare('SELECT * FROM messages WHERE task_id = @task AND id < @from ORDER BY id DESC LIMIT @limit'),
      messagesOldest: db.prepare('SELECT * FROM messages WHERE task_id = @task AND id > @from ORDER BY id LIMIT @limit'),
      countMessages: db.prepare('SELECT COUNT(*) FROM messages WHERE task_id = ?').pluck(),
      reviewsOf: db.prepare('SELECT id, task_id, reviewer, verdict, note, created_at FROM reviews WHERE task_id = ? ORDER BY id'),
      historyNewest: db.prepare('SELECT * FROM activity WHERE task_id = @task AND id < @from ORDER BY id DESC LIMIT @limit'),
      historyOldest: db.prepare('SELECT * FROM activity WHERE task_id = @task AND id > @from ORDER BY id LIMIT @limit'),
      countHistory: db.prepare('SELECT COUNT(*) FROM activity WHERE task_id = ?').pluck(),
      // The counters of migration 008, kept by triggers: reading them costs the same at a million tasks as at ten.
      boardCounts: db.prepare('SELECT name, n FROM board_counts'),
      // Walks the (status, id) index backwards: as cheap for the last 50 of a million as of the last 50 of 60.
      latestTasks: db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM tasks WHERE status = ? ORDER BY id DESC LIMIT ?`),
    };
  }

  private toTask(row: TaskRow): Task {
    const [task] = this.graph.attachGraph([row]);
    return { ...task!, required_skills: JSON.parse(row.required_skills) as string[] };
  }

  private toSummaries(rows: readonly SummaryRow[]): TaskSummary[] {
    return this.graph.attachGraph(rows).map((row) => ({ ...row, required_skills: JSON.parse(row.required_skills) as string[] }));
  }

  loadTask(id: number): Task {
    return this.toTask(this.stmt.getTask.get(id) as TaskRow);
  }

  /** The task as stored, inside the caller's write (which holds the database's write lock); NotFound if there is none. */
  lockTask(id: number): Task {
    const row = this.stmt.getTask.get(id) as TaskRow | undefined;
    if (!row) throw new NotFound(`task ${id} does not exist; list_tasks shows the tasks there are`);
    return this.toTask(row);
  }

  createTask(task: NewTask, extras: WriteExtras<Task> | undefined, check: CheckDependencies | undefined): Task {
    const dependsOn = task.dependsOn ?? [];
    if (check) check(this.graph.graphFacts(dependsOn, false));
    const at = now();
    const { lastInsertRowid } = this.stmt.insertTask.run({
      title: task.title,
      description: task.description,
      required_skills: JSON.stringify(task.requiredSkills),
      assignee: task.assignee,
      created_by: task.createdBy,
      priority: priorityRank(task.priority ?? 'normal'),
      at,
    });
    const id = Number(lastInsertRowid);
    for (const skill of task.requiredSkills) this.stmt.insertSkill.run(id, skill);
    if (dependsOn.length > 0) this.graph.replaceEdges(id, dependsOn);
    this.activity.insertActivity(createdRow(id, task, at));
    return this.audit.recordExtras(extras, this.loadTask(id), id);
  }

  /** Inside one read transaction, so the task and its histories are a consistent snapshot. */
  getTask(id: number, pages: TaskDetailPages = FIRST_PAGES): TaskDetail | undefined {
    const row = this.stmt.getTask.get(id) as TaskRow | undefined;
    if (!row) return undefined;
    const messages = this.pageOf<Message>(this.stmt.messagesNewest, this.stmt.messagesOldest, id, pages.messages);
    const history = this.pageOf<Omit<Activity, 'edit'> & { edit: string | null }>(this.stmt.historyNewest, this.stmt.historyOldest, id, pages.history);
    return {
      task: this.toTask(row),
      messages: messages.rows,
      messageCount: knownTotal(messages, pages.messages) ?? (this.stmt.countMessages.get(id) as number),
      moreMessages: messages.more,
      reviews: this.stmt.reviewsOf.all(id) as Review[],
      history: history.rows.map((a) => ({ ...a, edit: a.edit === null ? null : (JSON.parse(a.edit) as Activity['edit']) })),
      historyCount: knownTotal(history, pages.history) ?? (this.stmt.countHistory.get(id) as number),
      moreHistory: history.more,
      dependents: this.graph.dependentIds(id),
    };
  }

  /** One page of a task's messages or history in the order asked, and whether more remain past it. */
  private pageOf<T>(newest: Database.Statement, oldest: Database.Statement, task: number, page: ItemPage): { rows: T[]; more: boolean } {
    if (page.limit === 0) return { rows: [], more: false };
    const from = page.from ?? (page.newestFirst ? Number.MAX_SAFE_INTEGER : 0);
    const rows = (page.newestFirst ? newest : oldest).all({ task, from, limit: page.limit + 1 }) as T[];
    const more = rows.length > page.limit;
    return { rows: more ? rows.slice(0, page.limit) : rows, more };
  }

  listTasks(query: TaskQuery): TaskPage {
    const statement = this.listStatement(query);
    const rows = statement.all({
      after: query.afterId,
      after_rank: query.afterRank ?? -1,
      status: query.status,
      assignee: query.assignee,
      claimant: query.claimableBy?.name,
      skills: query.claimableBy ? JSON.stringify(query.claimableBy.skills) : undefined,
      limit: query.limit + 1,
    } as Record<string, unknown>) as SummaryRow[];
    const more = rows.length > query.limit;
    const page = more ? rows.slice(0, query.limit) : rows;
    const last = more ? page[page.length - 1]! : undefined;
    return { tasks: this.toSummaries(page), lastId: last ? last.id : null, lastRank: last ? last.priority : null };
  }

  latestTasks(status: TaskStatus, limit: number): TaskSummary[] {
    return this.toSummaries(this.stmt.latestTasks.all(status, limit) as SummaryRow[]);
  }

  /** One prepared statement per filter combination, so SQLite can use the matching index. */
  private listStatement(query: TaskQuery): Database.Statement {
    const byPriority = query.order === 'priority';
    const key = `${query.status ? 's' : ''}${query.assignee ? 'a' : ''}${query.claimableBy ? 'c' : ''}${query.ready ? 'r' : ''}${byPriority ? 'p' : ''}`;
    let statement = this.listStatements.get(key);
    if (!statement) {
      // In priority order the cursor is the (priority, id) pair, a range of the (priority, id) indexes.
      const where = [byPriority ? '(priority, id) > (@after_rank, @after)' : 'id > @after'];
      if (query.status) where.push('status = @status');
      if (query.assignee) where.push('assignee = @assignee');
      if (query.claimableBy) {
        where.push(
          "status = 'open'",
          'blocker_count = 0',
          '(assignee IS NULL OR assignee = @claimant)',
          'NOT EXISTS (SELECT 1 FROM task_skills s WHERE s.task_id = tasks.id AND s.skill NOT IN (SELECT value FROM json_each(@skills)))',
        );
      }
      if (query.ready && !query.claimableBy) where.push("status = 'open'", 'blocker_count = 0');
      // The ready set in priority order is exactly the partial index tasks_ready: walking it never meets a blocked task,
      // however many there are. Named, because without ANALYZE the planner may pick (status, priority, id) instead.
      const from = byPriority && (query.ready || query.claimableBy) ? 'tasks INDEXED BY tasks_ready' : 'tasks';
      statement = this.db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM ${from} WHERE ${where.join(' AND ')} ORDER BY ${byPriority ? 'priority, id' : 'id'} LIMIT @limit`);
      this.listStatements.set(key, statement);
    }
    return statement;
  }

  /** Reads the task, lets the rule decide, and writes the change with its history, all in the caller's transaction. */
  transition(id: number, decide: DecideChange, extras: WriteExtras<Task> | undefined): Task {
    const before = this.lockTask(id);
    const change = decide(before);
    const at = now();
    const freshClaimId = change.lease ? Number(this.stmt.insertClaim.run(id, change.assignee, at).lastInsertRowid) : null;
    const { claimId, leaseExpiresAt, result } = changedFields(before, change, freshClaimId);
    this.stmt.updateTask.run({ id, status: change.status, assignee: change.assignee, result, claim_id: claimId, lease_expires_at: leaseExpiresAt, at });
    if (change.review) {
      this.stmt.insertReview.run(id, change.actor, change.review.verdict, change.review.note, change.review.submitter, at);
    }
    this.activity.insertActivity(changedRow(before, change, claimId, at));
    if (settlesDependents(before, change)) this.graph.settle(id, change.status, at);
    // A reservation belongs to its claim: when the claim ends, so does it, in this same transaction.
    const ended = endedClaim(before, change, claimId, at);
    if (ended) this.reservations.endReservations(ended);
    return this.audit.recordExtras(extras, this.loadTask(id), id);
  }

  postMessage(id: number, check: CheckTask, message: NewMessage, extras: WriteExtras<Message> | undefined): Message {
    const task = this.lockTask(id);
    check(task);
    const at = now();
    const { lastInsertRowid } = this.stmt.insertMessage.run(id, message.author, message.kind, message.text, at);
    const posted: Message = { id: Number(lastInsertRowid), task_id: id, author: message.author, kind: message.kind, text: message.text, created_at: at };
    return this.audit.recordExtras(extras, posted, id);
  }

  updateTask(id: number, dependsOn: readonly number[] | undefined, decide: DecideEdit, extras: WriteExtras<Task> | undefined): Task {
    const before = this.lockTask(id);
    const edit = decide(before, this.graph.graphFacts(dependsOn ?? [], dependsOn !== undefined));
    if (edit) {
      const at = now();
      const { set } = edit;
      const assignee = set.assignee === undefined ? before.assignee : set.assignee;
      this.stmt.editTask.run({
        id,
        title: set.title ?? before.title,
        description: set.description ?? before.description,
        required_skills: JSON.stringify(set.requiredSkills ?? before.required_skills),
        priority: priorityRank(set.priority ?? before.priority),
        assignee,
        at,
      });
      if (set.requiredSkills) {
        this.stmt.deleteSkills.run(id);
        for (const skill of set.requiredSkills) this.stmt.insertSkill.run(id, skill);
      }
      if (set.dependsOn) this.graph.replaceEdges(id, set.dependsOn);
      this.activity.insertActivity(editedRow(before, edit, assignee, at));
    }
    return this.audit.recordExtras(extras, this.loadTask(id), id);
  }

  /** Inside one read transaction. */
  dependentsOf(id: number): TaskSummary[] {
    return this.graph.unfinishedDependentIds(id).map((dependent) => this.loadTask(dependent)).map(({ description: _d, result: _r, ...summary }) => summary);
  }

  countTasksByStatus(): Record<TaskStatus, number> {
    const counts = Object.fromEntries(TASK_STATUSES.map((s) => [s, 0])) as Record<TaskStatus, number>;
    for (const row of this.stmt.boardCounts.all() as { name: string; n: number }[]) if (row.name in counts) counts[row.name as TaskStatus] = row.n;
    return counts;
  }
}
