// The narrow screen (issue 36): the columns become tabs (Submitted one tap away) and the filters fold behind one
// button. Both controls are only shown by the stylesheet's narrow rules; on a wide screen they do nothing visible.
import { isFiltering } from './filter.js';
import { byId } from './dom.js';
import type { TaskFilter } from './filter.js';

const tabs = (): HTMLButtonElement[] => [...byId('column-tabs').querySelectorAll<HTMLButtonElement>('[role="tab"]')];

function select(status: string): void {
  byId('columns').dataset['tab'] = status;
  for (const tab of tabs()) {
    const on = tab.dataset['status'] === status;
    tab.setAttribute('aria-selected', String(on));
    tab.tabIndex = on ? 0 : -1;
  }
}

export function watchPhoneControls(): void {
  for (const tab of tabs()) tab.addEventListener('click', () => select(tab.dataset['status'] ?? 'open'));
  // Arrow keys move between tabs, as a tab list's keyboard pattern expects.
  byId('column-tabs').addEventListener('keydown', (event) => {
    const list = tabs();
    const at = list.findIndex((t) => t.getAttribute('aria-selected') === 'true');
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) return;
    const next = list[(at + step + list.length) % list.length]!;
    select(next.dataset['status'] ?? 'open');
    next.focus();
  });
  select('open');
  const toggle = byId<HTMLButtonElement>('filter-toggle');
  toggle.addEventListener('click', () => {
    const open = byId('filter').classList.toggle('open');
    toggle.setAttribute('aria-expanded', String(open));
  });
}

/** The tabs show each column's count; the fold's button says when a filter is on. */
export function updatePhoneControls(filter: TaskFilter): void {
  for (const tab of tabs()) {
    const count = document.querySelector(`.column[data-status="${tab.dataset['status']}"] .column-count`)?.textContent ?? '';
    tab.querySelector('.tab-count')!.textContent = count;
  }
  byId('filter-toggle').textContent = isFiltering(filter) ? 'Filters (on)' : 'Filters';
}
