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
