// The columns of cards: one per state, each card with what the plan says of it (priority, blocked by or ready, the
// claim's reserved paths and lease time left), filtered by the filter box. Unchanged cards are kept, changed ones marked.
import { avatar, byId, h, ids, leaseEl, plural, timeEl } from './dom.js';
import { isFiltering, matches, type TaskFilter } from './filter.js';
import { hooks, view } from './state.js';
import type { BoardState, Holding, TaskStatus, TaskSummary } from './types.js';

export const STATUSES: readonly TaskStatus[] = ['open', 'claimed', 'submitted', 'done', 'cancelled'];

type Reservations = Holding['reservations'];

/** task id -> the card's list item and what it showed, so unchanged cards are kept. */
const cards = new Map<number, { item: HTMLLIElement; card: HTMLButtonElement; sig: string }>();

export function clearCards(): void {
  for (const list of byId('columns').querySelectorAll('.cards')) list.replaceChildren();
  cards.clear();
}

export function markSelected(taskId: number | null): void {
  for (const [id, entry] of cards) entry.card.classList.toggle('selected', id === taskId);
}

/** The skills no claimer has of an open task no one can claim (the daemon reads it from the agents in force), or undefined. */
export function noClaimerFor(data: BoardState | null, taskId: number): readonly string[] | undefined {
  return data?.unclaimable.find((entry) => entry.id === taskId)?.missing_skills;
}

function unclaimableChip(missing: readonly string[], mode: BoardState['mode'] | undefined): HTMLElement {
  const member = mode === 'peer' ? 'peer' : 'worker';
  const why = missing.length ? `no ${member} has ${missing.join(', ')}` : `no single ${member} has all of its skills`;
  return h('span', { class: 'chip unclaimable', title: `${why}: give one the skill, or edit the task` }, 'no one can claim');
}

/**
 * Priority (when not normal) and, for an open task, whether it is ready or what it waits on; an open task no member can
 * claim (`noClaimer`: the skills none has) says so instead of ready.
 */
export function planChips(task: Pick<TaskSummary, 'priority' | 'status' | 'blocked_by' | 'blocked_by_cancelled'>, noClaimer?: readonly string[]): HTMLElement[] {
  const chips: HTMLElement[] = [];
  if (task.priority !== 'normal') chips.push(h('span', { class: `chip priority priority-${task.priority}`, title: 'priority' }, task.priority));
  if (task.blocked_by.length) chips.push(h('span', { class: 'chip blocked', title: 'cannot be claimed until these are done' }, `blocked by ${ids(task.blocked_by)}`));
  if (noClaimer && task.status === 'open') chips.push(unclaimableChip(noClaimer, view.data?.mode));
  else if (!task.blocked_by.length && task.status === 'open') chips.push(h('span', { class: 'chip ready', title: 'nothing blocks it: it can be claimed now' }, 'ready'));
  if (task.blocked_by_cancelled.length) {
    chips.push(h('span', { class: 'chip stranded', title: 'a blocker was cancelled: edit its dependencies, or cancel it' }, `cancelled blocker ${ids(task.blocked_by_cancelled)}`));
  }
  return chips;
}

/** The paths a claim reserves, as literal text (patterns are agents' text). */
export function pathChips(reservations: Reservations): HTMLElement | null {
  if (!reservations.length) return null;
  return h(
    'span',
    { class: 'card-paths', title: 'paths reserved by this claim' },
    h('span', { class: 'sr-only' }, 'reserved paths: '),
    reservations.map((r) => h('span', { class: `chip path${r.exclusive ? ' exclusive' : ''}`, title: `${r.exclusive ? 'exclusive' : 'shared'}${r.scope ? ` in ${r.scope}` : ''}` }, r.pattern)),
  );
}

function buildCard(task: TaskSummary, reservations: Reservations, noClaimer: readonly string[] | undefined): HTMLButtonElement {
  const meta = h(
    'span',
    { class: 'card-meta' },
    task.assignee ? h('span', { class: 'who' }, avatar(task.assignee, true), task.assignee) : h('span', { class: 'who nobody' }, task.status === 'open' ? 'unclaimed' : 'nobody'),
    task.required_skills.map((skill) => h('span', { class: 'chip' }, skill)),
    planChips(task, noClaimer),
    task.status === 'claimed' && task.lease_expires_at ? leaseEl(task.lease_expires_at) : null,
  );
  const card = h(
    'button',
    { class: 'card', type: 'button', 'data-status': task.status, 'data-task-id': task.id, 'data-blocked': task.blocked_by.length ? 'true' : undefined, 'aria-label': `Task ${task.id}: ${task.title}` },
    h('span', { class: 'card-top' }, h('span', { class: 'task-id' }, `#${task.id}`), timeEl(task.updated_at, 'card-time')),
    h('span', { class: 'card-title' }, task.title),
    meta,
    pathChips(reservations),
  );
  card.addEventListener('click', () => hooks.openDetail(task.id, card));
  return card;
}

/** What a claimed task's holder reserves, from members (the only place the state carries reservations). */
function reservationsByTask(data: BoardState): Map<number, Reservations> {
  const byTask = new Map<number, Reservations>();
  for (const member of data.members) for (const held of member.holding) byTask.set(held.id, held.reservations);
  return byTask;
}

export function renderColumns(data: BoardState, filter: TaskFilter): void {
  const byStatus = new Map<TaskStatus, TaskSummary[]>(STATUSES.map((s) => [s, []]));
  const shown = data.tasks.filter((task) => matches(task, filter));
  for (const task of shown) byStatus.get(task.status)?.push(task);
  const reserved = reservationsByTask(data);
  const seen = new Set<number>();
  const filtering = isFiltering(filter);
  for (const status of STATUSES) {
    const column = byId('columns').querySelector<HTMLElement>(`.column[data-status="${status}"]`)!;
    const list = column.querySelector('.cards')!;
    // The task that moved last is on top.
    const sorted = (byStatus.get(status) ?? []).sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : b.id - a.id));
    const items = sorted.map((task) => {
      seen.add(task.id);
      const paths = reserved.get(task.id) ?? [];
      const noClaimer = noClaimerFor(data, task.id);
      const sig = JSON.stringify([task, paths, noClaimer]);
      let entry = cards.get(task.id);
      if (!entry || entry.sig !== sig) {
        const card = buildCard(task, paths, noClaimer);
        if (!view.firstRender) card.classList.add('changed');
        if (task.id === view.openTaskId) card.classList.add('selected');
        entry = { item: h('li', null, card), card, sig };
        cards.set(task.id, entry);
      }
      return entry.item;
    });
    // Most events change a card or two: the list is rebuilt only when its cards or their order changed.
    const same = list.children.length === items.length && items.every((item, i) => list.children[i] === item);
    if (!same) list.replaceChildren(...items);
    const empty = column.querySelector<HTMLElement>('.empty')!;
    empty.hidden = items.length > 0;
    empty.textContent = filtering ? 'Nothing here matches the filter' : (empty.dataset['empty'] ?? empty.textContent ?? '');
    const total = data.counts[status] ?? items.length;
    column.querySelector('.column-count')!.textContent = total > items.length ? `${items.length} of ${total}` : String(total);
  }
  for (const id of cards.keys()) if (!seen.has(id)) cards.delete(id);
  byId('filter-count').textContent = filtering ? `${plural(shown.length, 'task', 'tasks')} of ${data.tasks.length} shown` : '';
}
