// A reviewer's comments on lines of a submission's diff, kept per task until the review is sent, and the review note
// they become: one `path:line: text` line per comment, before the free note (the worker reads it in get_task).
import { LIMITS } from '../../shared/src/limits.js';

export interface LineComment {
  readonly id: number;
  readonly path: string;
  /** The new side's line number; a removed line's old-side number. */
  readonly line: number;
  readonly side: 'new' | 'old';
  readonly text: string;
}

/** Comments by task, for the submission they were written on (a resubmission starts an empty list). */
const byTask = new Map<number, { submission: string; comments: LineComment[] }>();
let nextId = 0;
/** Told after each change (the review form's count of comments). */
let changed: () => void = () => undefined;

export function onCommentsChanged(listener: () => void): void {
  changed = listener;
}

export function commentsOf(taskId: number, submission: string): readonly LineComment[] {
  const entry = byTask.get(taskId);
  return entry && entry.submission === submission ? entry.comments : [];
}

export function addComment(taskId: number, submission: string, comment: Omit<LineComment, 'id' | 'text'> & { text: string }): LineComment {
  let entry = byTask.get(taskId);
  if (!entry || entry.submission !== submission) byTask.set(taskId, (entry = { submission, comments: [] }));
  // One comment is one line of the note: line breaks typed into it become spaces.
  const added = { ...comment, id: ++nextId, text: comment.text.replace(/\s*[\r\n]+\s*/g, ' ').trim() };
  entry.comments.push(added);
  changed();
  return added;
}

export function removeComment(taskId: number, id: number): void {
  const entry = byTask.get(taskId);
  if (entry) entry.comments = entry.comments.filter((c) => c.id !== id);
  changed();
}

/** After the review was accepted: its comments went with it. */
export function clearComments(taskId: number): void {
  byTask.delete(taskId);
  changed();
}

/** The note sent with the verdict: the comments in diff order, one a line, then the reviewer's own note. */
export function reviewNote(comments: readonly LineComment[], note: string): string {
  const lines = [...comments].sort((a, b) => (a.path === b.path ? a.line - b.line : a.path < b.path ? -1 : 1)).map((c) => `${c.path}:${c.line}: ${c.text}`);
  const free = note.trim() === '' ? '' : note;
  if (lines.length === 0) return free;
  return free === '' ? lines.join('\n') : `${lines.join('\n')}\n\n${free}`;
}

/** Why a note cannot be sent, or null: the board's limit on a review note, counted as the board counts it. */
export function noteTooLong(note: string, commentCount: number): string | null {
  if (note.length <= LIMITS.reviewNote) return null;
  const what = commentCount ? `The review note with its ${commentCount} line comment${commentCount === 1 ? '' : 's'}` : 'The review note';
  return `${what} is ${note.length} characters; the limit is ${LIMITS.reviewNote} (LIMITS.reviewNote). Shorten the note or a comment.`;
}
