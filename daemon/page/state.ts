// The page's state shared between its parts, and the hooks by which one part asks another to act.
import type { BoardState, TaskDetail } from './types.js';

export interface OlderPages {
  rows: Array<{ id: number }>;
  loaded: boolean;
  cursor: string | null;
}

export const view = {
  signedIn: false,
  data: null as BoardState | null,
  firstRender: true,
  openTaskId: null as number | null,
  /** The open task's newest page (as last loaded) and the older pages loaded on request, per list. */
  detailLatest: null as TaskDetail | null,
  older: { messages: emptyOlder(), history: emptyOlder() },
  openedFrom: null as HTMLElement | null,
};

export function emptyOlder(): OlderPages {
  return { rows: [], loaded: false, cursor: null };
}

/** Set by main.ts: each part calls the others through these, so no module imports its caller. */
export const hooks = {
  /** A change reached the event stream (a task, a task message, a room message): the open Activity view reads it. */
  boardChanged: (): void => undefined,
  /** Read /view/state again soon (debounced). */
  refreshState: (): void => undefined,
  /** Read the open task again soon (debounced). */
  refreshDetail: (): void => undefined,
  openDetail: (_taskId: number, _from: HTMLElement | null): void => undefined,
  /** The session is gone (signed out, expired, revoked): back to the sign-in form with this message. */
  signedOut: (_message: string): void => undefined,
  /** Opens the task form: empty for a new task, or filled to edit one. */
  editTask: (_taskId: number | null, _from: HTMLElement | null): void => undefined,
};
