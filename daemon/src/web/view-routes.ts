// The page's data: GET /view/state (the board at a glance), GET /view/tasks/:id (one task, its messages and history
// paged), GET /view/apps (the apps connected by OAuth sign-in), GET /view/usage (what the work cost), GET /view/needs
// and GET /view/progress (issue 36), and GET /view/search (the Find box), for a signed-in session.
import { Hono } from 'hono';
import { PROGRESS_DAYS_DEFAULT, PROGRESS_DAYS_MAX } from '../board/progress.js';
import { InvalidInput } from '../errors.js';
import type { ConnectedApps } from './connected-apps.js';
import { csrfTokenFor } from './csrf.js';
import type { SessionVariables } from './session-auth.js';
import type { UsageView } from './usage-view.js';
import type { BoardView } from './view-data.js';

export interface ViewRoutesOptions {
  readonly apps: ConnectedApps;
  readonly usage: UsageView;
  readonly startedAt?: string | undefined;
}

export function viewRoutes(view: BoardView, options: ViewRoutesOptions): Hono<{ Variables: SessionVariables }> {
  const routes = new Hono<{ Variables: SessionVariables }>();

  routes.use('*', async (c, next) => {
    await next();
    c.header('Cache-Control', 'no-store');
  });

  // With the session's CSRF token, which the page sends back with every action (csrf.ts).
  // With board_started_at where sessions end with the daemon (SQLite): a later 401 naming another start is a restart.
  routes.get('/state', async (c) =>
    c.json({
      ...(await view.state(c.get('agent'))),
      csrf_token: csrfTokenFor(c.get('sessionId')),
      ...(options.startedAt !== undefined && { board_started_at: options.startedAt }),
    }),
  );

  routes.get('/tasks/:id', async (c) => {
    const raw = c.req.param('id');
    const id = /^[1-9][0-9]{0,15}$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(id)) throw new InvalidInput('the task id must be a positive whole number');
    // ?messages_cursor= / ?history_cursor=: the next older page of that list (get_task's cursors, checked there).
    const messagesCursor = c.req.query('messages_cursor');
    const historyCursor = c.req.query('history_cursor');
    // ?without_patch=1: the page has this submission's patch already (a re-read on an event) and takes the summary.
    const withoutPatch = c.req.query('without_patch') === '1';
    return c.json(await view.task(c.get('agent'), id, { ...(messagesCursor && { messagesCursor }), ...(historyCursor && { historyCursor }), withoutPatch }));
  });

  // Issue 36: the person's "Needs me" list, and the project's progress over ?days= UTC days (1-365, default 30).
  routes.get('/needs', async (c) => c.json(await view.needs(c.get('agent'))));

  routes.get('/progress', async (c) => {
    const raw = c.req.query('days');
    const days = raw === undefined ? PROGRESS_DAYS_DEFAULT : /^[1-9][0-9]{0,2}$/.test(raw) ? Number(raw) : NaN;
    if (!(days >= 1 && days <= PROGRESS_DAYS_MAX)) throw new InvalidInput(`days: a whole number from 1 to ${PROGRESS_DAYS_MAX}`);
    return c.json(await view.progress(days));
  });

  // The Find box (issue 36): ?q= the words, ?in= a comma-separated list (tasks, messages, reviews, room), ?limit=,
  // ?cursor=; the search tool's answer under this person's role. Reads for a person watching: no audit row.
  routes.get('/search', async (c) => {
    const scopes = c.req.query('in');
    const limit = c.req.query('limit');
    const cursor = c.req.query('cursor');
    const args = {
      query: c.req.query('q') ?? '',
      ...(scopes !== undefined && { in: scopes.split(',') }),
      ...(limit !== undefined && { limit: /^\d{1,3}$/.test(limit) ? Number(limit) : limit }),
      ...(cursor !== undefined && { cursor }),
    };
    return c.json(await view.search(c.get('agent'), args));
  });

  // Owners and observers (connected-apps.ts): the rest get 403, and the page does not ask.
  routes.get('/apps', async (c) => c.json(await options.apps.list(c.get('agent'))));

  // The Cost view: usage per project, agent and task, and the agents that reported none.
  routes.get('/usage', async (c) => c.json(await options.usage.read()));

  return routes;
}
