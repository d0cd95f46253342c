// The board store on PostgreSQL: several daemons share one database. Each method is one transaction that runs the
// same pure rules as the SQLite store; the SQL lives in one file per concern beside this one.
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
import * as agents from './agents.js';
import * as audit from './audit.js';
import { MAINTENANCE_DEADLINES, openPool, transaction, type Deadlines, type Schema, type Sql, type Tx } from './connection.js';
import { borrowPool } from './shared-pool.js';
import * as graph from './dependencies.js';
import * as idempotency from './idempotency.js';
import * as leases from './leases.js';
import * as leaseRenewal from './lease-renewal.js';
import { migratePostgres } from './migrate.js';
import * as reservations from './reservations.js';
import * as room from './room.js';
import * as consoleReads from './console.js';
import * as finder from './search.js';
import type { SearchQuery } from '../search-rows.js';
import * as tasks from './tasks.js';
import * as work from './work.js';
import { readTaskView } from './task-view.js';
import type { Attached, UsageSummary } from '../work-rows.js';
import * as taskRead from './task-read.js';
import { enqueueDeliveries, postgresOutbox } from './webhooks.js';
import type { WebhookOutbox } from '../webhooks-port.js';
import { postgresOAuth } from './oauth.js';
import type { OAuthStore } from '../oauth-port.js';
import * as eventLog from './event-log.js';
import { consequencesOf, type BoardChange } from '../consequences.js';
import { DEFAULT_RETENTION, touchesDependents, type ActivityFilter, type EventPage, type EventRetention, type LogEntry, type LogPosition } from '../event-log.js';

export interface PostgresStoreOptions {
  readonly url: string;
  /** Default: DEFAULT_RETENTION. */
  readonly eventRetention?: EventRetention;
  readonly poolSize?: number;
  readonly deadlines?: Deadlines;
  /** The project's schema (project-schema.ts schemaOf); undefined: the public one, the project `default`'s. */
  readonly schema?: Schema;
  /** Borrow the process's pool for this database (shared-pool.ts) rather than open one of its own: a daemon's projects. */
  readonly sharePool?: boolean;
}

export class PostgresStore implements BoardStore {
  private constructor(
    readonly sql: Sql,
    private readonly retention: EventRetention,
    private readonly release: () => Promise<void>,
  ) {}

  /** Connects, brings the schema up to date (or refuses a newer one; makes a project's schema), and returns the store. */
  static async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    // Migrations may take long on a large board: they run on a connection of their own, without the calls' deadlines.
    const maintenance = openPool({ url: options.url, max: 1, deadlines: MAINTENANCE_DEADLINES, schema: options.schema });
    try {
      await migratePostgres(maintenance);
    } finally {
      await maintenance.end({ timeout: 1 });
    }
    const poolOptions = { url: options.url, ...(options.poolSize !== undefined && { max: options.poolSize }), ...(options.deadlines && { deadlines: options.deadlines }) };
    const retention = options.eventRetention ?? DEFAULT_RETENTION;
    if (options.sharePool) {
      const borrowed = borrowPool(poolOptions, options.schema);
      return new PostgresStore(borrowed.sql, retention, borrowed.release);
    }
    const sql = openPool({ ...poolOptions, schema: options.schema });
    return new PostgresStore(sql, retention, () => sql.end({ timeout: 1 }));
  }

  /** The webhook outbox for this daemon's delivery worker (leases shared with every daemon on the board). */
  webhookOutbox(): WebhookOutbox {
    return postgresOutbox(this.sql);
  }

  /** The project's OAuth grants (issue 34), in its schema. */
  oauthStore(): OAuthStore {
    return postgresOAuth(this.sql);
  }

  private write<T>(body: (tx: Tx) => Promise<T>): Promise<T> {
    return transaction(this.sql, body);
  }

  /**
   * A board change: `body`, then what `describe` says it did (read inside the same transaction), whose consequences
   * (consequences.ts: the event rows and the webhook outbox rows) are written before the commit, so a change and all it
   * causes stand or fall together. Every change goes through here: the one place a write's consequences are written.
   */
  private async change<T>(body: (tx: Tx) => Promise<T>, describe: (tx: Tx, result: T) => BoardChange | Promise<BoardChange>): Promise<T> {
    let due = false;
    const result = await this.write(async (tx) => {
      const done = await body(tx);
      const { events, webhooks } = consequencesOf(await describe(tx, done));
      // The events and the outbox rows go out together, after the change's own statements and before its COMMIT.
      [due] = await Promise.all([eventLog.appendEvents(tx, events), ...webhooks.map((event) => enqueueDeliveries(tx, event))]);
      return done;
    });
    if (due) void eventLog.pruneEvents(this.sql, this.retention);
    return result;
  }

  /** A transition, with its event and those of the dependents it settled. */
  private transition(id: number, decide: DecideChange, extras: WriteExtras<Task> | undefined, attached?: Attached): Promise<Task> {
    let change: TaskChange | undefined;
    let before: Task | undefined;
    return this.change(
      async (tx) => {
        const task = await tasks.transition(tx, id, (t) => (change = decide((before = t))), extras);
        // A submission's work and usage rows go in with its change, or not at all.
        if (attached) await work.attachWork(tx, id, before!.claim_id, change!.actor, 'submit_result', attached, task.updated_at);
        return task;
      },
      async (tx, task) => ({ kind: 'transition', before: before!, task, change: change!, dependents: touchesDependents(task) ? await tasks.dependentsOf(tx, task.id) : [] }),
    );
  }

  /** A consistent snapshot for reads that take several queries. */
  private read<T>(body: (tx: Tx) => Promise<T>): Promise<T> {
    return this.sql.begin('ISOLATION LEVEL REPEATABLE READ READ ONLY', (tx) => body(tx)) as Promise<T>;
  }

  createTask(task: NewTask, extras?: WriteExtras<Task>, check?: CheckDependencies): Promise<Task> {
    return this.change(
      (tx) => tasks.createTask(tx, task, extras, check),
      (_tx, created) => ({ kind: 'created', task: created, actor: task.createdBy }),
    );
  }
  getTask(id: number, pages?: TaskDetailPages): Promise<TaskDetail | undefined> {
    return this.read((tx) => tasks.getTask(tx, id, pages));
  }
  listTasks(query: TaskQuery): Promise<TaskPage> {
    return this.read((tx) => tasks.listTasks(tx, query));
  }
  latestTasks(status: TaskStatus, limit: number): Promise<TaskSummary[]> {
    return this.read((tx) => tasks.latestTasks(tx, status, limit));
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
  postMessage(id: number, check: CheckTask, message: NewMessage, extras?: WriteExtras<Message>, attached?: Attached): Promise<Message> {
    let task: Task | undefined;
    return this.change(
      async (tx) => {
        const posted = await tasks.postMessage(tx, id, (t) => check((task = t)), message, extras);
        if (attached?.usage) await work.attachWork(tx, id, task!.claim_id, message.author, 'post_message', { usage: attached.usage }, posted.created_at);
        return posted;
      },
      (_tx, posted) => ({ kind: 'message', task: task!, message: posted }),
    );
  }
  updateTask(id: number, dependsOn: readonly number[] | undefined, decide: DecideEdit, extras?: WriteExtras<Task>): Promise<Task> {
    let edit: TaskEdit | null = null;
    return this.change(
      (tx) => tasks.updateTask(tx, id, dependsOn, (t, facts) => (edit = decide(t, facts)), extras),
      (_tx, task) => ({ kind: 'edit', task, edit }),
    );
  }
  taskView(id: number, pages: TaskDetailPages, includePatch: boolean): Promise<TaskView | undefined> {
    return readTaskView(this.sql, id, pages, includePatch);
  }
  usageSummary(): Promise<UsageSummary> {
    return this.read((tx) => work.usageSummary(tx));
  }
  dependentsOf(id: number): Promise<TaskSummary[]> {
    return this.read((tx) => tasks.dependentsOf(tx, id));
  }
  countReady(): Promise<number> {
    return graph.countReady(this.sql);
  }
  search(query: SearchQuery): Promise<SearchHit[]> {
    return finder.search(this.sql, query);
  }
  countTasksByStatus(): Promise<Record<TaskStatus, number>> {
    return tasks.countTasksByStatus(this.sql);
  }

  findResponse(agent: string, key: string, expiredBefore: string): Promise<StoredResponse | undefined> {
    return idempotency.findResponse(this.sql, agent, key, expiredBefore);
  }
  purgeResponses(olderThan: string): Promise<number> {
    return idempotency.purgeResponses(this.sql, olderThan);
  }

  durable(): Promise<void> {
    // Each statement's COMMIT returns once PostgreSQL has made it durable: nothing this process committed is pending.
    return Promise.resolve();
  }
  appendAudit(row: AuditRow, renewal?: LeaseRenewal): Promise<void> {
    return audit.appendAudit(this.sql, row, renewal);
  }
  lastSeen(names: readonly string[]): Promise<Map<string, string>> {
    return audit.lastSeen(this.sql, names);
  }

  acquireInstance(agent: string, instanceId: string, now: string, expiresAt: string): Promise<InstanceLease | undefined> {
    return agents.acquireInstance(this.sql, agent, instanceId, now, expiresAt);
  }
  releaseInstance(agent: string, instanceId: string): Promise<void> {
    return agents.releaseInstance(this.sql, agent, instanceId);
  }

  postRoomMessage(message: NewRoomMessage, extras?: WriteExtras<StoredRoomMessage>): Promise<StoredRoomMessage> {
    return this.change(
      (tx) => room.postRoomMessage(tx, message, extras),
      (_tx, posted) => ({ kind: 'room', message: posted, author: message.author, to: message.to, owners: message.owners }),
    );
  }
  readUnread(agent: string, limit: number, extras?: WriteExtras<{ messages: StoredRoomMessage[]; more: boolean }>): Promise<{ messages: StoredRoomMessage[]; more: boolean }> {
    return this.write((tx) => room.readUnread(tx, agent, limit, extras));
  }
  readRoomLog(agent: string, before: number | undefined, limit: number): Promise<StoredRoomMessage[]> {
    return room.readRoomLog(this.sql, agent, before, limit);
  }
  getRoomMessage(id: number): Promise<{ message: StoredRoomMessage; receipts: ReceiptRow[] } | undefined> {
    return this.read((tx) => room.getRoomMessage(tx, id));
  }
  pendingFor(query: PendingQuery): Promise<PendingCounts> {
    return room.pendingFor(this.sql, query);
  }
  waitingOn(agent: string): Promise<WaitingCounts> {
    return room.waitingOn(this.sql, agent);
  }
  needsOf(query: NeedsQuery): Promise<NeedsRows> {
    return this.read((tx) => consoleReads.needsOf(tx, query));
  }
  progressRows(fromDay: string): Promise<ProgressRows> {
    return this.read((tx) => consoleReads.progressRows(tx, fromDay));
  }
  markReviewsSeen(agent: string, upToId: number): Promise<void> {
    return this.write((tx) => room.markReviewsSeen(tx, agent, upToId));
  }

  holdings(): Promise<Map<string, Holding[]>> {
    return leases.holdings(this.sql);
  }
  expireLeases(now: string): Promise<ExpiredLease[]> {
    return this.change(
      (tx) => leases.expireLeases(tx, now),
      (_tx, expired) => ({ kind: 'lapses', expired }),
    );
  }
  renewLeases(agent: string, until: string, now: string): Promise<number> {
    return leaseRenewal.renewLeases(this.sql, agent, until, now);
  }
  leasesHeldBy(agent: string): Promise<LeaseView[]> {
    return leases.leasesHeldBy(this.sql, agent);
  }
  nextLeaseExpiry(): Promise<string | null> {
    return leases.nextLeaseExpiry(this.sql);
  }
  findClaim(taskId: number, by: { readonly claimId: number } | { readonly agent: string }): Promise<ClaimRecord | undefined> {
    return this.read((tx) => leases.findClaim(tx, taskId, by));
  }
  countExpiredLeasesSince(since: string): Promise<number> {
    return leases.countExpiredLeasesSince(this.sql, since);
  }

  changeReservations(taskId: number, lookup: ReservationLookup | undefined, decide: DecideReservation, extras?: WriteExtras<Reservation[]>): Promise<Reservation[]> {
    let change: ReservationChange | undefined;
    let task: Task | undefined;
    return this.change(
      async (tx) => reservations.changeReservations(tx, (task = await taskRead.lockTask(tx, taskId)), lookup, (t, own, sight) => (change = decide(t, own, sight)), extras),
      () => ({ kind: 'reservations', task: task!, change: change! }),
    );
  }
  async reservationChanges(scope: string, since: number): Promise<ReservationChanges> {
    // The version alone first: most calls find nothing new, and pay one statement for it.
    const version = await reservations.scopeVersion(this.sql, scope);
    if (since >= 0 && since === version) return reservations.changesSince(this.sql, scope, since, version);
    // The log and the rows in one snapshot with the version they are read at.
    return this.read(async (tx) => reservations.changesSince(tx, scope, since, await reservations.scopeVersion(tx, scope)));
  }
  reservationsOf(taskId: number): Promise<Reservation[]> {
    return reservations.ofTask(this.sql, taskId);
  }
  reservationsByTask(): Promise<Map<number, Reservation[]>> {
    return reservations.byTask(this.sql);
  }

  readEvents(after: LogPosition, limit: number): Promise<EventPage> {
    return this.read((tx) => eventLog.readEvents(tx, after, limit));
  }
  eventLogHead(): Promise<LogPosition> {
    return eventLog.eventLogHead(this.sql);
  }
  readEventsBefore(before: LogPosition, limit: number, filter: ActivityFilter): Promise<LogEntry[]> {
    return eventLog.readEventsBefore(this.sql, before, limit, filter);
  }
  readAudit(query: AuditQuery): Promise<AuditEntry[]> {
    return audit.readAudit(this.sql, query);
  }
  eventLogSecret(): Promise<Buffer> {
    return eventLog.eventLogSecret(this.sql);
  }

  async close(): Promise<void> {
    await this.release();
  }
}
