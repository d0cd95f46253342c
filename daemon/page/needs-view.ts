// "Needs me" at the top of a project's page (issue 36): what waits on the signed-in person, from GET /view/needs, each
// item opening its task or its message; the count in the page's title; new items announced if notifications are on.
import { boardPath } from './base.js';
import { byId, h, timeEl } from './dom.js';
import { perform } from './feedback.js';
import { request } from './net.js';
import { notifyNew } from './notify.js';
import { hooks, view } from './state.js';
import type { NeedItem, Needs } from './types.js';

/** Fixed words per kind: the list's labels and the notifications' text. */
const KIND_WORDS: Record<NeedItem['kind'], string> = {
  review: 'Review',
  help: 'Help requested',
  message: 'Message',
  blocked: 'Blocked by a cancelled task',
  lapsed: 'Claim lapsed',
};

let known: Set<string> | null = null;
let count = 0;
/** The list as last drawn: redrawn only when it changes, so a control is not replaced under a click. */
let drawn = '';

const keyOf = (item: NeedItem): string => `${item.kind}:${item.task_id ?? item.message_id ?? ''}`;
const refOf = (item: NeedItem): string => (item.message_id !== undefined ? `message #${item.message_id}` : `#${item.task_id ?? ''}`);

/** "(3) Roundtable — board": the count first, so it shows in a narrow tab. */
export function titleWithCount(board: string): string {
  return `${count > 0 ? `(${count}) ` : ''}Roundtable — ${board}`;
}

export function clearNeeds(): void {
  known = null;
  count = 0;
  drawn = '';
  byId('needs-list').replaceChildren();
}

export async function refreshNeeds(): Promise<void> {
  let answer;
  try {
    answer = await request<Needs>('GET', boardPath('/view/needs'));
  } catch {
    return; // the state's own read reports the connection
  }
  if (answer.status !== 200 || !answer.body || !view.data) return;
  renderNeeds(answer.body);
}

function renderNeeds(needs: Needs): void {
  const data = view.data!;
  count = needs.count;
  document.title = titleWithCount(data.board);
  byId('needs-count').textContent = String(needs.count);
  byId('needs-empty').hidden = needs.items.length > 0;
  const keys = new Set(needs.items.map(keyOf));
  if (known !== null) notifyNew(needs.items.filter((item) => !known!.has(keyOf(item))).map((item) => `${KIND_WORDS[item.kind].toLowerCase()} ${refOf(item)}`));
  known = keys;
  const signature = JSON.stringify([needs.items, data.me.acts]);
  if (signature === drawn) return;
  drawn = signature;
  byId('needs-list').replaceChildren(...needs.items.map((item) => needRow(item, data.me.acts)));
}

function needRow(item: NeedItem, acts: boolean): HTMLLIElement {
  const row = h('li', { class: 'need', 'data-kind': item.kind, 'data-need': keyOf(item) }, h('span', { class: 'need-kind' }, KIND_WORDS[item.kind]));
  if (item.task_id !== undefined) {
    const title = item.title ?? view.data?.tasks.find((t) => t.id === item.task_id)?.title ?? '';
    const open = h('button', { class: 'need-link', type: 'button' }, h('span', { class: 'task-id' }, `#${item.task_id}`), ' ', title);
    open.addEventListener('click', () => hooks.openDetail(item.task_id!, open));
    row.append(open);
  } else if (item.message_id !== undefined) {
    const text = item.text ?? `message #${item.message_id}`;
    const show = h('button', { class: 'need-link', type: 'button' }, text);
    show.addEventListener('click', () => showMessage(item.message_id!));
    row.append(show);
    if (acts) row.append(markReadForm());
  }
  row.append(h('span', { class: 'need-meta' }, item.who ? `${item.who} · ` : '', item.at ? timeEl(item.at) : null));
  return row;
}

/** Scrolls the room to the message and marks it for a moment. */
function showMessage(id: number): void {
  const el = document.querySelector<HTMLElement>(`#room [data-message-id="${id}"]`);
  if (!el) return;
  el.scrollIntoView({ block: 'nearest' });
  el.classList.add('flash');
  setTimeout(() => el.classList.remove('flash'), 1500);
}

/** Marks the person's room messages read (read_unread, page after page): a message leaves the list once read. */
function markReadForm(): HTMLFormElement {
  const error = h('span', { class: 'form-error', role: 'alert', hidden: true });
  const form = h('form', { class: 'need-action' }, h('button', { class: 'btn ghost small', type: 'submit' }, 'Mark read'), error);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    for (let page = 0; page < 20; page++) {
      const body = await perform<{ more: boolean }>({ form, tool: 'read_unread', args: {}, done: () => 'Marked the room read.', errorEl: error });
      if (!body?.more) break;
    }
  });
  return form;
}
