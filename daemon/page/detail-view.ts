// One task in full, in a side panel: its facts, description, result, reviews, messages and history (older pages on
// request), and for an owner the controls that act on it. Re-read live; typed text in its forms survives a re-read.
import { boardPath } from './base.js';
import { noClaimerFor, planChips } from './board-view.js';
import { avatar, byId, externalLink, h, ids, statusLabel, timeEl, type Child } from './dom.js';
import { request } from './net.js';
import { sessionEndedMessage } from './session-end.js';
import { emptyOlder, hooks, view, type OlderPages } from './state.js';
import { cancelForm, editButton, releaseForm, replyForm, reviewForm } from './task-actions.js';
import { usageText } from './cost-view.js';
import { prUrlsIn } from './pr-links.js';
import type { Activity, Message, Task, TaskDetail } from './types.js';
import { forgetWorkView, submissionOf, workSection } from './work-view.js';

const FINAL = ['done', 'cancelled'];

/**
 * The owner's forms for the open task, kept while the task stays in the state they act on (same status and claim),
 * so a re-read of the task while someone types keeps what was typed.
 */
const forms = new Map<string, HTMLElement>();

function keptForm(task: Task, kind: string, build: (task: Task) => HTMLElement): HTMLElement {
  const key = `${task.id}:${kind}:${task.status}:${task.claim_id ?? ''}`;
  let form = forms.get(key);
  if (!form) {
    form = build(task);
    forms.set(key, form);
  }
  return form;
}

export function openDetail(taskId: number, from: HTMLElement | null): void {
  if (view.openTaskId !== taskId) {
    forms.clear();
    forgetWorkView();
  }
  view.openTaskId = taskId;
  view.detailLatest = null;
  view.older = { messages: emptyOlder(), history: emptyOlder() };
  view.openedFrom = from;
  byId('detail-id').textContent = `#${taskId}`;
  const status = byId('detail-status');
  status.textContent = '';
  status.removeAttribute('data-status');
  byId('detail-body').replaceChildren(h('p', { class: 'detail-missing' }, 'Loading…'));
  byId('detail').hidden = false;
  byId('scrim').hidden = false;
  byId('detail-close').focus();
  void loadDetail();
}

export function closeDetail(): void {
  const detail = byId('detail');
  if (detail.hidden) return;
  detail.hidden = true;
  byId('scrim').hidden = true;
  view.openTaskId = null;
  view.detailLatest = null;
  forms.clear();
  forgetWorkView();
  byId('detail').classList.remove('has-work');
  if (view.openedFrom && document.contains(view.openedFrom)) view.openedFrom.focus();
  view.openedFrom = null;
}

export async function loadDetail(): Promise<void> {
  const id = view.openTaskId;
  if (id === null) return;
  // The patch (up to 1 MiB) is read once per submission: a re-read on an event takes the summary and keeps the patch.
  const had = view.detailLatest?.task.id === id ? view.detailLatest.work : null;
  let answer;
  try {
    answer = await request<TaskDetail>('GET', boardPath(`/view/tasks/${encodeURIComponent(id)}${had?.patch !== undefined ? '?without_patch=1' : ''}`));
    if (had?.patch !== undefined && answer.status === 200 && answer.body?.work) {
      const work = answer.body.work;
      if (work.patch_kept && submissionOf(work) === submissionOf(had)) answer = { ...answer, body: { ...answer.body, work: { ...work, patch: had.patch } } };
      else answer = await request<TaskDetail>('GET', boardPath(`/view/tasks/${encodeURIComponent(id)}`));
    }
  } catch {
    return;
  }
  if (view.openTaskId !== id) return;
  if (answer.status === 401) return hooks.signedOut(sessionEndedMessage(answer.body));
  if (answer.status === 404) {
    byId('detail-body').replaceChildren(h('p', { class: 'detail-missing' }, 'This task does not exist.'));
    return;
  }
  if (answer.status !== 200 || !answer.body) return;
  view.detailLatest = answer.body;
  rerenderDetail();
}

export function rerenderDetail(): void {
  if (!view.detailLatest) return;
  const body = byId('detail-body');
  const scroll = body.scrollTop;
  // Focus inside a kept form stays where it was: the form is moved, not rebuilt.
  const focused = document.activeElement;
  renderDetail(view.detailLatest);
  body.scrollTop = scroll;
  if (focused instanceof HTMLElement && focused !== document.activeElement && document.contains(focused)) focused.focus();
}

/** Loads the next older page of a task's messages or history (get_task pages them, newest first). */
async function loadOlder(list: 'messages' | 'history', cursor: string): Promise<void> {
  const id = view.openTaskId;
  if (id === null) return;
  let answer;
  try {
    answer = await request<TaskDetail>('GET', boardPath(`/view/tasks/${encodeURIComponent(id)}?${list}_cursor=${encodeURIComponent(cursor)}&without_patch=1`));
  } catch {
    return;
  }
  if (view.openTaskId !== id || answer.status !== 200 || !answer.body) return;
  const older: OlderPages = view.older[list];
  older.rows.push(...answer.body[list]);
  older.loaded = true;
  older.cursor = answer.body[`${list}_next_cursor`];
  rerenderDetail();
}

/** The newest page and the older pages loaded so far, oldest first, and the button for the page before them. */
function pagedList<T extends { id: number }>(detail: TaskDetail, list: 'messages' | 'history', label: string): { rows: T[]; more: HTMLElement | null } {
  const older = view.older[list];
  const byRowId = new Map<number, T>();
  for (const row of [...(detail[list] as readonly unknown[]), ...older.rows] as T[]) byRowId.set(row.id, row);
  const rows = [...byRowId.values()].sort((a, b) => a.id - b.id);
  const cursor = older.loaded ? older.cursor : detail[`${list}_next_cursor`];
  if (!cursor) return { rows, more: null };
  const more = h('button', { type: 'button', class: 'load-older', 'data-list': list }, `Show earlier ${label} (${detail[`${list}_total`] - rows.length} more)`);
  more.addEventListener('click', () => void loadOlder(list, cursor));
  return { rows, more };
}

function section(title: string, ...content: Child[]): HTMLElement {
  return h('section', { class: 'section' }, h('h3', null, title), ...content);
}

/** An edit's history row: each field it changed with the value it replaced, as text. */
function editEl(edit: NonNullable<Activity['edit']>): HTMLElement {
  const shown = (value: unknown) => (value === null ? 'none' : Array.isArray(value) ? (value.length ? value.join(', ') : 'none') : String(value));
  return h('dl', { class: 'edit' }, edit.fields.flatMap((field) => [h('dt', null, `${field.replace(/_/g, ' ')} was`), h('dd', null, shown(edit.old[field]))]));
}

function renderDetail(detail: TaskDetail): void {
  const { task, reviews } = detail;
  const acts = view.data?.me.acts === true;
  const unfinished = !FINAL.includes(task.status);
  const pagedMessages = pagedList<Message>(detail, 'messages', 'messages');
  const pagedHistory = pagedList<Activity>(detail, 'history', 'history');
  byId('detail-id').textContent = `#${task.id}`;
  const status = byId('detail-status');
  status.textContent = statusLabel(task.status);
  status.dataset['status'] = task.status;

  const skills = task.required_skills.length ? task.required_skills.map((s) => h('span', { class: 'chip' }, s)) : [h('span', { class: 'empty' }, 'none')];
  const reservations = detail.reservations ?? [];
  const facts = h(
    'dl',
    { class: 'facts' },
    h('dt', null, 'Assignee'),
    h('dd', null, task.assignee ? [avatar(task.assignee, true), task.assignee] : h('span', { class: 'empty' }, 'nobody')),
    h('dt', null, 'Created by'),
    h('dd', null, avatar(task.created_by, true), task.created_by),
    h('dt', null, 'Skills'),
    h('dd', null, skills),
    h('dt', null, 'Priority'),
    h('dd', null, h('span', { class: `chip priority priority-${task.priority}` }, task.priority)),
    h('dt', null, 'Depends on'),
    // Priority has its own line: here only whether the task is ready or what blocks it.
    h('dd', { class: 'depends-on' }, task.depends_on.length ? ids(task.depends_on) : h('span', { class: 'empty' }, 'nothing'), planChips({ ...task, priority: 'normal' }, noClaimerFor(view.data, task.id))),
    h('dt', null, 'Dependents'),
    h('dd', { class: 'dependents' }, detail.dependents.length ? ids(detail.dependents) : h('span', { class: 'empty' }, 'none')),
    task.status === 'claimed' ? [h('dt', null, 'Reserved paths'), h('dd', { class: 'reserved' }, reservations.length ? reservations.map((r) => h('span', { class: `chip path${r.exclusive ? ' exclusive' : ''}` }, r.pattern)) : h('span', { class: 'empty' }, 'none'))] : null,
    h('dt', null, 'Cost'),
    h('dd', { class: 'task-usage' }, detail.usage.reports ? usageText(detail.usage) : h('span', { class: 'empty' }, 'none reported')),
    h('dt', null, 'Created'),
    h('dd', null, timeEl(task.created_at)),
    h('dt', null, 'Updated'),
    h('dd', null, timeEl(task.updated_at)),
  );

  const parts: HTMLElement[] = [h('h2', { id: 'detail-title', class: 'detail-title' }, task.title), facts];
  if (acts && unfinished) parts.push(keptForm(task, 'edit', editButton));
  if (acts && task.status === 'claimed') parts.push(section('Release the claim', keptForm(task, 'release', releaseForm)));
  parts.push(section('Description', task.description ? h('div', { class: 'prose' }, task.description) : h('p', { class: 'empty' }, 'No description.')));
  const reviewing = acts && task.status === 'submitted';
  if (task.result !== null) {
    // The result, and beside it (for an owner) the review form that judges it.
    const links = prUrlsIn(task.result).filter((url) => url !== detail.work?.pr_url);
    parts.push(
      h(
        'div',
        { class: reviewing ? 'result-review' : undefined },
        section('Result', h('div', { class: 'prose boxed' }, task.result), links.length ? h('ul', { class: 'pr-links' }, links.map((url) => h('li', null, externalLink(url)))) : null),
        reviewing
          ? section(
              'Review',
              keptForm(task, 'review', (t) => reviewForm(t, () => (view.detailLatest?.work ? submissionOf(view.detailLatest.work) : null))),
            )
          : null,
      ),
    );
  }
  const work = workSection(detail, reviewing);
  byId('detail').classList.toggle('has-work', work !== null);
  if (work) parts.push(work);
  if (reviews.length) {
    parts.push(
      section(
        'Reviews',
        h(
          'div',
          { class: 'thread' },
          reviews.map((r) =>
            h(
              'div',
              { class: 'entry' },
              h('div', { class: 'entry-head' }, h('span', { class: `pill verdict-${r.verdict}` }, r.verdict === 'approve' ? 'Approved' : 'Rejected'), h('span', null, 'by ', h('strong', null, r.reviewer)), timeEl(r.created_at, 'when')),
              r.note ? h('div', { class: 'prose' }, r.note) : null,
            ),
          ),
        ),
      ),
    );
  }
  const messages = pagedMessages.rows;
  parts.push(
    section(
      `Messages (${detail.messages_total})`,
      pagedMessages.more,
      messages.length
        ? h(
            'div',
            { class: 'thread' },
            messages.map((m) =>
              h(
                'div',
                { class: 'entry', 'data-message-id': m.id },
                h('div', { class: 'entry-head' }, avatar(m.author, true), h('strong', null, m.author), h('span', { class: 'chip' }, m.kind.replace('_', ' ')), timeEl(m.created_at, 'when')),
                h('div', { class: 'prose boxed' }, m.text),
              ),
            ),
          )
        : h('p', { class: 'empty' }, 'No messages.'),
      acts && unfinished ? keptForm(task, 'reply', replyForm) : null,
    ),
  );
  parts.push(
    section(
      'History',
      pagedHistory.more,
      h(
        'ol',
        { class: 'timeline' },
        pagedHistory.rows.map((a) =>
          h(
            'li',
            { class: 'step', 'data-status': a.to_status || undefined },
            h(
              'div',
              { class: 'step-line' },
              h('strong', null, a.agent || 'someone'),
              h('span', null, a.action.replace(/_/g, ' ')),
              a.from_status && a.to_status && a.from_status !== a.to_status ? h('span', { class: 'task-id' }, `${a.from_status} → ${a.to_status}`) : null,
              timeEl(a.created_at, 'when'),
            ),
            a.note ? h('div', { class: 'note' }, a.note) : null,
            a.edit ? editEl(a.edit) : null,
          ),
        ),
      ),
    ),
  );
  // Cancelling, which cannot be undone, comes last.
  if (acts && unfinished) parts.push(section('Cancel the task', keptForm(task, 'cancel', cancelForm)));
  byId('detail-body').replaceChildren(...parts);
}
