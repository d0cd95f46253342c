// The principal's projects (GET /overview): the list that / shows to someone holding several, and the header's
// switcher on a project's board. Everything shown is a count, a slug, a title or a role, as text nodes.
import { PROJECT, projectPage } from './base.js';
import { byId, h, hueOf, initials, plural, statusLabel } from './dom.js';
import { request, type Answer } from './net.js';
import type { Overview, ProjectSummary } from './types.js';

const SHOWN_STATES = ['open', 'claimed', 'submitted', 'done', 'cancelled'] as const;

export function readOverview(): Promise<Answer<Overview>> {
  return request<Overview>('GET', '/overview');
}

function waitingLine(project: ProjectSummary): string {
  const waiting = project.waiting;
  if (!waiting) return '';
  const parts = [
    waiting.to_review > 0 && plural(waiting.to_review, 'submission to review', 'submissions to review'),
    waiting.help_requests > 0 && plural(waiting.help_requests, 'help request', 'help requests'),
    waiting.messages > 0 && plural(waiting.messages, 'message to you', 'messages to you'),
  ].filter((part): part is string => part !== false);
  return parts.length ? `Waiting on you: ${parts.join(' · ')}` : 'Nothing waits on you';
}

function projectCard(project: ProjectSummary): HTMLLIElement {
  const tasks = project.tasks;
  const waiting = project.waiting;
  return h(
    'li',
    { class: 'project-card', 'data-slug': project.slug },
    h('a', { class: 'project-link', href: projectPage(project.slug) }, h('span', { class: 'project-title' }, project.title), h('span', { class: 'project-slug' }, project.slug)),
    h('span', { class: 'pill project-role', 'data-role': project.role }, project.role),
    h('span', { class: 'pill subtle' }, project.mode === 'peer' ? 'peer mode' : 'role mode'),
    tasks &&
      h(
        'ul',
        { class: 'project-tasks', 'aria-label': 'Tasks by state' },
        SHOWN_STATES.map((status) => h('li', { 'data-status': status, 'data-count': tasks[status] ?? 0 }, `${statusLabel(status)} ${tasks[status] ?? 0}`)),
      ),
    waiting &&
      h('p', { class: 'project-waiting', 'data-to-review': waiting.to_review, 'data-help-requests': waiting.help_requests, 'data-messages': waiting.messages }, waitingLine(project)),
    project.active_agents !== null && h('p', { class: 'project-agents', 'data-active': project.active_agents }, `${plural(project.active_agents, 'agent', 'agents')} active now, of ${project.agents}`),
  );
}

/** The list of projects in place of a board; the board's own parts stay hidden. */
export function showOverview(overview: Overview): void {
  byId('signin').hidden = true;
  byId('app').hidden = true;
  byId('overview').hidden = false;
  document.title = 'Your projects · Roundtable';
  const avatarEl = byId('overview-avatar');
  avatarEl.className = `avatar ${hueOf(overview.me.name)}`;
  avatarEl.textContent = initials(overview.me.name);
  byId('overview-name').textContent = overview.me.name;
  byId('project-list').replaceChildren(...overview.projects.map(projectCard));
}

export function hideOverview(): void {
  byId('overview').hidden = true;
  byId('project-list').replaceChildren();
}

/** The header's switcher: shown only to someone holding more than one project; choosing one opens its page. */
export function renderSwitcher(overview: Overview | null): void {
  const select = byId<HTMLSelectElement>('project-switch');
  const projects = overview?.projects ?? [];
  select.hidden = projects.length < 2;
  if (select.hidden) return;
  const here = PROJECT ?? '';
  const known = projects.some((p) => p.slug === here);
  select.replaceChildren(
    h('option', { value: '', selected: !known }, 'All projects'),
    ...projects.map((p) => h('option', { value: p.slug, selected: p.slug === here }, `${p.title} (${p.role})`)),
  );
}

export function watchSwitcher(): void {
  const select = byId<HTMLSelectElement>('project-switch');
  select.addEventListener('change', () => {
    location.assign(select.value === '' ? '/' : projectPage(select.value));
  });
}
