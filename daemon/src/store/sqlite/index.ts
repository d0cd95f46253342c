// The board store on SQLite (better-sqlite3): WAL, synchronous=FULL, every write one savepoint in a group commit.
import { closeSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { LIMITS, TASK_STATUSES, type Activity, type Message, type Reservation, type Review, type Task, type TaskStatus, type TaskSummary } from 'roundtable-shared';
import { NotFound } from '../../errors.js';
import { log } from '../../log.js';
import { GroupCommit } from './group-commit.js';
import { migrate } from '../migrate.js';
import { SqliteDependencies } from './dependencies.js';
import { priorityRank, type TaskRow } from '../task-rows.js';
import { SqliteReservations } from './reservations.js';
import {
  IdempotencyKeyTaken,
  type AuditRow,
  type BoardStore,
  type CheckDependencies,
  type CheckTask,
  type ClaimRecord,
  type DecideChange,
  type DecideEdit,
  type DecideReservation,
  type ExpiredLease,
  type Holding,
  type InstanceLease,
  type LeaseView,
  type NewMessage,
  type NewRoomMessage,
  type PendingCounts,
  type PendingQuery,
  type ReservationLookup,
  type ReceiptRow,
  type ReviewNotice,
  type StoredRoomMessage,
  type NewTask,
  type ResponseRecord,
  type WriteExtras,
  type StoredResponse,
  type TaskDetail,
  type TaskDetailPages,
  type ItemPage,
  type TaskPage,
  type TaskQuery,
  FIRST_PAGES,
  knownTotal,
} from '../store.js';

const SUMMARY_COLUMNS = 'id, title, required_skills, status, assignee, created_by, claim_id, lease_expires_at, created_at, updated_at, priority';

type SummaryRow = Omit<TaskRow, 'description' | 'result' | 'blocker_count' | 'cancelled_blocker_count'>;

const now = () => new Date().toISOString();

interface RoomRow {
  id: number;
  author: string;
  recipients: string;
  text: string;
  created_at: string;
}

function toRoomMessage(row: RoomRow): StoredRoomMessage {
  return { id: row.id, from: row.author, to: row.recipients === 'all' ? 'all' : (JSON.parse(row.recipients) as string[]), text: row.text, created_at: row.created_at };
}

/**
 * Creates a missing database file with mode 600 before SQLite opens it: SQLite would create it 644 less the umask,
 * and it gives the -wal and -shm files the database file's mode, so all three stay private to the daemon's user.
 * An existing file keeps the mode its owner gave it.
 */
export function createPrivately(path: string): void {
  if (path === ':memory:' || path === '') return;
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

export interface SqliteStoreOptions {
  readonly path: string;
  readonly busyTimeoutMs?: number;
}

export class SqliteStore implements BoardStore {
  /** Per agent, the time of its newest audit row appended with a later group (see appendAudit). */
  private readonly lastDeferredCall = new Map<string, string>();
  readonly db: Database.Database;
  private readonly stmt;
  private readonly listStatements = new Map<string, Database.Statement>();
  private readonly graph: SqliteDependencies;
  private readonly reservations: SqliteReservations;
  /** Every write goes through it: concurrent writes share one transaction and one fsync. */
  private readonly group: GroupCommit;

  constructor(options: SqliteStoreOptions) {
    createPrivately(options.path);
    this.db = new Database(options.path);
    this.db.pragma('journal_mode = WAL');
    // FULL: a write is on disk before it is acknowledged, so it survives a power loss.
    this.db.pragma('synchronous = FULL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    // After a checkpoint the WAL file is cut back to this size, so it does not stay as large as its largest burst.
    this.db.pragma('journal_size_limit = 67108864');
    // SQLite's default page cache is 2 MB; at a million tasks the index pages the hot calls walk no longer fit, and
    // every call would reread them from the OS. 64 MB holds them (it is an upper bound, taken only as pages are read).
    this.db.pragma('cache_size = -65536');
    migrate(this.db);
    const db = this.db;
    this.graph = new SqliteDependencies(db);
    this.reservations = new SqliteReservations(db);
    this.group = new GroupCommit(db, { onDeferredError: (error) => log.error('audit write failed', { error: String(error) }) });
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
      insertEdited: db.prepare(
        `INSERT INTO activity (task_id, agent, action, from_status, to_status, assignee, note, claim_id, edit, created_at)
         VALUES (@task_id, @agent, 'edited', @status, @status, @assignee, NULL, @claim_id, @edit, @at)`,
      ),
      getTask: db.prepare('SELECT * FROM tasks WHERE id = ?'),
      updateTask: db.prepare(
        `UPDATE tasks SET status = @status, assignee = @assignee, result = @result, claim_id = @claim_id, lease_expires_at = @lease_expires_at,
           updated_at = @at WHERE id = @id`,
      ),
      insertActivity: db.prepare(
        `INSERT INTO activity (task_id, agent, action, from_status, to_status, assignee, note, claim_id, created_at)
         VALUES (@task_id, @agent, @action, @from_status, @to_status, @assignee, @note, @claim_id, @at)`,
      ),
      insertClaim: db.prepare('INSERT INTO claims (task_id, agent, claimed_at) VALUES (?, ?, ?)'),
      markClaimLapsed: db.prepare('UPDATE claims SET lapsed_at = ? WHERE id = ?'),
      // The partial index on lease_expires_at finds what is due without looking at unclaimed tasks.
      dueLeases: db.prepare(
        'SELECT id, assignee, claim_id, lease_expires_at FROM tasks WHERE lease_expires_at <= ? ORDER BY lease_expires_at LIMIT 500',
      ),
      // Conditional: only the claim that lapsed, only if it is still there; a second sweeper changes nothing.
      expireLease: db.prepare(
        `UPDATE tasks SET status = 'open', assignee = NULL, claim_id = NULL, lease_expires_at = NULL, updated_at = @at
         WHERE id = @id AND status = 'claimed' AND claim_id = @claim_id AND lease_expires_at <= @now`,
      ),
      renewLeases: db.prepare(
        "UPDATE tasks SET lease_expires_at = @until WHERE assignee = @agent AND status = 'claimed' AND lease_expires_at > @now AND lease_expires_at < @until",
      ),
      leasesHeldBy: db.prepare(
        "SELECT id AS task_id, claim_id, lease_expires_at FROM tasks WHERE assignee = ? AND status = 'claimed' AND lease_expires_at IS NOT NULL ORDER BY id",
      ),
      nextLeaseExpiry: db.prepare('SELECT MIN(lease_expires_at) FROM tasks WHERE lease_expires_at IS NOT NULL').pluck(),
      claimById: db.prepare('SELECT id, agent, claimed_at, lapsed_at FROM claims WHERE task_id = ? AND id = ?'),
      latestClaimBy: db.prepare('SELECT id, agent, claimed_at, lapsed_at FROM claims WHERE task_id = ? AND agent = ? ORDER BY id DESC LIMIT 1'),
      claimEnd: db.prepare("SELECT action, agent, created_at FROM activity WHERE task_id = ? AND claim_id = ? AND action != 'claimed' ORDER BY id DESC LIMIT 1"),
      countExpiredSince: db.prepare("SELECT COUNT(*) FROM activity WHERE action = 'lease_expired' AND created_at >= ?").pluck(),
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
      insertAudit: db.prepare('INSERT INTO audit_log (at, agent, tool, task_id, outcome) VALUES (?, ?, ?, ?, ?)'),
      lastSeen: db.prepare('SELECT MAX(at) AS at FROM audit_log WHERE agent = ?').pluck(),
      findResponse: db.prepare(
        'SELECT tool, request_hash AS requestHash, response, created_at AS createdAt FROM idempotency_keys WHERE agent = ? AND key = ? AND created_at >= ?',
      ),
      dropExpiredKey: db.prepare('DELETE FROM idempotency_keys WHERE agent = ? AND key = ? AND created_at < ?'),
      insertResponse: db.prepare(
        'INSERT INTO idempotency_keys (agent, key, tool, request_hash, response, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
      ),
      purgeResponses: db.prepare('DELETE FROM idempotency_keys WHERE created_at < ?'),
      getInstance: db.prepare('SELECT instance_id AS instanceId, started_at AS startedAt, expires_at AS expiresAt FROM agent_instances WHERE agent = ?'),
      putInstance: db.prepare(
        `INSERT INTO agent_instances (agent, instance_id, started_at, expires_at) VALUES (@agent, @instance, @now, @expires)
         ON CONFLICT (agent) DO UPDATE SET
           started_at = CASE WHEN instance_id = @instance THEN started_at ELSE @now END,
           instance_id = @instance, expires_at = @expires`,
      ),
      deleteInstance: db.prepare('DELETE FROM agent_instances WHERE agent = ? AND instance_id = ?'),
      insertRoomMessage: db.prepare('INSERT INTO room_messages (author, recipients, text, created_at) VALUES (?, ?, ?, ?)'),
      insertReceipt: db.prepare('INSERT OR IGNORE INTO room_receipts (message_id, agent) VALUES (?, ?)'),
      ensureCursor: db.prepare('INSERT OR IGNORE INTO agent_cursors (agent) VALUES (?)'),
      roomCursor: db.prepare('SELECT room_read_id FROM agent_cursors WHERE agent = ?').pluck(),
      setRoomCursor: db.prepare('UPDATE agent_cursors SET room_read_id = ? WHERE agent = ? AND room_read_id < ?'),
      reviewCursor: db.prepare('SELECT review_seen_id FROM agent_cursors WHERE agent = ?').pluck(),
      setReviewCursor: db.prepare('UPDATE agent_cursors SET review_seen_id = ? WHERE agent = ? AND review_seen_id < ?'),
      // Visible to an agent: sent to all by someone else, or addressed to it (a receipt row exists).
      unread: db.prepare(
        `SELECT m.id, m.author, m.recipients, m.text, m.created_at FROM room_messages m
         WHERE m.id > @after AND m.author != @agent
           AND (m.recipients = 'all' OR EXISTS (SELECT 1 FROM room_receipts r WHERE r.agent = @agent AND r.message_id = m.id))
         ORDER BY m.id LIMIT @limit`,
      ),
      countUnread: db.prepare(
        `SELECT COUNT(*) FROM room_messages m
         WHERE m.id > @after AND m.author != @agent
           AND (m.recipients = 'all' OR EXISTS (SELECT 1 FROM room_receipts r WHERE r.agent = @agent AND r.message_id = m.id))`,
      ).pluck(),
      markRead: db.prepare('UPDATE room_receipts SET read_at = ? WHERE agent = ? AND message_id <= ? AND read_at IS NULL'),
      roomLog: db.prepare(
        `SELECT m.id, m.author, m.recipients, m.text, m.created_at FROM room_messages m
         WHERE m.id < @before
           AND (m.recipients = 'all' OR m.author = @agent OR EXISTS (SELECT 1 FROM room_receipts r WHERE r.agent = @agent AND r.message_id = m.id))
         ORDER BY m.id DESC LIMIT @limit`,
      ),
      roomMessage: db.prepare('SELECT id, author, recipients, text, created_at FROM room_messages WHERE id = ?'),
      receiptsOf: db.prepare('SELECT agent, read_at FROM room_receipts WHERE message_id = ? ORDER BY agent'),
      // A sum over the ready set's distinct (required skills, assignee) rows (migration 008), not over its tasks.
      countClaimable: db.prepare(
        `SELECT COALESCE(SUM(n), 0) FROM ready_skill_sets r WHERE (r.assignee = '' OR r.assignee = @agent)
           AND NOT EXISTS (SELECT 1 FROM json_each(r.skills) s WHERE s.value NOT IN (SELECT value FROM json_each(@skills)))`,
      ).pluck(),
      // The counters of migration 008, kept by triggers: reading them costs the same at a million tasks as at ten.
      boardCount: db.prepare('SELECT n FROM board_counts WHERE name = ?').pluck(),
      boardCounts: db.prepare('SELECT name, n FROM board_counts'),
      countSubmittedOwn: db.prepare("SELECT COUNT(*) FROM tasks WHERE assignee = ? AND status = 'submitted'").pluck(),
      reviewsFor: db.prepare('SELECT id, task_id, verdict, reviewer, created_at FROM reviews WHERE submitter = ? AND id > ? ORDER BY id'),
      // Per agent, on the (assignee, status, id) index: what one member holds, however large the board.
      holdingsOf: db.prepare("SELECT id, title, status, claim_id, lease_expires_at FROM tasks WHERE assignee = ? AND status = 'claimed' ORDER BY id"),
      // Walks the (status, id) index backwards: as cheap for the last 50 of a million as of the last 50 of 60.
      latestTasks: db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM tasks WHERE status = ? ORDER BY id DESC LIMIT ?`),
    };
  }

  async createTask(task: NewTask, extras?: WriteExtras<Task>, check?: CheckDependencies): Promise<Task> {
    return this.group.write(() => {
      const dependsOn = task.dependsOn ?? [];
      if (check) check(this.graph.facts(dependsOn, false));
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
      if (dependsOn.length > 0) this.graph.replace(id, dependsOn);
      this.stmt.insertActivity.run({
        task_id: id,
        agent: task.createdBy,
        action: 'created',
        from_status: null,
        to_status: 'open',
        assignee: task.assignee,
        note: null,
        claim_id: null,
        at,
      });
      return this.recordExtras(extras, this.loadTask(id), id);
    });
  }

  async getTask(id: number, pages: TaskDetailPages = FIRST_PAGES): Promise<TaskDetail | undefined> {
    // One read transaction, so the task and its histories are a consistent snapshot.
    return this.db.transaction(() => {
      const row = this.stmt.getTask.get(id) as TaskRow | undefined;
      if (!row) return undefined;
      const messages = this.page<Message>(this.stmt.messagesNewest, this.stmt.messagesOldest, id, pages.messages);
      const history = this.page<Omit<Activity, 'edit'> & { edit: string | null }>(this.stmt.historyNewest, this.stmt.historyOldest, id, pages.history);
      return {
        task: this.toTask(row),
        messages: messages.rows,
        messageCount: this.total(messages, pages.messages, () => this.stmt.countMessages.get(id) as number),
        moreMessages: messages.more,
        reviews: this.stmt.reviewsOf.all(id) as Review[],
        history: history.rows.map((a) => ({ ...a, edit: a.edit === null ? null : (JSON.parse(a.edit) as Activity['edit']) })),
        historyCount: this.total(history, pages.history, () => this.stmt.countHistory.get(id) as number),
        moreHistory: history.more,
        dependents: this.graph.dependents(id),
      };
    })();
  }

  /** How many rows there are: a first page that holds them all has counted them already. */
  private total(page: { rows: unknown[]; more: boolean }, asked: ItemPage, count: () => number): number {
    return knownTotal(page, asked) ?? count();
  }

  /** One page of a task's rows in the order asked, and whether more remain past it. */
  private page<T>(newest: Database.Statement, oldest: Database.Statement, task: number, page: ItemPage): { rows: T[]; more: boolean } {
    if (page.limit === 0) return { rows: [], more: false };
    const from = page.from ?? (page.newestFirst ? Number.MAX_SAFE_INTEGER : 0);
    const rows = (page.newestFirst ? newest : oldest).all({ task, from, limit: page.limit + 1 }) as T[];
    const more = rows.length > page.limit;
    return { rows: more ? rows.slice(0, page.limit) : rows, more };
  }

  async listTasks(query: TaskQuery): Promise<TaskPage> {
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

  async latestTasks(status: TaskStatus, limit: number): Promise<TaskSummary[]> {
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

  claimTask(id: number, decide: DecideChange, extras?: WriteExtras<Task>): Promise<Task> {
    return this.transition(id, decide, extras);
  }
  releaseTask(id: number, decide: DecideChange, extras?: WriteExtras<Task>): Promise<Task> {
    return this.transition(id, decide, extras);
  }
  submitResult(id: number, decide: DecideChange, extras?: WriteExtras<Task>): Promise<Task> {
    return this.transition(id, decide, extras);
  }
  reviewTask(id: number, decide: DecideChange, extras?: WriteExtras<Task>): Promise<Task> {
    return this.transition(id, decide, extras);
  }
  cancelTask(id: number, decide: DecideChange, extras?: WriteExtras<Task>): Promise<Task> {
    return this.transition(id, decide, extras);
  }

  /** Reads the task, lets the rule decide, and writes the change with its history, all in one transaction. */
  private async transition(id: number, decide: DecideChange, extras: WriteExtras<Task> | undefined): Promise<Task> {
    return this.group.write(() => {
      const before = this.requireTask(id);
      const change = decide(before);
      const at = now();
      // A new claim gets a fresh id and its lease; any other move out of `claimed` ends the lease.
      const claimId = change.lease ? Number(this.stmt.insertClaim.run(id, change.assignee, at).lastInsertRowid) : change.status === 'claimed' ? before.claim_id : null;
      this.stmt.updateTask.run({
        id,
        status: change.status,
        assignee: change.assignee,
        result: change.result === undefined ? before.result : change.result,
        claim_id: claimId,
        lease_expires_at: change.lease ? change.lease.expiresAt : change.status === 'claimed' ? before.lease_expires_at : null,
        at,
      });
      if (change.review) {
        this.stmt.insertReview.run(id, change.actor, change.review.verdict, change.review.note, change.review.submitter, at);
      }
      this.stmt.insertActivity.run({
        task_id: id,
        agent: change.actor,
        action: change.action,
        from_status: before.status,
        to_status: change.status,
        assignee: change.assignee,
        note: change.note ?? null,
        claim_id: change.lease ? claimId : before.claim_id,
        at,
      });
      // Reaching done unblocks dependents; cancelled strands them. Either way they are recounted now.
      if ((change.status === 'done' || change.status === 'cancelled') && before.status !== change.status) this.graph.settle(id, change.status, at);
      // A reservation belongs to its claim: when the claim ends, so does it, in this same transaction.
      if (before.claim_id !== null && claimId !== before.claim_id) {
        this.endReservations({ taskId: id, claimId: before.claim_id, status: change.status, assignee: change.assignee, how: change.action, at });
      }
      return this.recordExtras(extras, this.loadTask(id), id);
    });
  }

  async postMessage(id: number, check: CheckTask, message: NewMessage, extras?: WriteExtras<Message>): Promise<Message> {
    return this.group.write(() => {
      check(this.requireTask(id));
      const at = now();
      const { lastInsertRowid } = this.stmt.insertMessage.run(id, message.author, message.kind, message.text, at);
      const posted: Message = { id: Number(lastInsertRowid), task_id: id, author: message.author, kind: message.kind, text: message.text, created_at: at };
      return this.recordExtras(extras, posted, id);
    });
  }

  /**
   * Inside the caller's transaction: the call's audit row, and the response under its idempotency key
   * (throwing, so rolling back, if another request took the key first).
   */
  private recordExtras<T>(extras: WriteExtras<T> | undefined, result: T, taskId: number | null): T {
    this.recordResponse(extras?.response, result);
    const audit = extras?.audit;
    if (audit) {
      this.stmt.insertAudit.run(now(), audit.row.agent, audit.row.tool, audit.row.taskId ?? taskId, 'ok');
      audit.written = true;
    }
    return result;
  }

  private recordResponse<T>(record: ResponseRecord<T> | undefined, result: T): T {
    if (!record) return result;
    this.stmt.dropExpiredKey.run(record.agent, record.key, record.expiredBefore);
    const { changes } = this.stmt.insertResponse.run(record.agent, record.key, record.tool, record.requestHash, record.render(result), now());
    if (changes === 0) throw new IdempotencyKeyTaken();
    return result;
  }

  async findResponse(agent: string, key: string, expiredBefore: string): Promise<StoredResponse | undefined> {
    return this.stmt.findResponse.get(agent, key, expiredBefore) as StoredResponse | undefined;
  }

  async purgeResponses(olderThan: string): Promise<number> {
    return this.group.write(() => this.stmt.purgeResponses.run(olderThan).changes);
  }

  /** A read's (or a failed call's) row: committed with the next group, or within AUDIT_FLUSH_MS; never waited for. */
  async appendAudit(row: AuditRow): Promise<void> {
    const at = now();
    // last_seen is read from the audit log; a row still waiting for its group is remembered here meanwhile.
    if (row.agent !== null) this.lastDeferredCall.set(row.agent, at);
    this.group.later(() => this.stmt.insertAudit.run(at, row.agent, row.tool, row.taskId, row.outcome));
  }

  async lastSeen(names: readonly string[]): Promise<Map<string, string>> {
    const seen = new Map<string, string>();
    for (const name of names) {
      const stored = this.stmt.lastSeen.get(name) as string | null;
      const deferred = this.lastDeferredCall.get(name);
      const at = stored !== null && (deferred === undefined || stored > deferred) ? stored : deferred;
      if (at) seen.set(name, at);
    }
    return seen;
  }

  async countTasksByStatus(): Promise<Record<TaskStatus, number>> {
    const counts = Object.fromEntries(TASK_STATUSES.map((s) => [s, 0])) as Record<TaskStatus, number>;
    for (const row of this.stmt.boardCounts.all() as { name: string; n: number }[]) if (row.name in counts) counts[row.name as TaskStatus] = row.n;
    return counts;
  }

  async acquireInstance(agent: string, instanceId: string, now: string, expiresAt: string): Promise<InstanceLease | undefined> {
    return this.group.write(() => {
      const held = this.stmt.getInstance.get(agent) as InstanceLease | undefined;
      if (held && held.instanceId !== instanceId && held.expiresAt > now) return held;
      this.stmt.putInstance.run({ agent, instance: instanceId, now, expires: expiresAt });
      return undefined;
    });
  }

  async releaseInstance(agent: string, instanceId: string): Promise<void> {
    await this.group.write(() => this.stmt.deleteInstance.run(agent, instanceId));
  }

  async postRoomMessage(message: NewRoomMessage, extras?: WriteExtras<StoredRoomMessage>): Promise<StoredRoomMessage> {
    return this.group.write(() => {
      const at = now();
      const recipients = message.to === 'all' ? 'all' : JSON.stringify(message.to);
      const id = Number(this.stmt.insertRoomMessage.run(message.author, recipients, message.text, at).lastInsertRowid);
      for (const agent of message.recipients) this.stmt.insertReceipt.run(id, agent);
      return this.recordExtras(extras, { id, from: message.author, to: message.to === 'all' ? 'all' : [...message.to], text: message.text, created_at: at }, null);
    });
  }

  async readUnread(
    agent: string,
    limit: number,
    extras?: WriteExtras<{ messages: StoredRoomMessage[]; more: boolean }>,
  ): Promise<{ messages: StoredRoomMessage[]; more: boolean }> {
    return this.group.write(() => {
      this.stmt.ensureCursor.run(agent);
      const after = this.stmt.roomCursor.get(agent) as number;
      const rows = this.stmt.unread.all({ after, agent, limit: limit + 1 }) as RoomRow[];
      const more = rows.length > limit;
      const page = (more ? rows.slice(0, limit) : rows).map(toRoomMessage);
      const last = page.at(-1)?.id;
      if (last !== undefined) {
        this.stmt.setRoomCursor.run(last, agent, last);
        this.stmt.markRead.run(now(), agent, last);
      }
      return this.recordExtras(extras, { messages: page, more }, null);
    });
  }

  async readRoomLog(agent: string, before: number | undefined, limit: number): Promise<StoredRoomMessage[]> {
    return (this.stmt.roomLog.all({ agent, before: before ?? Number.MAX_SAFE_INTEGER, limit }) as RoomRow[]).map(toRoomMessage);
  }

  async getRoomMessage(id: number): Promise<{ message: StoredRoomMessage; receipts: ReceiptRow[] } | undefined> {
    const row = this.stmt.roomMessage.get(id) as RoomRow | undefined;
    if (!row) return undefined;
    return { message: toRoomMessage(row), receipts: this.stmt.receiptsOf.all(id) as ReceiptRow[] };
  }

  async pendingFor(query: PendingQuery): Promise<PendingCounts> {
    return this.db.transaction(() => {
      const after = (this.stmt.roomCursor.get(query.agent) as number | undefined) ?? 0;
      const reviewAfter = (this.stmt.reviewCursor.get(query.agent) as number | undefined) ?? 0;
      return {
        unreadMessages: this.stmt.countUnread.get({ after, agent: query.agent }) as number,
        claimableTasks: query.claims ? (this.stmt.countClaimable.get({ agent: query.agent, skills: JSON.stringify(query.skills) }) as number) : 0,
        strandedTasks: this.graph.stranded(query.stranded ?? 'none', query.agent),
        toReview:
          query.reviews === 'all'
            ? this.submittedCount()
            : query.reviews === 'others'
              ? this.submittedCount() - (this.stmt.countSubmittedOwn.get(query.agent) as number)
              : 0,
        reviews: this.stmt.reviewsFor.all(query.agent, reviewAfter) as ReviewNotice[],
      };
    })();
  }

  async markReviewsSeen(agent: string, upToId: number): Promise<void> {
    await this.group.write(() => {
      this.stmt.ensureCursor.run(agent);
      this.stmt.setReviewCursor.run(upToId, agent, upToId);
    });
  }

  private submittedCount(): number {
    return this.stmt.boardCount.get('submitted') as number;
  }

  async holdings(agents: readonly string[]): Promise<Map<string, Holding[]>> {
    return this.db.transaction(() => {
      const held = new Map<string, Holding[]>();
      for (const agent of agents) {
        const rows = this.stmt.holdingsOf.all(agent) as Holding[];
        if (rows.length > 0) held.set(agent, rows);
      }
      return held;
    })();
  }

  async expireLeases(at: string): Promise<ExpiredLease[]> {
    return this.group.write(() => {
      const expired: ExpiredLease[] = [];
      for (const due of this.stmt.dueLeases.all(at) as Array<{ id: number; assignee: string; claim_id: number; lease_expires_at: string }>) {
        if (this.stmt.expireLease.run({ id: due.id, claim_id: due.claim_id, now: at, at }).changes === 0) continue;
        this.stmt.markClaimLapsed.run(due.lease_expires_at, due.claim_id);
        this.stmt.insertActivity.run({
          task_id: due.id,
          agent: 'roundtable',
          action: 'lease_expired',
          from_status: 'claimed',
          to_status: 'open',
          assignee: null,
          note: `claim ${due.claim_id} by ${due.assignee} lapsed at ${due.lease_expires_at}`,
          claim_id: due.claim_id,
          at,
        });
        this.endReservations({ taskId: due.id, claimId: due.claim_id, status: 'open', assignee: null, how: 'lease_expired', at });
        const task = this.loadTask(due.id);
        expired.push({ task, holder: due.assignee, claimId: due.claim_id, expiredAt: due.lease_expires_at });
      }
      return expired;
    });
  }

  async renewLeases(agent: string, until: string, at: string): Promise<number> {
    return this.group.write(() => this.stmt.renewLeases.run({ agent, until, now: at }).changes);
  }

  async leasesHeldBy(agent: string): Promise<LeaseView[]> {
    return this.stmt.leasesHeldBy.all(agent) as LeaseView[];
  }

  async nextLeaseExpiry(): Promise<string | null> {
    return (this.stmt.nextLeaseExpiry.get() as string | null) ?? null;
  }

  async findClaim(taskId: number, by: { readonly claimId: number } | { readonly agent: string }): Promise<ClaimRecord | undefined> {
    return this.db.transaction(() => {
      const row = ('claimId' in by ? this.stmt.claimById.get(taskId, by.claimId) : this.stmt.latestClaimBy.get(taskId, by.agent)) as
        | { id: number; agent: string; claimed_at: string; lapsed_at: string | null }
        | undefined;
      if (!row) return undefined;
      const end = this.stmt.claimEnd.get(taskId, row.id) as { action: string; agent: string; created_at: string } | undefined;
      return {
        claimId: row.id,
        agent: row.agent,
        claimedAt: row.claimed_at,
        lapsedAt: row.lapsed_at,
        ended: end ? { action: end.action, by: end.agent, at: end.created_at } : null,
      };
    })();
  }

  async countExpiredLeasesSince(since: string): Promise<number> {
    return this.stmt.countExpiredSince.get(since) as number;
  }

  async changeReservations(
    taskId: number,
    lookup: ReservationLookup | undefined,
    decide: DecideReservation,
    extras?: WriteExtras<Reservation[]>,
  ): Promise<Reservation[]> {
    return this.group.write(() => {
      const task = this.requireTask(taskId);
      const own = task.claim_id === null ? [] : this.reservations.ofClaim(task.claim_id);
      const change = decide(task, own, lookup ? this.reservations.near(lookup) : []);
      const at = now();
      for (const id of change.remove) this.reservations.remove(id, change.claimId);
      for (const row of change.add) this.reservations.add({ ...row, taskId, claimId: change.claimId, agent: change.actor, scope: change.scope, at });
      if (change.add.length === 0 && change.remove.length === 0) return this.recordExtras(extras, own, taskId);
      this.stmt.insertActivity.run({
        task_id: taskId,
        agent: change.actor,
        action: change.action,
        from_status: task.status,
        to_status: task.status,
        assignee: task.assignee,
        note: change.note,
        claim_id: change.claimId,
        at,
      });
      return this.recordExtras(extras, this.reservations.ofClaim(change.claimId), taskId);
    });
  }

  async reservationsNear(lookup: ReservationLookup): Promise<Reservation[]> {
    return this.reservations.near(lookup);
  }

  async listReservations(scope: string, afterId: number, limit: number): Promise<Reservation[]> {
    return this.reservations.page(scope, afterId, limit);
  }

  async reservationsOf(taskId: number): Promise<Reservation[]> {
    return this.reservations.ofTask(taskId);
  }

  /** Inside a transaction that ended a claim: deletes its reservations and, if it had any, says so in the history. */
  private endReservations(ended: { taskId: number; claimId: number; status: TaskStatus; assignee: string | null; how: string; at: string }): void {
    const count = this.reservations.endClaim(ended.claimId);
    if (count === 0) return;
    this.stmt.insertActivity.run({
      task_id: ended.taskId,
      agent: 'roundtable',
      action: 'paths_released',
      from_status: ended.status,
      to_status: ended.status,
      assignee: ended.assignee,
      note: `${count} path reservation${count === 1 ? '' : 's'} of claim ${ended.claimId} ended with the claim (${ended.how})`,
      claim_id: ended.claimId,
      at: ended.at,
    });
  }

  async close(): Promise<void> {
    // Whatever is queued (a group, read-audit rows) is committed before the file closes.
    this.group.close();
    if (this.db.open) this.db.close();
  }

  async updateTask(id: number, dependsOn: readonly number[] | undefined, decide: DecideEdit, extras?: WriteExtras<Task>): Promise<Task> {
    return this.group.write(() => {
      const before = this.requireTask(id);
      const edit = decide(before, this.graph.facts(dependsOn ?? [], dependsOn !== undefined));
      if (edit) {
        const at = now();
        const { set } = edit;
        const skills = set.requiredSkills ?? before.required_skills;
        this.stmt.editTask.run({
          id,
          title: set.title ?? before.title,
          description: set.description ?? before.description,
          required_skills: JSON.stringify(skills),
          priority: priorityRank(set.priority ?? before.priority),
          assignee: set.assignee === undefined ? before.assignee : set.assignee,
          at,
        });
        if (set.requiredSkills) {
          this.stmt.deleteSkills.run(id);
          for (const skill of set.requiredSkills) this.stmt.insertSkill.run(id, skill);
        }
        if (set.dependsOn) this.graph.replace(id, set.dependsOn);
        this.stmt.insertEdited.run({
          task_id: id,
          agent: edit.actor,
          status: before.status,
          assignee: set.assignee === undefined ? before.assignee : set.assignee,
          claim_id: before.claim_id,
          edit: JSON.stringify({ fields: edit.fields, old: edit.old }),
          at,
        });
      }
      return this.recordExtras(extras, this.loadTask(id), id);
    });
  }

  async dependentsOf(id: number): Promise<TaskSummary[]> {
    return this.db.transaction(() => {
      const ids = this.graph.unfinishedDependentIds(id);
      return ids.map((dependent) => this.loadTask(dependent)).map(({ description: _d, result: _r, ...summary }) => summary);
    })();
  }

  async countReady(): Promise<number> {
    return this.stmt.boardCount.get('ready') as number;
  }

  private toTask(row: TaskRow): Task {
    const [task] = this.graph.attach([row]);
    return { ...task!, required_skills: JSON.parse(row.required_skills) as string[] };
  }

  private toSummaries(rows: readonly SummaryRow[]): TaskSummary[] {
    return this.graph.attach(rows).map((row) => ({ ...row, required_skills: JSON.parse(row.required_skills) as string[] }));
  }

  private loadTask(id: number): Task {
    return this.toTask(this.stmt.getTask.get(id) as TaskRow);
  }

  private requireTask(id: number): Task {
    const row = this.stmt.getTask.get(id) as TaskRow | undefined;
    if (!row) throw new NotFound(`task ${id} does not exist; list_tasks shows the tasks there are`);
    return this.toTask(row);
  }
}
