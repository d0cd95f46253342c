// The board-wide Activity timeline (GET /view/activity): who did what and when, newest first, each task a button that
// opens it. While open it is live: each board event reads what came after its head. Names are shown as text only.
import { boardPath } from './base.js';
import { avatar, byId, h, timeEl } from './dom.js';
import { filterQuery } from './history-filter.js';
import { request } from './net.js';
import { sessionEndedMessage } from './session-end.js';
import { hooks, view } from './state.js';

interface ActivityItem {
  readonly cursor: string;
  readonly at: string | null;
  readonly kind: string;
  readonly action: string;
  readonly actor: string;
  readonly task_id: number | null;
  readonly to?: 'all' | readonly string[];
}
interface ActivityPage {
  readonly items: ActivityItem[];
  readonly next: string | null;
  readonly head: string | null;
  readonly more?: boolean;
  readonly resync?: boolean;
}

const WORDS: Record<string, string> = { task_message: 'wrote on', room: 'posted in the room', lease_expired: 'lost the lease on', blocker_cancelled: 'lost a blocker of' };

let head: string | null = null;
let next: string | null = null;
let reading = false;
let again = false;

const dialog = () => byId<HTMLDialogElement>('activity-dialog');
const filter = () => filterQuery(byId<HTMLFormElement>('activity-filter'));

function row(item: ActivityItem): HTMLElement {
  const task = item.task_id === null ? null : view.data?.tasks.find((t) => t.id === item.task_id);
  const target =
    item.task_id === null
      ? item.to && item.to !== 'all'
        ? `to ${item.to.join(', ')}`
        : ''
      : h('button', { type: 'button', class: 'link-button', 'data-task': item.task_id }, `#${item.task_id}${task ? ` ${task.title}` : ''}`);
  return h('li', { 'data-kind': item.kind }, avatar(item.actor, true), h('strong', null, item.actor), WORDS[item.action] ?? item.action.replaceAll('_', ' '), target, timeEl(item.at));
}

async function read(query: URLSearchParams): Promise<ActivityPage | null> {
  const answer = await request<ActivityPage>('GET', boardPath(`/view/activity?${query}`)).catch(() => null);
  if (answer?.status === 401) hooks.signedOut(sessionEndedMessage(answer.body));
  return answer?.status === 200 ? answer.body : null;
}

/** The newest page, from scratch (opening, filtering, or after a resync). */
async function first(): Promise<void> {
  const list = byId('activity-list');
  const page = await read(filter());
  if (!page) {
    list.replaceChildren(h('li', { class: 'form-error' }, 'The activity could not be read; close and open the view to try again.'));
    return;
  }
  head = page.head;
  next = page.next;
  list.replaceChildren(...page.items.map(row));
  if (!page.items.length) list.append(h('li', { class: 'empty' }, 'Nothing matches.'));
  byId('activity-older').hidden = next === null;
}

/** A board event while open: what came after the head, newest on top. */
async function newer(): Promise<void> {
  if (reading) {
    again = true;
    return;
  }
  reading = true;
  try {
    for (let more = true; more && head !== null && dialog().open; ) {
      const query = filter();
      query.set('after', head);
      const page = await read(query);
      if (!page) return;
      if (page.resync) return void (await first());
      head = page.head;
      more = page.more === true;
      if (page.items.length) {
        byId('activity-list').querySelector('.empty')?.remove();
        byId('activity-list').prepend(...page.items.map(row));
      }
      if (more) await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    reading = false;
    if (again) {
      again = false;
      void newer();
    }
  }
}

export function activityChanged(): void {
  if (dialog().open) void newer();
}

export function watchActivity(): void {
  byId('activity-open').addEventListener('click', () => {
    dialog().showModal();
    void first();
  });
  byId('activity-close').addEventListener('click', () => dialog().close());
  byId('activity-filter').addEventListener('submit', (event) => {
    event.preventDefault();
    void first();
  });
  byId('activity-older').addEventListener('click', async () => {
    if (next === null) return;
    const query = filter();
    query.set('before', next);
    const page = await read(query);
    if (!page) return;
    next = page.next;
    byId('activity-list').append(...page.items.map(row));
    byId('activity-older').hidden = next === null;
  });
  byId('activity-list').addEventListener('click', (event) => {
    const id = (event.target as HTMLElement).closest<HTMLElement>('[data-task]')?.dataset['task'];
    if (!id) return;
    dialog().close();
    hooks.openDetail(Number(id), null);
  });
}
