// The apps connected by OAuth sign-in (GET /view/apps), for owners and observers; an owner revokes one after a
// confirm step. App names are the apps' own text: shown as text nodes only (dom.ts h).
import { boardPath } from './base.js';
import { byId, h, timeEl, uniqueId } from './dom.js';
import { perform } from './feedback.js';
import { request } from './net.js';
import type { BoardState, ConnectedApp } from './types.js';

/** The grant whose confirm step is open: kept across the list's re-reads. */
let confirming: string | null = null;
/** The list as last read, and as last drawn: a re-read that finds the same list leaves the section (and its focus) alone. */
let latest: { apps: readonly ConnectedApp[]; acts: boolean } = { apps: [], acts: false };
let drawn = '';
const drawKey = (): string => JSON.stringify([latest.apps, latest.acts, confirming]);
/** Each read's number: an answer that arrives after a newer read began is dropped. */
let reads = 0;

const nameOf = (app: ConnectedApp): string => app.client_name ?? app.redirect_host;

/** Reads the list again after each read of the state; a session that may not read it has the section hidden. */
export async function refreshApps(me: BoardState['me']): Promise<void> {
  const read = ++reads;
  if (me.role !== 'owner' && me.role !== 'observer') return clearApps();
  try {
    const answer = await request<{ apps: ConnectedApp[] }>('GET', boardPath('/view/apps'));
    if (read !== reads) return;
    if (answer.status === 200 && answer.body) renderApps(answer.body.apps, me.acts);
    else if (answer.status === 403) clearApps();
    // any other answer keeps the list as it was: the state's own read says whether the board is reachable
  } catch {
    // as above
  }
}

export function clearApps(): void {
  reads++;
  drawn = '';
  confirming = null;
  latest = { apps: [], acts: false };
  byId('apps').hidden = true;
  byId('apps-list').replaceChildren();
}

function renderApps(apps: readonly ConnectedApp[], acts: boolean): void {
  if (!apps.some((app) => app.grant_id === confirming)) confirming = null;
  latest = { apps, acts };
  const key = drawKey();
  if (key === drawn) return;
  drawn = key;
  byId('apps').hidden = apps.length === 0;
  byId('apps-count').textContent = String(apps.length);
  byId('apps-list').replaceChildren(...apps.map((app) => appItem(app, acts)));
}

function appItem(app: ConnectedApp, acts: boolean): HTMLLIElement {
  const name = nameOf(app);
  return h(
    'li',
    { class: 'app-grant', 'data-grant-id': app.grant_id },
    h(
      'div',
      { class: 'member-line' },
      h('span', { class: 'app-name', title: app.client_id }, name),
      h('span', { class: 'chip' }, `as ${app.agent}`),
      h('span', { class: 'member-role' }, app.agent_role ?? 'agent removed'),
    ),
    h(
      'span',
      { class: 'app-meta' },
      `${app.redirect_host} · granted by ${app.granted_by} `,
      timeEl(app.created_at),
      ' · ',
      app.last_used_at ? ['used ', timeEl(app.last_used_at)] : 'never used',
    ),
    acts ? (confirming === app.grant_id ? confirmForm(app, name) : revokeButton(app, name)) : null,
  );
}

function revokeButton(app: ConnectedApp, name: string): HTMLElement {
  const button = h('button', { class: 'btn danger small', type: 'button', 'aria-label': `Revoke ${name}` }, 'Revoke');
  button.addEventListener('click', () => {
    confirming = app.grant_id;
    drawn = drawKey();
    const form = confirmForm(app, name);
    button.replaceWith(form);
    form.querySelector<HTMLButtonElement>('button[type="submit"]')?.focus();
  });
  return button;
}

/** The confirm step: the revoke is final (the app must sign in again), so it is asked once more. */
function confirmForm(app: ConnectedApp, name: string): HTMLFormElement {
  const question = h('p', { id: uniqueId('revoke'), class: 'hint' }, `Revoke ${name}? It can no longer act as ${app.agent} until someone grants it again; the agent stays.`);
  const error = h('p', { class: 'form-error', role: 'alert', hidden: true });
  const keep = h('button', { class: 'btn ghost small', type: 'button' }, 'Keep');
  const form = h(
    'form',
    { class: 'action-form revoke-form', 'aria-label': `Revoke ${name}`, 'aria-describedby': question.id },
    question,
    h('div', { class: 'form-buttons' }, h('button', { class: 'btn danger small', type: 'submit' }, 'Yes, revoke'), keep),
    error,
  );
  keep.addEventListener('click', () => {
    confirming = null;
    drawn = drawKey();
    const button = revokeButton(app, name);
    form.replaceWith(button);
    button.focus();
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void perform({ form, tool: 'revoke_app', args: { grant_id: app.grant_id }, done: () => `${name} was revoked: it can no longer act as ${app.agent}.`, errorEl: error });
  });
  return form;
}
