// The audit log for owners (GET /view/audit): one row per tool call, filtered and paged newest first, with links that
// download what the filter shows as CSV or JSON lines. The header shows its button to owners only; others get 403.
import { boardPath } from './base.js';
import { byId, h } from './dom.js';
import { filterQuery } from './history-filter.js';
import { request } from './net.js';
import { sessionEndedMessage } from './session-end.js';
import { hooks } from './state.js';

interface AuditEntry {
  readonly id: number;
  readonly at: string;
  readonly agent: string | null;
  readonly tool: string;
  readonly task_id: number | null;
  readonly outcome: string;
  readonly face: string | null;
}
interface AuditPage {
  readonly entries: AuditEntry[];
  readonly next: string | null;
}

const COLUMNS = ['Time', 'Agent', 'Tool', 'Task', 'Outcome', 'Face'];
let next: string | null = null;

const dialog = () => byId<HTMLDialogElement>('audit-dialog');

function rows(entries: readonly AuditEntry[]): HTMLElement[] {
  return entries.map((e) =>
    h('tr', { 'data-outcome': e.outcome }, [new Date(e.at).toLocaleString(), e.agent ?? '', e.tool, e.task_id === null ? '' : `#${e.task_id}`, e.outcome, e.face ?? ''].map((t) => h('td', null, t))),
  );
}

async function show(before: string | null): Promise<void> {
  const query = filterQuery(byId<HTMLFormElement>('audit-filter'));
  byId<HTMLAnchorElement>('audit-csv').href = boardPath(`/view/audit.csv?${query}`);
  byId<HTMLAnchorElement>('audit-jsonl').href = boardPath(`/view/audit.jsonl?${query}`);
  if (before !== null) query.set('before', before);
  const answer = await request<AuditPage & { error?: { message: string } }>('GET', boardPath(`/view/audit?${query}`)).catch(() => null);
  const body = byId('audit-body');
  if (answer?.status === 401) return hooks.signedOut(sessionEndedMessage(answer.body));
  if (answer?.status !== 200 || !answer.body) {
    body.replaceChildren(h('p', { class: 'form-error' }, answer?.body?.error?.message ?? 'The audit log could not be read; close and open the view to try again.'));
    return;
  }
  next = answer.body.next;
  byId('audit-older').hidden = next === null;
  const tbody = before === null ? null : body.querySelector('tbody');
  if (tbody) return void tbody.append(...rows(answer.body.entries));
  body.replaceChildren(
    h(
      'table',
      { class: 'cost-table', 'aria-label': 'Audit log' },
      h('thead', null, h('tr', null, COLUMNS.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', null, rows(answer.body.entries)),
    ),
  );
}

export function watchAudit(): void {
  byId('audit-open').addEventListener('click', () => {
    dialog().showModal();
    void show(null);
  });
  byId('audit-close').addEventListener('click', () => dialog().close());
  byId('audit-filter').addEventListener('submit', (event) => {
    event.preventDefault();
    void show(null);
  });
  byId('audit-older').addEventListener('click', () => {
    if (next !== null) void show(next);
  });
}
