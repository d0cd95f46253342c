// An owner's controls in the task panel: review a submission beside its result, force-release a claim, reply on the
// task, edit and cancel it. Each is a form whose action is one tool call (feedback.ts perform).
import { LIMITS } from '../../shared/src/limits.js';
import { h, uniqueId } from './dom.js';
import { perform, showError } from './feedback.js';
import { clearComments, commentsOf, noteTooLong, onCommentsChanged, reviewNote } from './line-comments.js';
import { hooks } from './state.js';
import type { Task } from './types.js';

function field(label: string, control: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement, hint?: string): HTMLElement {
  const id = uniqueId('field');
  control.id = id;
  const hintEl = hint ? h('span', { class: 'hint', id: `${id}-hint` }, hint) : null;
  if (hintEl) control.setAttribute('aria-describedby', hintEl.id);
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, hintEl);
}

function errorLine(): HTMLElement {
  return h('p', { class: 'form-error', role: 'alert', hidden: true });
}

/**
 * Approve, or reject with a note; the note is optional to approve and required to reject. The reviewer's line comments
 * on the diff (line-comments.ts) go first in the note, one `path:line: text` a line; `submission` names the submission
 * they were written on.
 */
export function reviewForm(task: Task, submission: () => string | null): HTMLFormElement {
  const note = h('textarea', { name: 'note', rows: 3, maxlength: LIMITS.reviewNote });
  const error = errorLine();
  const count = h('p', { class: 'hint comment-count', hidden: true });
  const comments = () => {
    const key = submission();
    return key === null ? [] : commentsOf(task.id, key);
  };
  const showCount = () => {
    const n = comments().length;
    count.hidden = n === 0;
    count.textContent = n === 0 ? '' : `${n === 1 ? '1 line comment goes' : `${n} line comments go`} into the note, one "path:line: text" a line, before what you write here.`;
  };
  onCommentsChanged(showCount);
  showCount();
  const form = h(
    'form',
    { class: 'action-form review-form', 'aria-label': `Review task ${task.id}` },
    field('Review note', note, `Required to reject: say what should change.${submission() === null ? '' : ' Click a line number in the diff to comment on that line.'} Kept in the task's history.`),
    count,
    h(
      'div',
      { class: 'form-buttons' },
      h('button', { class: 'btn primary', type: 'submit', value: 'approve' }, 'Approve'),
      h('button', { class: 'btn danger', type: 'submit', value: 'reject' }, 'Reject'),
    ),
    error,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const verdict = (event.submitter as HTMLButtonElement | null)?.value === 'reject' ? 'reject' : 'approve';
    const lineComments = comments();
    const text = reviewNote(lineComments, note.value);
    const tooLong = noteTooLong(text, lineComments.length);
    if (tooLong) return showError(error, tooLong);
    const args: Record<string, unknown> = { task_id: task.id, verdict };
    if (text !== '') args['note'] = text;
    const done = await perform({ form, tool: 'review_task', args, done: () => `Task #${task.id} ${verdict === 'approve' ? 'approved' : 'rejected'}.`, errorEl: error });
    if (done) clearComments(task.id);
  });
  return form;
}

/** Takes a claim back from its holder (a crashed or stuck agent); the board requires a note saying why. */
export function releaseForm(task: Task): HTMLFormElement {
  const note = h('textarea', { name: 'note', rows: 2, maxlength: LIMITS.releaseNote, required: true });
  const error = errorLine();
  const form = h(
    'form',
    { class: 'action-form release-form', 'aria-label': `Release the claim on task ${task.id}` },
    field('Why release it', note, `The task goes back to open; ${task.assignee ?? 'its holder'} loses the claim.`),
    h('div', { class: 'form-buttons' }, h('button', { class: 'btn danger', type: 'submit' }, 'Force release')),
    error,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void perform({ form, tool: 'release_task', args: { task_id: task.id, note: note.value }, done: () => `Task #${task.id} released.`, errorEl: error });
  });
  return form;
}

/** A message on the task, seen by whoever works on it. */
export function replyForm(task: Task): HTMLFormElement {
  const kind = h('select', { name: 'kind' }, h('option', { value: 'reply' }, 'reply'), h('option', { value: 'note' }, 'note'));
  const text = h('textarea', { name: 'text', rows: 3, maxlength: LIMITS.message, required: true });
  const error = errorLine();
  const form = h(
    'form',
    { class: 'action-form reply-form', 'aria-label': `Post a message on task ${task.id}` },
    field('Message', text),
    h('div', { class: 'form-buttons' }, field('Kind', kind), h('button', { class: 'btn primary', type: 'submit' }, 'Post message')),
    error,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const posted = await perform({ form, tool: 'post_message', args: { task_id: task.id, kind: kind.value, text: text.value }, done: () => `Message posted on task #${task.id}.`, errorEl: error });
    if (posted) text.value = '';
  });
  return form;
}

/** Edit: the task form, filled with the task. */
export function editButton(task: Task): HTMLElement {
  const edit = h('button', { class: 'btn ghost', type: 'button' }, 'Edit task');
  edit.addEventListener('click', () => hooks.editTask(task.id, edit));
  return h('div', { class: 'form-buttons' }, edit);
}

/** Cancel, with an optional reason, for an unfinished task. */
export function cancelForm(task: Task): HTMLElement {
  const reason = h('input', { name: 'reason', type: 'text', maxlength: LIMITS.cancelReason });
  const error = errorLine();
  const cancel = h(
    'form',
    { class: 'action-form cancel-form', 'aria-label': `Cancel task ${task.id}` },
    field('Reason to cancel (optional)', reason),
    h('div', { class: 'form-buttons' }, h('button', { class: 'btn danger', type: 'submit' }, 'Cancel task')),
    error,
  );
  cancel.addEventListener('submit', (event) => {
    event.preventDefault();
    const args: Record<string, unknown> = { task_id: task.id };
    if (reason.value.trim() !== '') args['reason'] = reason.value;
    void perform({ form: cancel, tool: 'cancel_task', args, done: () => `Task #${task.id} cancelled.`, errorEl: error });
  });
  return cancel;
}
