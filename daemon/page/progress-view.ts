// The project's progress (issue 36), in a dialog: burn-up, tasks finished per day, cycle time from claim to done and
// work in progress per agent, from GET /view/progress. Each chart has its numbers as a table, for screen readers
// always and on the screen on request.
import { boardPath } from './base.js';
import { barChart, lineChart, rowChart } from './chart.js';
import { byId, h } from './dom.js';
import { request } from './net.js';
import type { Progress } from './types.js';

const hours = (v: number | null): string => (v === null ? '–' : String(v));

function table(caption: string, head: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number>>): HTMLTableElement {
  return h(
    'table',
    null,
    h('caption', null, caption),
    h('thead', null, h('tr', null, head.map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', null, rows.map((r) => h('tr', null, r.map((c, i) => (i === 0 ? h('th', { scope: 'row' }, c) : h('td', null, c)))))),
  );
}

function figure(id: string, title: string, chart: SVGSVGElement, legend: HTMLElement | null, numbers: HTMLTableElement): HTMLElement {
  return h('figure', { class: 'progress-figure', id }, h('figcaption', null, title), legend, chart, h('div', { class: 'numbers' }, numbers));
}

function legend(items: ReadonlyArray<[string, string]>): HTMLElement {
  return h('ul', { class: 'legend', 'aria-hidden': 'true' }, items.map(([cls, text]) => h('li', { class: cls }, text)));
}

function render(p: Progress): void {
  const days = p.days.map((d) => d.day);
  const last = p.days.at(-1);
  const cycleRows = [{ agent: 'All agents', ...p.cycle_time.overall }, ...p.cycle_time.per_agent];
  byId('progress-range').textContent = `${p.from} to ${p.to} (UTC)`;
  byId('progress-body').replaceChildren(
    figure(
      'progress-burnup',
      'Done against total',
      lineChart(`Burn-up: ${last?.done_total ?? 0} of ${last?.total ?? 0} tasks done`, days, [
        { cls: 'c-total', values: p.days.map((d) => d.total) },
        { cls: 'c-done', values: p.days.map((d) => d.done_total) },
      ]),
      legend([['c-total', 'Total'], ['c-done', 'Done']]),
      table('Done against total, per day', ['Day', 'Total', 'Done'], p.days.map((d) => [d.day, d.total, d.done_total])),
    ),
    figure(
      'progress-daily',
      'Tasks finished per day',
      barChart(`Tasks finished per day: ${p.days.reduce((n, d) => n + d.done, 0)} in ${p.days.length} days`, days, p.days.map((d) => d.done), 'c-done'),
      null,
      table('Tasks finished per day', ['Day', 'Finished'], p.days.map((d) => [d.day, d.done])),
    ),
    figure(
      'progress-cycle',
      'Cycle time, claim to done (hours)',
      rowChart('Cycle time per agent: median and 90th percentile, in hours', cycleRows.map((r) => ({ name: r.agent, values: [{ cls: 'c-median', value: r.median_hours ?? 0 }, { cls: 'c-p90', value: r.p90_hours ?? 0 }] }))),
      legend([['c-median', 'Median'], ['c-p90', '90th percentile']]),
      table('Cycle time from claim to done, in hours', ['Agent', 'Tasks', 'Median', '90th percentile'], cycleRows.map((r) => [r.agent, r.tasks, hours(r.median_hours), hours(r.p90_hours)])),
    ),
    figure(
      'progress-wip',
      'Work in progress',
      rowChart('Tasks claimed now, per agent', p.wip.map((w) => ({ name: w.agent, values: [{ cls: 'c-wip', value: w.claimed }] }))),
      null,
      table('Tasks claimed now, per agent', ['Agent', 'Claimed'], p.wip.map((w) => [w.agent, w.claimed])),
    ),
  );
}

async function loadProgress(): Promise<void> {
  const status = byId('progress-status');
  status.textContent = 'Loading…';
  try {
    const answer = await request<Progress>('GET', boardPath('/view/progress?days=30'));
    if (answer.status !== 200 || !answer.body) throw new Error(String(answer.status));
    render(answer.body);
    status.textContent = '';
  } catch {
    status.textContent = 'The progress could not be read; try again.';
  }
}

export function watchProgress(): void {
  const dialog = byId<HTMLDialogElement>('progress-dialog');
  byId('progress-open').addEventListener('click', () => {
    dialog.showModal();
    void loadProgress();
  });
  byId('progress-close').addEventListener('click', () => dialog.close());
  const toggle = byId<HTMLButtonElement>('progress-numbers');
  toggle.addEventListener('click', () => {
    const shown = dialog.classList.toggle('show-numbers');
    toggle.setAttribute('aria-pressed', String(shown));
    toggle.textContent = shown ? 'Hide the numbers' : 'Show the numbers';
  });
}
