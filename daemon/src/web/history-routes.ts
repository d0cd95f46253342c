// GET activity, audit, audit.csv and audit.jsonl (issue 36): the same reads for a signed-in page (/view/...) and for a
// token on the JSON API (/api/v1/...); the caller's agent decides what it sees, whichever face it came through.
import { Hono } from 'hono';
import type { Agent } from '../agents/directory.js';
import type { BoardStore } from '../store/store.js';
import { ActivityFeed } from './activity-feed.js';
import { AuditTrail, type AuditFormat } from './audit-trail.js';

const DOWNLOAD_TYPES: Record<AuditFormat, string> = { csv: 'text/csv; charset=utf-8', jsonl: 'application/jsonl; charset=utf-8' };

export function historyRoutes(store: BoardStore): Hono<{ Variables: { agent: Agent } }> {
  const feed = new ActivityFeed(store);
  const trail = new AuditTrail(store);
  const routes = new Hono<{ Variables: { agent: Agent } }>();

  routes.use('*', async (c, next) => {
    await next();
    c.header('Cache-Control', 'no-store');
  });

  routes.get('/activity', async (c) => c.json(await feed.read(c.get('agent'), c.req.query())));
  routes.get('/audit', async (c) => c.json(await trail.page(c.get('agent'), c.req.query())));
  for (const format of ['csv', 'jsonl'] as const) {
    routes.get(`/audit.${format}`, (c) => {
      const body = trail.download(c.get('agent'), c.req.query(), format);
      return c.body(body, 200, {
        'Content-Type': DOWNLOAD_TYPES[format],
        'Content-Disposition': `attachment; filename="roundtable-audit.${format}"`,
        'X-Content-Type-Options': 'nosniff',
      });
    });
  }
  return routes;
}
