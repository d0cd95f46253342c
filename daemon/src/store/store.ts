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

export interface BoardStore {
  createTask(task: NewTask): Promise<Task>;
  getTask(id: number): Promise<TaskDetail | undefined>;
  listTasks(query: TaskQuery): Promise<TaskPage>;
  claimTask(id: number, decide: DecideChange): Promise<Task>;
  releaseTask(id: number, decide: DecideChange): Promise<Task>;
  submitResult(id: number, decide: DecideChange): Promise<Task>;
  reviewTask(id: number, decide: DecideChange): Promise<Task>;
  cancelTask(id: number, decide: DecideChange): Promise<Task>;
  postMessage(id: number, check: CheckTask, message: NewMessage): Promise<Message>;
  appendAudit(row: AuditRow): Promise<void>;
  /** When each named agent last called a tool (absent if never). */
  lastSeen(names: readonly string[]): Promise<Map<string, string>>;
  countTasksByStatus(): Promise<Record<TaskStatus, number>>;
  close(): Promise<void>;
}
