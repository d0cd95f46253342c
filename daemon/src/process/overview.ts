// GET /overview: the signed-in principal's projects, each with its role there and its tasks by state, for the page's
// list of projects and its switcher. Only counts, slugs and titles the catalog holds: no board text.
import { Hono, type Context } from 'hono';
import { projectsOf, type Catalog, type Principal } from '../agents/catalog.js';
import { withCallDeadline } from '../store/call-deadline.js';
import type { Projects } from './projects.js';
import { titleOf } from './project.js';

export interface OverviewOptions {
  readonly projects: Projects;
  readonly catalog: () => Catalog;
  readonly principalOf: (c: Context) => Promise<Principal | undefined>;
  readonly boardName: string;
  /** How long the counts may take in all. */
  readonly deadlineMs?: number;
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
          const tasks = runtime ? await runtime.opened.store.countTasksByStatus() : undefined;
          return { slug: project.slug, title: titleOf(catalog, project.slug, options.boardName), mode: project.mode, role, agents: project.agentCount, tasks: tasks ?? null };
        }),
      ),
    );
    return c.json({ me: { name: principal.name, kind: principal.kind }, projects });
  });
  return routes;
}
