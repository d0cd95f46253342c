// What the page says when the board stops knowing its session: a restart of a board that keeps sessions in memory is
// told as such, anything else as an ended session.
import type { BoardErrorBody } from './net.js';
import { view } from './state.js';

export const SESSION_ENDED = 'Your session ended. Sign in again.';
export const BOARD_RESTARTED = 'The board restarted, which signs everyone out (it keeps sessions in memory). Sign in again.';

/** The message for a 401: the board restarted when the start time it names is not the one this page signed in under. */
export function sessionEndedMessage(body: unknown): string {
  const startedNow = (body as BoardErrorBody | null)?.error?.board_started_at;
  const startedBefore = view.data?.board_started_at;
  return startedNow !== undefined && startedBefore !== undefined && startedNow !== startedBefore ? BOARD_RESTARTED : SESSION_ENDED;
}
