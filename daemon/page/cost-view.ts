// What the work cost (GET /view/usage): tokens in, out and cached, cost and models, per project, per agent and per
// task, as the agents' apps reported them; and the agents that reported nothing, named. Model names are agent text.
import { boardPath } from './base.js';
import { byId, h } from './dom.js';
import { request } from './net.js';
import { sessionEndedMessage } from './session-end.js';
import { hooks } from './state.js';
import type { UsageSummary, UsageTotals } from './types.js';

const number = (n: number): string => n.toLocaleString('en');
export const dollars = (n: number): string => `$${n.toLocaleString('en', { minimumFractionDigits: 2, maximumFractionDigits: n < 1 ? 4 : 2 })}`;

/** One line for a task's facts: "12,000 in · 3,400 out · 800 cached tokens · $0.21 · model". */
export function usageText(u: UsageTotals): string {
  const parts = [`${number(u.input_tokens)} in · ${number(u.output_tokens)} out · ${number(u.cached_tokens)} cached tokens`, dollars(u.cost_usd)];
  if (u.models.length) parts.push(u.models.join(', '));
  return `${parts.join(' · ')} (${u.reports} report${u.reports === 1 ? '' : 's'})`;
}

function table(label: string, first: string, rows: ReadonlyArray<{ name: string; usage: UsageTotals; taskId?: number }>): HTMLElement {
  const head = ['Reports', 'Tokens in', 'Tokens out', 'Cached', 'Cost', 'Models'];
  return h(
    'table',
    { class: 'cost-table', 'aria-label': label },
    h('thead', null, h('tr', null, h('th', { scope: 'col' }, first), head.map((t) => h('th', { scope: 'col' }, t)))),
    h(
      'tbody',
      null,
      rows.map(({ name, usage, taskId }) =>
        h(
          'tr',
          null,
          h('th', { scope: 'row' }, taskId === undefined ? name : taskButton(taskId, name)),
          h('td', { class: 'num' }, number(usage.reports)),
          h('td', { class: 'num' }, number(usage.input_tokens)),
          h('td', { class: 'num' }, number(usage.output_tokens)),
          h('td', { class: 'num' }, number(usage.cached_tokens)),
          h('td', { class: 'num' }, dollars(usage.cost_usd)),
          h('td', { class: 'models' }, usage.models.join(', ')),
        ),
      ),
    ),
  );
}

/** A task's row opens its panel, where its work and its usage are. */
function taskButton(taskId: number, name: string): HTMLElement {
  const button = h('button', { type: 'button', class: 'link-button' }, name);
  button.addEventListener('click', () => {
    byId<HTMLDialogElement>('cost-dialog').close();
    hooks.openDetail(taskId, null);
  });
  return button;
}

function render(summary: UsageSummary): HTMLElement[] {
  return [
    h('h3', null, 'Project'),
    table('Cost of the project', 'Project', [{ name: 'All agents', usage: summary.project }]),
    h('h3', null, 'Per agent'),
    summary.agents.length ? table('Cost per agent', 'Agent', summary.agents.map((a) => ({ name: a.agent, usage: a }))) : h('p', { class: 'empty' }, 'No agent has reported usage yet.'),
    h(
      'p',
      { class: summary.silent.length ? 'notice silent' : 'hint silent' },
      summary.silent.length ? `Reported nothing: ${summary.silent.join(', ')}. Their cost is not in these totals.` : 'Every agent of the project has reported usage.',
    ),
    h('h3', null, 'Per task'),
    summary.tasks.length ? table('Cost per task', 'Task', summary.tasks.map((t) => ({ name: `#${t.task_id} ${t.title}`, usage: t, taskId: t.task_id }))) : h('p', { class: 'empty' }, 'No task has usage reported on it yet.'),
  ];
}

async function load(): Promise<void> {
  const body = byId('cost-body');
  let answer;
  try {
    answer = await request<UsageSummary>('GET', boardPath('/view/usage'));
  } catch {
    body.replaceChildren(h('p', { class: 'form-error' }, 'The board cannot be reached; close and open the view to try again.'));
    return;
  }
  if (answer.status === 401) return hooks.signedOut(sessionEndedMessage(answer.body));
  if (answer.status !== 200 || !answer.body) {
    body.replaceChildren(h('p', { class: 'form-error' }, `The board answered ${answer.status}.`));
    return;
  }
  body.replaceChildren(...render(answer.body));
}

export function watchCost(): void {
  const dialog = byId<HTMLDialogElement>('cost-dialog');
  byId('cost-open').addEventListener('click', () => {
    byId('cost-body').replaceChildren(h('p', { class: 'empty' }, 'Loading…'));
    dialog.showModal();
    void load();
  });
  byId('cost-close').addEventListener('click', () => dialog.close());
}
