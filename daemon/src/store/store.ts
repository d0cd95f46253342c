// The board's storage interface: async, one method per board operation, each one whole transaction.
// Rules are passed in as pure decisions, so a PostgreSQL store can run the same ones inside BEGIN ... COMMIT.
import type { Activity, Message, MessageKind, Review, Task, TaskStatus, TaskSummary, Verdict } from 'roundtable-shared';

/** What a decision asks the store to write when it accepts a task transition. */
export interface TaskChange {
  /** The agent making the change, recorded in the history. */
  readonly actor: string;
  readonly status: TaskStatus;
  readonly assignee: string | null;
  /** Omitted: keep the stored result. */
  readonly result?: string | null;
  /** The activity row to append (who did what). */
  readonly action: string;
  readonly note?: string | null;
  readonly review?: { readonly verdict: Verdict; readonly note: string | null };
}

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
}

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
}

export interface TaskPage {
  readonly tasks: TaskSummary[];
  /** The id to continue after, or null on the last page. */
  readonly lastId: number | null;
}

export interface TaskDetail {
  readonly task: Task;
  readonly messages: Message[];
  readonly reviews: Review[];
  readonly history: Activity[];
}

export interface AuditRow {
  readonly agent: string | null;
  readonly tool: string;
  readonly taskId: number | null;
  readonly outcome: string;
}

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

export interface BoardStore {
  createTask(task: NewTask, record?: ResponseRecord<Task>): Promise<Task>;
  getTask(id: number): Promise<TaskDetail | undefined>;
  listTasks(query: TaskQuery): Promise<TaskPage>;
  claimTask(id: number, decide: DecideChange, record?: ResponseRecord<Task>): Promise<Task>;
  releaseTask(id: number, decide: DecideChange, record?: ResponseRecord<Task>): Promise<Task>;
  submitResult(id: number, decide: DecideChange, record?: ResponseRecord<Task>): Promise<Task>;
  reviewTask(id: number, decide: DecideChange, record?: ResponseRecord<Task>): Promise<Task>;
  cancelTask(id: number, decide: DecideChange, record?: ResponseRecord<Task>): Promise<Task>;
  postMessage(id: number, check: CheckTask, message: NewMessage, record?: ResponseRecord<Message>): Promise<Message>;
  /** The unexpired response recorded under (agent, key), if any. */
  findResponse(agent: string, key: string, expiredBefore: string): Promise<StoredResponse | undefined>;
  /** Deletes recorded responses older than the given time; returns how many. */
  purgeResponses(olderThan: string): Promise<number>;
  appendAudit(row: AuditRow): Promise<void>;
  /** When each named agent last called a tool (absent if never). */
  lastSeen(names: readonly string[]): Promise<Map<string, string>>;
  countTasksByStatus(): Promise<Record<TaskStatus, number>>;
  /**
   * Takes or renews the agent's process lease for this instance until `expiresAt`; returns the other live holder
   * instead if a different instance holds an unexpired lease.
   */
  acquireInstance(agent: string, instanceId: string, now: string, expiresAt: string): Promise<InstanceLease | undefined>;
  /** Ends the lease if this instance holds it. */
  releaseInstance(agent: string, instanceId: string): Promise<void>;
  close(): Promise<void>;
}
