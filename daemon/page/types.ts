// What the page reads from the daemon: /view/state and /view/tasks/{id}, typed from the tools' own output types, /view/apps and /view/usage.
import type { Activity, Message, Review, Role, Task, TaskStatus, TaskSummary, ToolOutput, getTask, members } from 'roundtable-shared';

export type Member = ToolOutput<typeof members>['members'][number];
export type Holding = Member['holding'][number];

export interface RoomMessage {
  readonly id: number;
  readonly from: string;
  readonly to: 'all' | readonly string[];
  readonly text: string;
  readonly created_at: string;
}

export interface BoardState {
  readonly board: string;
  readonly mode: 'role' | 'peer';
  /** acts: the page offers this session its forms and buttons (an owner's). */
  readonly me: { readonly name: string; readonly role: Role; readonly acts: boolean };
  readonly tasks: readonly TaskSummary[];
  /** Open tasks no member in force can claim, with the required skills no claimer has (may be empty: none has all). */
  readonly unclaimable: ReadonlyArray<{ readonly id: number; readonly missing_skills: readonly string[] }>;
  readonly counts: Partial<Record<TaskStatus, number>>;
  readonly members: readonly Member[];
  readonly room: readonly RoomMessage[];
  readonly untrusted_content_warning: string;
  /** Sent back with every page action (daemon/src/web/csrf.ts). */
  readonly csrf_token: string;
  /** When the daemon started, where its sessions end with it (SQLite); a 401 naming another start means it restarted. */
  readonly board_started_at?: string;
}

/** One app connected by OAuth sign-in, from GET /view/apps (daemon/src/web/connected-apps.ts). client_name is the app's own text. */
export interface ConnectedApp {
  readonly grant_id: string;
  readonly client_name: string | null;
  readonly client_id: string;
  readonly redirect_host: string;
  readonly agent: string;
  readonly agent_role: Role | null;
  readonly granted_by: string;
  readonly created_at: string;
  readonly last_used_at: string | null;
}

export type TaskDetail = ToolOutput<typeof getTask> & {
  readonly task: Task;
  readonly messages: readonly Message[];
  readonly reviews: readonly Review[];
  readonly history: readonly Activity[];
};

export type WorkRecord = NonNullable<TaskDetail['work']>;
export type UsageTotals = TaskDetail['usage'];

/** GET /view/usage (daemon/src/web/usage-view.ts): what the work cost, as the agents reported it. */
export interface UsageSummary {
  readonly project: UsageTotals;
  readonly agents: ReadonlyArray<{ readonly agent: string } & UsageTotals>;
  readonly tasks: ReadonlyArray<{ readonly task_id: number; readonly title: string } & UsageTotals>;
  /** The project's agents with no report. */
  readonly silent: readonly string[];
}

export type { Activity, Message, Review, Task, TaskStatus, TaskSummary };

/** One project of the signed-in principal, from GET /overview (daemon/src/process/overview.ts): counts only. */
export interface ProjectSummary {
  readonly slug: string;
  readonly title: string;
  readonly mode: 'role' | 'peer';
  readonly role: Role;
  readonly agents: number;
  readonly tasks: Partial<Record<TaskStatus, number>> | null;
  readonly waiting: { readonly to_review: number; readonly help_requests: number; readonly messages: number } | null;
  readonly active_agents: number | null;
}

export interface Overview {
  readonly me: { readonly name: string; readonly kind: 'agent' | 'person' };
  readonly projects: readonly ProjectSummary[];
}

/** One item of GET /view/needs (daemon/src/board/needs.ts): ids, names and times; `title` is board text. */
export interface NeedItem {
  readonly kind: 'review' | 'help' | 'message' | 'blocked' | 'lapsed';
  readonly task_id?: number;
  readonly message_id?: number;
  readonly title?: string;
  readonly text?: string;
  readonly who?: string;
  readonly at?: string;
}

export interface Needs {
  readonly items: readonly NeedItem[];
  readonly count: number;
}

/** GET /view/progress (daemon/src/board/progress.ts): figures only, agent names the board's. */
export interface CycleFigures {
  readonly tasks: number;
  readonly median_hours: number | null;
  readonly p90_hours: number | null;
}

export interface Progress {
  readonly from: string;
  readonly to: string;
  readonly days: ReadonlyArray<{ readonly day: string; readonly total: number; readonly done_total: number; readonly done: number }>;
  readonly cycle_time: { readonly overall: CycleFigures; readonly per_agent: ReadonlyArray<CycleFigures & { readonly agent: string }> };
  readonly wip: ReadonlyArray<{ readonly agent: string; readonly claimed: number }>;
}
