// GET /overview: the signed-in principal's projects, each with its role there, its tasks by state, what waits on them
// there and the agents active now, for the page's list of projects and its switcher. Only counts, slugs, titles and
// names the catalog holds: no board text.
import { Hono, type Context } from 'hono';
import { PERSON_ROLES } from 'roundtable-shared';
import { projectsOf, type Catalog, type Principal } from '../agents/catalog.js';
import type { Agent } from '../agents/directory.js';
import { reviewScope, steersAll } from '../board/rules.js';
import { withCallDeadline } from '../store/call-deadline.js';
import type { Projects } from './projects.js';
import type { ProjectRuntime } from './project.js';
import { titleOf } from './project.js';

export interface OverviewOptions {
  readonly projects: Projects;
  readonly catalog: () => Catalog;
  readonly principalOf: (c: Context) => Promise<Principal | undefined>;
  readonly boardName: string;
  /** How long the counts may take in all. */
  readonly deadlineMs?: number;
}

/** What waits on one member in a project: submissions it reviews, help requests it answers, messages to it by name. */
export interface Waiting {
  readonly to_review: number;
  readonly help_requests: number;
  readonly messages: number;
}

/**
 * Submissions count for whoever reviews them (reviewScope); help requests for whoever steers the board (an owner, a
 * leader), who answers them; messages addressed to the member by name for anyone. An observer has only messages.
 */
async function waitingOn(runtime: ProjectRuntime, member: Agent, mode: 'role' | 'peer'): Promise<Waiting> {
  const caller = { agent: member, mode };
  const reviews = reviewScope(caller);
  const [pending, waiting] = await Promise.all([
    reviews === 'none' ? undefined : runtime.opened.store.pendingFor({ agent: member.name, skills: [], claims: false, reviews }),
    runtime.opened.store.waitingOn(member.name),
  ]);
  return { to_review: pending?.toReview ?? 0, help_requests: steersAll(caller) ? waiting.helpRequests : 0, messages: waiting.messagesTo };
}

/** Agents (not people) whose presence is active now: a call within the last minutes, or a wait open. */
async function activeAgents(runtime: ProjectRuntime): Promise<number> {
  // Presence only: what each member holds (and its reservations) is not read for a count.
  const states = await runtime.presence.states();
  return states.filter((m) => m.state === 'active' && !(PERSON_ROLES as readonly string[]).includes(m.role)).length;
}

export function overviewRoutes(options: OverviewOptions): Hono {
  const routes = new Hono();
  routes.get('/', async (c) => {
    c.header('Cache-Control', 'no-store');
    const principal = await options.principalOf(c);
    if (!principal) return c.json({ error: { code: 'unauthorized', message: 'sign in on the board page first: your session is missing, expired or ended' } }, 401);
    const catalog = options.catalog();
    const held = projectsOf(catalog, principal);
    const projects = await withCallDeadline(Date.now() + (options.deadlineMs ?? 10_000), () =>
      Promise.all(
        held.map(async ({ project, role }) => {
          const runtime = options.projects.get(project.slug);
          const member = project.directory.find(principal.name);
          const [tasks, waiting, active] = runtime && member
            ? await Promise.all([runtime.opened.store.countTasksByStatus(), waitingOn(runtime, member, project.mode), activeAgents(runtime)])
            : [undefined, undefined, undefined];
          return {
            slug: project.slug,
            title: titleOf(catalog, project.slug, options.boardName),
            mode: project.mode,
            role,
            agents: project.agentCount,
            tasks: tasks ?? null,
            waiting: waiting ?? null,
            active_agents: active ?? null,
          };
        }),
      ),
    );
    return c.json({ me: { name: principal.name, kind: principal.kind }, projects });
  });
  return routes;
}
