// The board's storage interface: async, one method per board operation, each one whole transaction.
// Rules are passed in as pure decisions, so a PostgreSQL store can run the same ones inside BEGIN ... COMMIT.
import type { ReservationChange, TaskChange, TaskEdit } from './changes.js';
import type { Attached, TaskWork, UsageSummary } from './work-rows.js';
import type { ActivityFilter, EventPage, LogEntry, LogPosition } from './event-log.js';
import type { SearchQuery } from './search-rows.js';
import { LIMITS, type Activity, type Message, type MessageKind, type Priority, type Reservation, type Review, type SearchHit, type Task, type TaskStatus, type TaskSummary, type Verdict } from 'roundtable-shared';

export type { NewReservation, ReservationChange, TaskChange, TaskEdit } from './changes.js';

/** A pure rule: looks at the task as stored now and returns the change, or throws a BoardError. */
export type DecideChange = (task: Task) => TaskChange;
/** A pure rule that only accepts or refuses (throws) given the task as stored now. */
export type CheckTask = (task: Task) => void;

export interface NewTask {
  readonly title: string;
  readonly description: string;
  readonly requiredSkills: readonly string[];
  readonly assignee: string | null;
  readonly createdBy: string;
  /** Default normal. */
  readonly priority?: Priority;
  /** Distinct ids of the tasks it waits for. */
  readonly dependsOn?: readonly number[];
}

/** One dependency edge: `task_id` waits for `depends_on`. */
export interface DependencyEdge {
  readonly task_id: number;
  readonly depends_on: number;
}

/** What the store knows of proposed dependencies, read inside the write's transaction, for a pure rule to judge. */
export interface DependencyFacts {
  /** The stored status of each proposed id that exists. */
  readonly statuses: ReadonlyMap<number, TaskStatus>;
  /** Every edge reachable from the proposed ids by following depends_on (empty at creation: nothing waits on a new task). */
  readonly edges: readonly DependencyEdge[];
}

/** A pure rule over proposed dependencies: accepts, or throws a BoardError naming the ids. */
export type CheckDependencies = (facts: DependencyFacts) => void;

/** A pure rule for an edit: the task as stored and the facts of its proposed dependencies; null when nothing changes. */
export type DecideEdit = (task: Task, facts: DependencyFacts) => TaskEdit | null;

export interface NewMessage {
  readonly author: string;
  readonly kind: MessageKind;
  readonly text: string;
}

export interface TaskQuery {
  readonly status?: TaskStatus;
  readonly assignee?: string;
  /** Only open tasks this agent may claim now: unassigned or assigned to it, every required skill held. */
  readonly claimableBy?: { readonly name: string; readonly skills: readonly string[] };
  readonly afterId: number;
  readonly limit: number;
  /** Only open tasks nothing blocks. */
  readonly ready?: boolean;
  /** priority: by priority (urgent first), then id; the cursor then continues after (afterRank, afterId). Default id. */
  readonly order?: 'id' | 'priority';
  /** With order priority: the priority rank (0 urgent ... 3 low) of the task to continue after. */
  readonly afterRank?: number;
}

export interface TaskPage {
  readonly tasks: TaskSummary[];
  /** The id to continue after, or null on the last page. */
  readonly lastId: number | null;
  /** The priority rank of that task (for a cursor in priority order), or null on the last page. */
  readonly lastRank?: number | null;
}

/** One page of a task's messages or history: newest first (ids below `from`) or oldest first (ids above it). */
export interface ItemPage {
  readonly newestFirst: boolean;
  /** The id of the last row of the previous page; absent for the first page. */
  readonly from?: number | undefined;
  readonly limit: number;
}

export interface TaskDetailPages {
  readonly messages: ItemPage;
  readonly history: ItemPage;
}

/** What get_task reads when no page is named: the newest rows of each list. */
export const FIRST_PAGES: TaskDetailPages = {
  messages: { newestFirst: true, limit: LIMITS.taskItemsDefault },
  history: { newestFirst: true, limit: LIMITS.taskItemsDefault },
};

/** How many rows a list has when a first page holds them all; undefined when they must be counted. */
export function knownTotal(page: { readonly rows: readonly unknown[]; readonly more: boolean }, asked: ItemPage): number | undefined {
  return asked.from === undefined && asked.limit > 0 && !page.more ? page.rows.length : undefined;
}

export interface TaskDetail {
  readonly task: Task;
  /** The page asked for; `messageCount` says how many there are in all. */
  readonly messages: Message[];
  readonly messageCount: number;
  /** Whether rows remain past this page. */
  readonly moreMessages: boolean;
  readonly reviews: Review[];
  readonly history: Activity[];
  readonly historyCount: number;
  readonly moreHistory: boolean;
  /** The tasks whose depends_on names this one. */
  readonly dependents: number[];
}

/** get_task's whole read (issue 37): the task with its pages, its reservations and its work, in one snapshot. */
export interface TaskView extends TaskDetail {
  readonly reservations: Reservation[];
  readonly work: TaskWork;
}

/** The face a tool call came through: /mcp, the JSON API (the bridge's), or an owner's action on the live page. */
export type Face = 'mcp' | 'api' | 'web';

export interface AuditRow {
  readonly agent: string | null;
  readonly tool: string;
  readonly taskId: number | null;
  readonly outcome: string;
  /** Absent: not known (a caller inside the daemon). */
  readonly face?: Face | undefined;
}

/** One row of the audit log as an owner reads it (issue 36): names, the tool and the outcome, never board text. */
export interface AuditEntry {
  readonly id: number;
  readonly at: string;
  readonly agent: string | null;
  readonly tool: string;
  readonly task_id: number | null;
  readonly outcome: string;
  readonly face: Face | null;
}

/** Which audit rows to read, newest (highest id) first; each filter an exact match, times ISO 8601 (since inclusive). */
export interface AuditQuery {
  /** Rows with a lower id only: the next older page. */
  readonly beforeId?: number;
  readonly limit: number;
  readonly agent?: string;
  readonly tool?: string;
  readonly outcome?: string;
  readonly face?: Face;
  readonly since?: string;
  readonly until?: string;
}

/** The audit query's filters, in the order both stores bind them. */
export const AUDIT_FILTERS = ['agent', 'tool', 'outcome', 'face', 'since', 'until'] as const;

/** Asks a mutation to record its response under an idempotency key, in the same transaction. */
export interface ResponseRecord<T> {
  readonly agent: string;
  readonly key: string;
  readonly tool: string;
  readonly requestHash: string;
  /** Keys older than this (ISO time) are expired and may be reused. */
  readonly expiredBefore: string;
  readonly render: (result: T) => string;
}

/** A renewal of every lease `agent` holds, to `until`, riding on one of its calls (docs/SPEC.md §4). */
export interface LeaseRenewal {
  readonly agent: string;
  readonly until: string;
  readonly now: string;
}

/**
 * The audit row of the call making a write, and the lease renewal the call carries if one is due; the store writes
 * both in the write's transaction and marks the ticket written.
 */
export class AuditTicket {
  written = false;
  constructor(
    readonly row: { readonly agent: string; readonly tool: string; readonly taskId: number | null; readonly face?: Face | undefined },
    readonly renewal?: LeaseRenewal,
  ) {}
}

/** What a write records beside the change, in the same transaction. */
export interface WriteExtras<T> {
  /** The response, under the caller's idempotency key. */
  readonly response?: ResponseRecord<T> | undefined;
  /** The call's audit row, with outcome ok. */
  readonly audit?: AuditTicket | undefined;
}

export interface StoredResponse {
  readonly tool: string;
  readonly requestHash: string;
  readonly response: string;
  readonly createdAt: string;
}

/** Thrown when another request recorded the same idempotency key first; the mutation was rolled back. */
export class IdempotencyKeyTaken extends Error {}

/** Who holds an agent's process lease. */
export interface InstanceLease {
  readonly instanceId: string;
  readonly startedAt: string;
  readonly expiresAt: string;
}

/** A room message as stored: recipients is "all" or the names it was sent to. */
export interface StoredRoomMessage {
  readonly id: number;
  readonly from: string;
  readonly to: 'all' | string[];
  readonly text: string;
  readonly created_at: string;
}

export interface NewRoomMessage {
  readonly author: string;
  readonly to: 'all' | readonly string[];
  /** Who gets a receipt: the named members, or every member but the author for "all". */
  readonly recipients: readonly string[];
  readonly text: string;
  /** The owners it is addressed to (never for "all"): a direct message to a person, which webhooks tell of. */
  readonly owners?: readonly string[];
}

export interface ReceiptRow {
  readonly agent: string;
  readonly read_at: string | null;
}

export interface ReviewNotice {
  readonly id: number;
  readonly task_id: number;
  readonly verdict: Verdict;
  readonly reviewer: string;
  readonly created_at: string;
}

/** What waits for an agent now, for wait_for_activity. */
export interface PendingCounts {
  readonly unreadMessages: number;
  readonly claimableTasks: number;
  readonly toReview: number;
  readonly reviews: readonly ReviewNotice[];
  /** Unfinished tasks for the agent to fix that wait on a cancelled task, by id. */
  readonly strandedTasks?: readonly number[];
}

/** What waits on a person in one project, for the page's list of projects: counts only, never board text. */
export interface WaitingCounts {
  /** Unfinished tasks whose newest message is a help request (nobody has answered it yet). */
  readonly helpRequests: number;
  /** Room messages addressed to the agent by name (not to all) that it has not read. */
  readonly messagesTo: number;
}

/** What the page's "Needs me" list reads beside the submitted tasks and pendingFor's stranded ones (issue 36). */
export interface NeedsQuery {
  readonly agent: string;
  /** Whether help requests are the agent's to answer (it steers the board). */
  readonly helpRequests: boolean;
  /** Lapsed claims since this time (ISO), or null when they are not the agent's to handle. */
  readonly lapsedSince: string | null;
  /** At most this many rows of each kind, newest first. */
  readonly limit: number;
}

export interface NeedsRows {
  /** Unfinished tasks whose newest message is a help request: the task, who asked and when. */
  readonly helpRequests: ReadonlyArray<{ readonly task_id: number; readonly title: string; readonly author: string; readonly at: string }>;
  /** Room messages to the agent by name, unread, that it has not answered since (a message of its own to their author or to all); their first 200 characters. */
  readonly messagesTo: ReadonlyArray<{ readonly id: number; readonly author: string; readonly text: string; readonly at: string }>;
  /** Claims that lapsed since `lapsedSince` on tasks still open and not claimed since, the newest lapse per task. */
  readonly lapsed: ReadonlyArray<{ readonly task_id: number; readonly title: string; readonly agent: string; readonly at: string }>;
}

/** The history a project's progress is computed from (issue 36): counts per day and one row per finished claim. */
export interface ProgressRows {
  /** Tasks created, cancelled and done (approved) before the first day. */
  readonly before: { readonly created: number; readonly cancelled: number; readonly done: number };
  /** Per UTC day (YYYY-MM-DD) from the first day on, only days with any. */
  readonly days: ReadonlyArray<{ readonly day: string; readonly created: number; readonly cancelled: number; readonly done: number }>;
  /** Each approval since the first day: who did the work, when its last claim before the approval began, and the approval. */
  readonly cycles: ReadonlyArray<{ readonly task_id: number; readonly agent: string; readonly claimed_at: string | null; readonly done_at: string }>;
  /** Tasks claimed now, per assignee. */
  readonly wip: ReadonlyArray<{ readonly agent: string; readonly claimed: number }>;
}

export interface PendingQuery {
  readonly agent: string;
  readonly skills: readonly string[];
  /** Whether the agent may claim (a worker, or a peer). */
  readonly claims: boolean;
  /** Whether the agent reviews: the leader (every submission), or a peer (submissions by others). */
  readonly reviews: 'all' | 'others' | 'none';
  /** Which stranded tasks (waiting on a cancelled task) the agent must fix: the leader all, a peer those it created. */
  readonly stranded?: 'all' | 'created' | 'none';
}

/** A claim that lapsed and was reopened by the sweep. */
export interface ExpiredLease {
  readonly task: Task;
  readonly holder: string;
  readonly claimId: number;
  readonly expiredAt: string;
}

/** One claim as recorded, and how it ended (null while it is the task's current claim). */
export interface ClaimRecord {
  readonly claimId: number;
  readonly agent: string;
  readonly claimedAt: string;
  /** When its lease ran out, if it lapsed. */
  readonly lapsedAt: string | null;
  readonly ended: { readonly action: string; readonly by: string; readonly at: string } | null;
}

export interface LeaseView {
  readonly task_id: number;
  readonly claim_id: number;
  readonly lease_expires_at: string;
}

export interface Holding {
  readonly id: number;
  readonly title: string;
  readonly status: string;
  readonly claim_id: number | null;
  readonly lease_expires_at: string | null;
}

/**
 * Where a reservation rule looks: a scope ('' is the default), and the version of it the caller's index of that
 * scope is at (-1: it has none), so the store hands the rule only what changed since.
 */
export interface ReservationLookup {
  readonly scope: string;
  readonly since: number;
  /** The agent reserving: its reservations over all claims are counted for the rule. */
  readonly agent: string;
}

/** Changes a scope's reservations kept beyond the latest; an index further behind reads the scope again. */
export const RESERVATION_CHANGES_KEPT = 10_000;

/**
 * How a scope's reservations changed since a version. Every insert, update and delete of a reservation bumps its
 * scope's version and logs the id, by trigger, in the same transaction (the reservation_changes migrations), so whatever
 * writes a reservation, an index catches up by these ids.
 */
export interface ReservationChanges {
  readonly scope: string;
  /** The version asked from, and the version these changes bring it to. */
  readonly since: number;
  readonly version: number;
  /** true: `rows` are every reservation in the scope, and an index starts again from them. */
  readonly full: boolean;
  /** The ids changed since `since` (inserted, updated or deleted); empty when full. */
  readonly changed: readonly number[];
  /** The rows of those ids as they are now (a deleted one is absent), or every row when full. */
  readonly rows: readonly Reservation[];
}

/** What a reservation rule sees beside the claim's own rows: what changed in the scope, and the agent's total. */
export interface ReservationSight {
  readonly changes: ReservationChanges;
  /** Live reservations the acting agent holds, over all its claims and scopes. */
  readonly agentHolds: number;
}

/**
 * A pure reservation rule: given the task as stored, the reservations its current claim holds, and (with a lookup)
 * what changed in the scope since the caller's index and the agent's total, returns the change or throws a BoardError.
 */
export type DecideReservation = (task: Task, own: readonly Reservation[], sight: ReservationSight | undefined) => ReservationChange;

export interface BoardStore {
  /**
   * Resolves once every change this process committed until now is on disk. A write or an audited read is answered
   * only after its own commit is durable; a read that writes nothing (the page's views) waits on this before it answers.
   */
  durable(): Promise<void>;
  /** The event log (store/event-log.ts) after a position, oldest first, at most `limit` rows. */
  readEvents(after: LogPosition, limit: number): Promise<EventPage>;
  /** The position after the newest row a reader may read now. */
  eventLogHead(): Promise<LogPosition>;
  /** The Activity timeline (issue 36): rows before a position that pass the filter, newest first, at most `limit`. */
  readEventsBefore(before: LogPosition, limit: number, filter: ActivityFilter): Promise<LogEntry[]>;
  /** The audit log for an owner (issue 36), newest first. */
  readAudit(query: AuditQuery): Promise<AuditEntry[]>;
  /** The key this board signs its change cursors with (made at migration; never leaves the daemon). */
  eventLogSecret(): Promise<Buffer>;
  /** With dependencies, `check` judges them as stored now, inside the same transaction. */
  createTask(task: NewTask, extras?: WriteExtras<Task>, check?: CheckDependencies): Promise<Task>;
  /** The task with one page of its messages and of its history (the newest 20 of each when `pages` is omitted). */
  getTask(id: number, pages?: TaskDetailPages): Promise<TaskDetail | undefined>;
  listTasks(query: TaskQuery): Promise<TaskPage>;
  /** The newest tasks in one state, newest (highest id) first. */
  latestTasks(status: TaskStatus, limit: number): Promise<TaskSummary[]>;
  claimTask(id: number, decide: DecideChange, extras?: WriteExtras<Task>): Promise<Task>;
  releaseTask(id: number, decide: DecideChange, extras?: WriteExtras<Task>): Promise<Task>;
  /** With `attached`, the submission's work record and usage row are written in the same transaction (issue 35). */
  submitResult(id: number, decide: DecideChange, extras?: WriteExtras<Task>, attached?: Attached): Promise<Task>;
  reviewTask(id: number, decide: DecideChange, extras?: WriteExtras<Task>): Promise<Task>;
  cancelTask(id: number, decide: DecideChange, extras?: WriteExtras<Task>): Promise<Task>;
  /** With `attached.usage`, its usage row is written in the same transaction. */
  postMessage(id: number, check: CheckTask, message: NewMessage, extras?: WriteExtras<Message>, attached?: Attached): Promise<Message>;
  /** The latest submission's work record (its patch only when asked) and the usage reported on the task. */
  /** getTask, the task's reservations, its latest work record and usage, in one snapshot: on PostgreSQL one statement (issue 37). */
  taskView(id: number, pages: TaskDetailPages, includePatch: boolean): Promise<TaskView | undefined>;
  /** Usage per project, per agent and per task, for the page's Cost view. */
  usageSummary(): Promise<UsageSummary>;
  /** The unexpired response recorded under (agent, key), if any. */
  findResponse(agent: string, key: string, expiredBefore: string): Promise<StoredResponse | undefined>;
  /** Deletes recorded responses older than the given time; returns how many. */
  purgeResponses(olderThan: string): Promise<number>;
  /**
   * The row of a call that wrote nothing (a read, a replay, a refusal), with the lease renewal the call carries, in
   * one commit; resolved once both are durable, so a call is answered only once its row stands (Unavailable if not).
   */
  appendAudit(row: AuditRow, renewal?: LeaseRenewal): Promise<void>;
  /** When each named agent last called a tool (absent if never). */
  lastSeen(names: readonly string[]): Promise<Map<string, string>>;
  countTasksByStatus(): Promise<Record<TaskStatus, number>>;
  /**
   * Takes or renews the agent's process lease for this instance until `expiresAt`; returns the other live holder
   * instead if a different instance holds an unexpired lease.
   */
  acquireInstance(agent: string, instanceId: string, now: string, expiresAt: string): Promise<InstanceLease | undefined>;
  postRoomMessage(message: NewRoomMessage, extras?: WriteExtras<StoredRoomMessage>): Promise<StoredRoomMessage>;
  /** Unread messages to all or to the agent, oldest first, marked read in the same transaction. */
  readUnread(agent: string, limit: number, extras?: WriteExtras<{ messages: StoredRoomMessage[]; more: boolean }>): Promise<{ messages: StoredRoomMessage[]; more: boolean }>;
  /** Messages the agent can see (to all, to it, from it), newest first, ids below `before`. */
  readRoomLog(agent: string, before: number | undefined, limit: number): Promise<StoredRoomMessage[]>;
  getRoomMessage(id: number): Promise<{ message: StoredRoomMessage; receipts: ReceiptRow[] } | undefined>;
  pendingFor(query: PendingQuery): Promise<PendingCounts>;
  /** Help requests unanswered on unfinished tasks, and room messages to the agent by name still unread. */
  waitingOn(agent: string): Promise<WaitingCounts>;
  /** The items of the page's "Needs me" list that pendingFor does not give (issue 36). */
  needsOf(query: NeedsQuery): Promise<NeedsRows>;
  /** The history behind a project's progress charts, from the UTC day `fromDay` (YYYY-MM-DD) on. */
  progressRows(fromDay: string): Promise<ProgressRows>;
  /** Marks the reviews up to this id as told to the agent. */
  markReviewsSeen(agent: string, upToId: number): Promise<void>;
  /** Tasks each of these agents holds (claimed) now, read per agent; agents holding nothing are absent. */
  holdings(agents: readonly string[]): Promise<Map<string, Holding[]>>;
  /**
   * Reopens every claim whose lease lapsed at or before `now`, each with a `lease_expired` history row, in one
   * transaction; a conditional update, so of several daemons sweeping at once each lapse is reopened once.
   */
  expireLeases(now: string): Promise<ExpiredLease[]>;
  /** Moves the unlapsed leases the agent holds to `until`; returns how many. */
  renewLeases(agent: string, until: string, now: string): Promise<number>;
  /** The leases the agent holds now. */
  leasesHeldBy(agent: string): Promise<LeaseView[]>;
  /** The earliest lease expiry on the board, or null when nothing is claimed. */
  nextLeaseExpiry(): Promise<string | null>;
  /** A claim on a task: by its id, or the agent's latest; undefined if there is none. */
  findClaim(taskId: number, by: { readonly claimId: number } | { readonly agent: string }): Promise<ClaimRecord | undefined>;
  /** How many leases lapsed since the given time. */
  countExpiredLeasesSince(since: string): Promise<number>;
  /**
   * Adds or removes reservations on a task's current claim as the rule decides, with a history row, in one
   * transaction; returns the claim's reservations afterwards. A claim's reservations also end, with a
   * `paths_released` row, in the transaction that ends the claim (release, submit, cancel, lapse).
   */
  changeReservations(taskId: number, lookup: ReservationLookup | undefined, decide: DecideReservation, extras?: WriteExtras<Reservation[]>): Promise<Reservation[]>;
  /** How a scope's reservations changed since a version (-1: every row), for an index to catch up. */
  reservationChanges(scope: string, since: number): Promise<ReservationChanges>;
  /** The reservations a task's current claim holds. */
  reservationsOf(taskId: number): Promise<Reservation[]>;
  /** Ends the lease if this instance holds it. */
  releaseInstance(agent: string, instanceId: string): Promise<void>;
  /**
   * Edits a task: reads it and the facts of `dependsOn` (when the edit replaces the list), lets `decide` judge, and
   * writes the fields, the edges and one `edited` history row, in one transaction. Nothing is written if it returns null.
   */
  updateTask(id: number, dependsOn: readonly number[] | undefined, decide: DecideEdit, extras?: WriteExtras<Task>): Promise<Task>;
  /** The unfinished tasks whose depends_on names this one. */
  dependentsOf(id: number): Promise<TaskSummary[]>;
  /** How many open tasks nothing blocks. */
  countReady(): Promise<number>;
  /** Full-text hits, best first, one page; room messages only those the reader may read (issue 36). */
  search(query: SearchQuery): Promise<SearchHit[]>;
  close(): Promise<void>;
}
