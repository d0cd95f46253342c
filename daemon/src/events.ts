// Board events for waking waiters and live views: a small publish/subscribe interface, in-process today.
// Events carry ids, names and states only, never board text; subscribers read what they need.
import type { TaskStatus, TaskSummary } from 'roundtable-shared';

export type BoardEvent =
  | {
      readonly type: 'task';
      readonly action: string;
      readonly actor: string;
      readonly task: {
        readonly id: number;
        readonly status: TaskStatus;
        readonly assignee: string | null;
        readonly required_skills: readonly string[];
        /** Open but waiting on unfinished dependencies: nobody may claim it yet. */
        readonly blocked?: boolean;
        readonly created_by?: string;
        /** A claim's lease: a daemon that did not grant it (several on one database) learns when to sweep. */
        readonly lease_expires_at?: string | null;
      };
      /** For reviews: whose submission was judged. */
      readonly submitter?: string | null;
    }
  | { readonly type: 'task_message'; readonly task_id: number; readonly author: string }
  | { readonly type: 'room'; readonly message_id: number; readonly from: string; readonly to: 'all' | readonly string[] }
  | { readonly type: 'presence'; readonly agent: string }
  /**
   * A web session was signed out (several daemons: the others forget it and end its event streams). It names the
   * session by the SHA-256 of its id, never the id: that is a credential, and whoever may LISTEN on the database sees
   * this. For the daemons only; never sent to a page.
   */
  | { readonly type: 'session_ended'; readonly session_sha256: string }
  /**
   * This daemon may have missed events (several daemons: its database listener reconnected, and what was sent
   * meanwhile is gone): whoever waits or watches reads the board again. Delivered in this process only.
   */
  | {
      readonly type: 'resync';
      /** The events missed were read from the event log and delivered already: waiters need not look again. */
      readonly replayed?: boolean;
    };

/** A board change's event as the event log keeps it (store/event-log.ts); presence, sign-outs and resyncs are not changes. */
export type LoggedEvent = Extract<BoardEvent, { type: 'task' | 'task_message' | 'room' }>;

/** The event of a change to a task, from the task as written: one definition for the event log and the bus. */
export function taskEvent(
  task: Pick<TaskSummary, 'id' | 'status' | 'assignee' | 'required_skills' | 'blocked_by' | 'created_by' | 'lease_expires_at'>,
  change: { readonly actor: string; readonly action: string; readonly review?: { readonly submitter: string | null } | undefined },
): LoggedEvent {
  return {
    type: 'task',
    action: change.action,
    actor: change.actor,
    task: {
      id: task.id,
      status: task.status,
      assignee: task.assignee,
      required_skills: task.required_skills,
      blocked: task.blocked_by.length > 0,
      created_by: task.created_by,
      lease_expires_at: task.lease_expires_at,
    },
    ...(change.review && { submitter: change.review.submitter }),
  };
}

export type BoardEventListener = (event: BoardEvent) => void;

export interface EventBus {
  publish(event: BoardEvent): void;
  /** Returns the function that unsubscribes. */
  subscribe(listener: BoardEventListener): () => void;
}

/** One process: listeners are called synchronously; a throwing listener does not stop the others. */
export class LocalEventBus implements EventBus {
  private readonly listeners = new Set<BoardEventListener>();

  publish(event: BoardEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // a subscriber's failure is its own; the event still reaches the rest
      }
    }
  }

  subscribe(listener: BoardEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get size(): number {
    return this.listeners.size;
  }
}
