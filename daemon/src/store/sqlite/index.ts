// The board store on SQLite (better-sqlite3): WAL, every write one savepoint in a group commit whose fsync runs off the event loop.
// Each method runs the same pure rules as the PostgreSQL store; the SQL lives in one file per concern beside this one.
import type Database from 'better-sqlite3';
import type { Message, Reservation, SearchHit, Task, TaskStatus, TaskSummary } from 'roundtable-shared';
import type {
  AuditEntry,
  AuditQuery,
  AuditRow,
  BoardStore,
  CheckDependencies,
  CheckTask,
  ClaimRecord,
  DecideChange,
  DecideEdit,
  DecideReservation,
  ExpiredLease,
  Holding,
  InstanceLease,
  LeaseRenewal,
  LeaseView,
  NewMessage,
  NewRoomMessage,
  NewTask,
  PendingCounts,
  PendingQuery,
  WaitingCounts,
  NeedsQuery,
  NeedsRows,
  ProgressRows,
  ReservationChange,
  TaskChange,
  TaskEdit,
  ReceiptRow,
  ReservationChanges,
  ReservationLookup,
  StoredResponse,
  StoredRoomMessage,
  TaskDetail,
  TaskDetailPages,
  TaskView,
  TaskPage,
  TaskQuery,
  WriteExtras,
} from '../store.js';
import { SqliteActivity } from './activity.js';
import { SqliteAgents } from './agents.js';
import { SqliteAudit } from './audit.js';
import { openDatabase, storeFailure, type DatabaseOptions } from './connection.js';
import { SqliteDependencies } from './dependencies.js';
import { GroupCommit } from './group-commit.js';
import { SqliteIdempotency } from './idempotency.js';
import { SqliteLeases } from './leases.js';
import { migrate } from './migrate.js';
import { SqliteReservations } from './reservations.js';
import { SqliteConsole } from './console.js';
import { SqliteRoom } from './room.js';
import { SqliteSearch } from './search.js';
import type { SearchQuery } from '../search-rows.js';
import { SqliteTasks } from './tasks.js';
import { SqliteWebhooks } from './webhooks.js';
import { SqliteWork } from './work.js';
import type { Attached, UsageSummary } from '../work-rows.js';
import { sqliteOAuth } from './oauth.js';
import type { OAuthStore } from '../oauth-port.js';
import type { SecretLookup, WebhookOutbox } from '../webhooks-port.js';
import { SqliteEventLog } from './event-log.js';
import { consequencesOf, type BoardChange } from '../consequences.js';
import { DEFAULT_RETENTION, touchesDependents, type ActivityFilter, type EventPage, type EventRetention, type LogEntry, type LogPosition } from '../event-log.js';

/** How often the delivery worker looks for a delivery another process wrote: `webhooks test` arrives within this. */
const OUTSIDE_WRITE_LOOK_MS = 250;

export interface SqliteStoreOptions extends DatabaseOptions {
  /** The signing secrets of the board's webhooks, from webhook-secrets.json (absent: deliveries fail as no_secret). */
  readonly webhookSecrets?: SecretLookup | undefined;
  /** Default: DEFAULT_RETENTION. */
  readonly eventRetention?: EventRetention;
}

export class SqliteStore implements BoardStore {
  readonly db: Database.Database;
  /** Every write goes through it: concurrent writes share one transaction and one fsync. */
  private readonly group: GroupCommit;
  private readonly inRead: (work: () => unknown) => unknown;
  private readonly agents: SqliteAgents;
  private readonly audit: SqliteAudit;
  private readonly graph: SqliteDependencies;
  private readonly idempotency: SqliteIdempotency;
  private readonly leases: SqliteLeases;
  private readonly reservations: SqliteReservations;
  private readonly room: SqliteRoom;
  private readonly console: SqliteConsole;
  private readonly finder: SqliteSearch;
  private readonly tasks: SqliteTasks;
  private readonly webhooks: SqliteWebhooks;
  private readonly work: SqliteWork;
  private readonly eventLog: SqliteEventLog;

  constructor(options: SqliteStoreOptions) {
    const db = openDatabase(options);
    this.db = db;
    migrate(db);
    this.group = new GroupCommit(db);
    this.inRead = db.transaction((work: () => unknown) => work());
    // Each concern prepares its statements once, here.
    const activity = new SqliteActivity(db);
    this.idempotency = new SqliteIdempotency(db);
    // The renewal a call carries runs with its audit row; the leases concern is made below, so it is looked up then.
    this.audit = new SqliteAudit(db, this.group, this.idempotency, (r) => this.leases.renewLeases(r.agent, r.until, r.now));
    this.webhooks = new SqliteWebhooks(db, options.webhookSecrets);
    this.work = new SqliteWork(db);
    this.graph = new SqliteDependencies(db);
    this.reservations = new SqliteReservations(db, activity, this.audit);
    this.tasks = new SqliteTasks(db, { activity, audit: this.audit, graph: this.graph, reservations: this.reservations });
    this.leases = new SqliteLeases(db, { activity, reservations: this.reservations, tasks: this.tasks });
    this.room = new SqliteRoom(db, this.audit, this.graph);
    this.console = new SqliteConsole(db);
    this.finder = new SqliteSearch(db);
    this.agents = new SqliteAgents(db);
    this.eventLog = new SqliteEventLog(db, options.eventRetention ?? DEFAULT_RETENTION);
  }

  /**
   * A board change: `work`, then what `describe` says it did, whose consequences (consequences.ts: the event rows and
   * the webhook outbox rows) are written in the same savepoint, so the change and all it causes commit (or roll back)
   * together. Every change goes through here: the one place a write's consequences are written.
   */
  private change<T>(work: () => T, describe: (result: T) => BoardChange): Promise<T> {
    return this.write(() => {
      const result = work();
      const { events, webhooks } = consequencesOf(describe(result));
      this.eventLog.append(events);
      for (const event of webhooks) this.webhooks.enqueueDeliveries(event);
      return result;
    });
  }

  /** A transition, with its event and those of the dependents it settled. */
  private transition(id: number, decide: DecideChange, extras: WriteExtras<Task> | undefined, attached?: Attached): Promise<Task> {
    let change: TaskChange | undefined;
    let before: Task | undefined;
    return this.change(
      () => {
        const task = this.tasks.transition(id, (t) => (change = decide((before = t))), extras);
        // A submission's work and usage rows go in with its change, or not at all.
        if (attached) this.work.attach(id, before!.claim_id, change!.actor, 'submit_result', attached, task.updated_at);
        return task;
      },
      (task) => ({ kind: 'transition', before: before!, task, change: change!, dependents: touchesDependents(task) ? this.tasks.dependentsOf(task.id) : [] }),
    );
  }

  /** Runs `work` in the next group commit; resolves once that commit is on disk. */
  private write<T>(work: () => T): Promise<T> {
    return this.group.write(work).catch((error: unknown) => {
      throw storeFailure(error);
    });
  }

  /** A consistent snapshot for reads that take several statements (one wrapper, made once: making it per read costs). */
  private read<T>(work: () => T): T {
    return this.inRead(work) as T;
  }

  async createTask(task: NewTask, extras?: WriteExtras<Task>, check?: CheckDependencies): Promise<Task> {
    return this.change(
      () => this.tasks.createTask(task, extras, check),
      (created) => ({ kind: 'created', task: created, actor: task.createdBy }),
    );
  }
  async getTask(id: number, pages?: TaskDetailPages): Promise<TaskDetail | undefined> {
    return this.read(() => this.tasks.getTask(id, pages));
  }
  async listTasks(query: TaskQuery): Promise<TaskPage> {
    return this.tasks.listTasks(query);
  }
  async latestTasks(status: TaskStatus, limit: number): Promise<TaskSummary[]> {
    return this.tasks.latestTasks(status, limit);
  }
  claimTask(id: number, decide: DecideChange, extras?: WriteExtras<Task>): Promise<Task> {
    return this.transition(id, decide, extras);
  }
  releaseTask(id: number, decide: DecideChange, extras?: WriteExtras<Task>): Promise<Task> {
    return this.transition(id, decide, extras);
  }
  submitResult(id: number, decide: DecideChange, extras?: WriteExtras<Task>, attached?: Attached): Promise<Task> {
    return this.transition(id, decide, extras, attached);
  }
  reviewTask(id: number, decide: DecideChange, extras?: WriteExtras<Task>): Promise<Task> {
    return this.transition(id, decide, extras);
  }
  cancelTask(id: number, decide: DecideChange, extras?: WriteExtras<Task>): Promise<Task> {
    return this.transition(id, decide, extras);
  }
  async postMessage(id: number, check: CheckTask, message: NewMessage, extras?: WriteExtras<Message>, attached?: Attached): Promise<Message> {
    let task: Task | undefined;
    return this.change(
      () => {
        const posted = this.tasks.postMessage(id, (t) => check((task = t)), message, extras);
        if (attached?.usage) this.work.attach(id, task!.claim_id, message.author, 'post_message', { usage: attached.usage }, posted.created_at);
        return posted;
      },
      (posted) => ({ kind: 'message', task: task!, message: posted }),
    );
  }
  async updateTask(id: number, dependsOn: readonly number[] | undefined, decide: DecideEdit, extras?: WriteExtras<Task>): Promise<Task> {
    let edit: TaskEdit | null = null;
    return this.change(
      () => this.tasks.updateTask(id, dependsOn, (t, facts) => (edit = decide(t, facts)), extras),
      (task) => ({ kind: 'edit', task, edit }),
    );
  }
  async taskView(id: number, pages: TaskDetailPages, includePatch: boolean): Promise<TaskView | undefined> {
    return this.read(() => {
      const detail = this.tasks.getTask(id, pages);
      return detail && { ...detail, reservations: this.reservations.ofTask(id), work: this.work.taskWork(id, includePatch) };
    });
  }
  async usageSummary(): Promise<UsageSummary> {
    return this.read(() => this.work.usageSummary());
  }
  async dependentsOf(id: number): Promise<TaskSummary[]> {
    return this.read(() => this.tasks.dependentsOf(id));
  }
  async countReady(): Promise<number> {
    return this.graph.countReady();
  }
  async search(query: SearchQuery): Promise<SearchHit[]> {
    return this.finder.search(query);
  }
  async countTasksByStatus(): Promise<Record<TaskStatus, number>> {
    return this.tasks.countTasksByStatus();
  }

  async findResponse(agent: string, key: string, expiredBefore: string): Promise<StoredResponse | undefined> {
    return this.idempotency.findResponse(agent, key, expiredBefore);
  }
  async purgeResponses(olderThan: string): Promise<number> {
    return this.write(() => this.idempotency.purgeResponses(olderThan));
  }

  durable(): Promise<void> {
    return this.group.durable();
  }
  appendAudit(row: AuditRow, renewal?: LeaseRenewal): Promise<void> {
    return this.audit.appendAudit(row, renewal).catch((error: unknown) => {
      throw storeFailure(error);
    });
  }
  async lastSeen(names: readonly string[]): Promise<Map<string, string>> {
    return this.audit.lastSeen(names);
  }

  async acquireInstance(agent: string, instanceId: string, now: string, expiresAt: string): Promise<InstanceLease | undefined> {
    return this.write(() => this.agents.acquireInstance(agent, instanceId, now, expiresAt));
  }
  async releaseInstance(agent: string, instanceId: string): Promise<void> {
    await this.write(() => this.agents.releaseInstance(agent, instanceId));
  }

  async postRoomMessage(message: NewRoomMessage, extras?: WriteExtras<StoredRoomMessage>): Promise<StoredRoomMessage> {
    return this.change(
      () => this.room.postRoomMessage(message, extras),
      (posted) => ({ kind: 'room', message: posted, author: message.author, to: message.to, owners: message.owners }),
    );
  }
  async readUnread(agent: string, limit: number, extras?: WriteExtras<{ messages: StoredRoomMessage[]; more: boolean }>): Promise<{ messages: StoredRoomMessage[]; more: boolean }> {
    return this.write(() => this.room.readUnread(agent, limit, extras));
  }
  async readRoomLog(agent: string, before: number | undefined, limit: number): Promise<StoredRoomMessage[]> {
    return this.room.readRoomLog(agent, before, limit);
  }
  async getRoomMessage(id: number): Promise<{ message: StoredRoomMessage; receipts: ReceiptRow[] } | undefined> {
    return this.room.getRoomMessage(id);
  }
  async pendingFor(query: PendingQuery): Promise<PendingCounts> {
    return this.read(() => this.room.pendingFor(query));
  }
  async waitingOn(agent: string): Promise<WaitingCounts> {
    return this.read(() => this.room.waitingOn(agent));
  }
  async needsOf(query: NeedsQuery): Promise<NeedsRows> {
    return this.read(() => this.console.needsOf(query));
  }
  async progressRows(fromDay: string): Promise<ProgressRows> {
    return this.read(() => this.console.progressRows(fromDay));
  }
  async markReviewsSeen(agent: string, upToId: number): Promise<void> {
    await this.write(() => this.room.markReviewsSeen(agent, upToId));
  }

  async holdings(agents: readonly string[]): Promise<Map<string, Holding[]>> {
    return this.read(() => this.leases.holdings(agents));
  }
  async expireLeases(now: string): Promise<ExpiredLease[]> {
    return this.change(
      () => this.leases.expireLeases(now),
      (expired) => ({ kind: 'lapses', expired }),
    );
  }
  async renewLeases(agent: string, until: string, now: string): Promise<number> {
    return this.write(() => this.leases.renewLeases(agent, until, now));
  }
  async leasesHeldBy(agent: string): Promise<LeaseView[]> {
    return this.leases.leasesHeldBy(agent);
  }
  async nextLeaseExpiry(): Promise<string | null> {
    return this.leases.nextLeaseExpiry();
  }
  async findClaim(taskId: number, by: { readonly claimId: number } | { readonly agent: string }): Promise<ClaimRecord | undefined> {
    return this.read(() => this.leases.findClaim(taskId, by));
  }
  async countExpiredLeasesSince(since: string): Promise<number> {
    return this.leases.countExpiredLeasesSince(since);
  }

  async changeReservations(taskId: number, lookup: ReservationLookup | undefined, decide: DecideReservation, extras?: WriteExtras<Reservation[]>): Promise<Reservation[]> {
    let change: ReservationChange | undefined;
    let task: Task | undefined;
    return this.change(
      () => this.reservations.changeReservations((task = this.tasks.lockTask(taskId)), lookup, (t, own, sight) => (change = decide(t, own, sight)), extras),
      () => ({ kind: 'reservations', task: task!, change: change! }),
    );
  }
  async reservationChanges(scope: string, since: number): Promise<ReservationChanges> {
    // Synchronous, on the one connection between group commits: nothing can change the scope while it reads.
    return this.reservations.changes(scope, since);
  }
  async reservationsOf(taskId: number): Promise<Reservation[]> {
    return this.reservations.ofTask(taskId);
  }

  /**
   * The webhook outbox for this board's delivery worker. One daemon per file, so what it attempts is held in memory
   * (taking a delivery writes nothing); only the outcome is a write.
   */
  /** The project's OAuth grants (issue 34): each step one transaction through the group commit. */
  oauthStore(): OAuthStore {
    return sqliteOAuth(this.db, (work) => this.write(work));
  }

  webhookOutbox(): WebhookOutbox {
    const hooks = this.webhooks;
    const held = new Set<string>();
    return {
      async claimDue(now, _leaseUntil, limit) {
        const taken = hooks.takeDue(now, held, limit);
        for (const delivery of taken) held.add(delivery.id);
        return taken;
      },
      markDelivered: (id, at) => this.write(() => hooks.markDelivered(id, at)).finally(() => held.delete(id)),
      markFailed: (id, error, retryAt, at) => this.write(() => hooks.markFailed(id, error, retryAt, at)).finally(() => held.delete(id)),
      release: async (id) => void held.delete(id),
      nextDue: async () => hooks.nextDueExcept(held),
      purgeDelivered: (olderThan) => this.write(() => hooks.purgeDelivered(olderThan)),
      watchOutsideWrites(wake) {
        // `webhooks test` writes from another process, which no event of this daemon announces. data_version is read
        // from the WAL index in shared memory (no disk read), so a look every quarter second costs next to nothing.
        let seen = hooks.dataVersion();
        const timer = setInterval(() => {
          let now: number;
          try {
            now = hooks.dataVersion();
          } catch {
            return; // closed under the timer at shutdown
          }
          if (now !== seen) {
            seen = now;
            wake();
          }
        }, OUTSIDE_WRITE_LOOK_MS);
        timer.unref();
        return () => clearInterval(timer);
      },
    };
  }

  async readEvents(after: LogPosition, limit: number): Promise<EventPage> {
    // Synchronous, between group commits: the rows and the retention mark are one snapshot.
    return this.eventLog.read(after, limit);
  }
  async eventLogHead(): Promise<LogPosition> {
    return this.eventLog.head();
  }
  async readEventsBefore(before: LogPosition, limit: number, filter: ActivityFilter): Promise<LogEntry[]> {
    return this.eventLog.readBefore(before, limit, filter);
  }
  async readAudit(query: AuditQuery): Promise<AuditEntry[]> {
    return this.audit.readAudit(query);
  }
  async eventLogSecret(): Promise<Buffer> {
    return this.eventLog.secret();
  }

  async close(): Promise<void> {
    // Whatever is queued (a group, read-audit rows) is committed before the file closes.
    this.group.close();
    if (this.db.open) this.db.close();
  }
}
