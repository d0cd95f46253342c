// The filter box: which tasks the columns show, by text, status (ready and blocked included), assignee and skill.
import { byId, h } from './dom.js';
import type { BoardState, TaskSummary } from './types.js';

export interface TaskFilter {
  readonly text: string;
  /** '' for any; a state; or 'ready' (open, nothing blocks it) or 'blocked' (open, waiting on others). */
  readonly status: string;
  /** '' for anyone; '-' for nobody; else a member's name. */
  readonly assignee: string;
  /** '' for any skill; else one required skill. */
  readonly skill: string;
}

export const NO_FILTER: TaskFilter = { text: '', status: '', assignee: '', skill: '' };

export function isFiltering(filter: TaskFilter): boolean {
  return filter.text.trim() !== '' || filter.status !== '' || filter.assignee !== '' || filter.skill !== '';
}

/** Whether a task passes: every part given must match. Text matches the title, the id (#12 or 12) or the assignee. */
export function matches(task: TaskSummary, filter: TaskFilter): boolean {
  const text = filter.text.trim().toLowerCase();
  if (text !== '') {
    const id = /^#?(\d+)$/.exec(text)?.[1];
    const hit = (id !== undefined && task.id === Number(id)) || task.title.toLowerCase().includes(text) || (task.assignee ?? '').toLowerCase().includes(text);
    if (!hit) return false;
  }
  if (filter.status === 'ready' && !(task.status === 'open' && task.blocked_by.length === 0)) return false;
  if (filter.status === 'blocked' && !(task.status === 'open' && task.blocked_by.length > 0)) return false;
  if (filter.status !== '' && filter.status !== 'ready' && filter.status !== 'blocked' && task.status !== filter.status) return false;
  if (filter.assignee === '-' && task.assignee !== null) return false;
  if (filter.assignee !== '' && filter.assignee !== '-' && task.assignee !== filter.assignee) return false;
  if (filter.skill !== '' && !task.required_skills.includes(filter.skill)) return false;
  return true;
}

const controls = () => ({
  form: byId<HTMLFormElement>('filter'),
  text: byId<HTMLInputElement>('filter-text'),
  status: byId<HTMLSelectElement>('filter-status'),
  assignee: byId<HTMLSelectElement>('filter-assignee'),
  skill: byId<HTMLSelectElement>('filter-skill'),
});

export function currentFilter(): TaskFilter {
  const c = controls();
  return { text: c.text.value, status: c.status.value, assignee: c.assignee.value, skill: c.skill.value };
}

/** Keeps a select's options in step with the board, keeping what was chosen (even if it is gone for now). */
function fillSelect(select: HTMLSelectElement, first: Array<[string, string]>, values: readonly string[]): void {
  const chosen = select.value;
  const all = [...values];
  if (chosen !== '' && !first.some(([v]) => v === chosen) && !all.includes(chosen)) all.push(chosen);
  const wanted = [...first, ...all.map((v): [string, string] => [v, v])];
  const same = select.options.length === wanted.length && wanted.every(([v, label], i) => select.options[i]?.value === v && select.options[i]?.textContent === label);
  if (!same) select.replaceChildren(...wanted.map(([value, label]) => h('option', { value }, label)));
  select.value = chosen;
}

/** The assignee and skill choices come from the board: its members, and every skill a shown task requires. */
export function updateFilterChoices(data: BoardState): void {
  const c = controls();
  fillSelect(c.assignee, [['', 'Anyone'], ['-', 'Nobody']], data.members.map((m) => m.name).sort());
  fillSelect(c.skill, [['', 'Any skill']], [...new Set(data.tasks.flatMap((t) => t.required_skills))].sort());
}

/** Calls `changed` as the filter changes (typing, choosing, clearing). */
export function watchFilter(changed: () => void): void {
  const c = controls();
  c.form.addEventListener('submit', (event) => event.preventDefault());
  c.form.addEventListener('input', changed);
  c.form.addEventListener('change', changed);
  // A reset clears the fields after the event: look once they are cleared.
  c.form.addEventListener('reset', () => setTimeout(changed, 0));
}
