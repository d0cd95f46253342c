// The page itself: index.html, app.js and app.css from the daemon package's web/ folder, read once at start.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Hono } from 'hono';
import { PACKAGE_DIR } from '../runtime/package-dir.js';

const WEB_DIR = join(PACKAGE_DIR, 'web/');

/** URL path → file and content type; nothing else is served, so no path can reach outside this list. */
export const PAGE_FILES: Readonly<Record<string, { file: string; type: string }>> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
  '/favicon.svg': { file: 'favicon.svg', type: 'image/svg+xml' },
};

export function staticRoutes(dir: string = WEB_DIR): Hono {
  const routes = new Hono();
  for (const [path, { file, type }] of Object.entries(PAGE_FILES)) {
    const body = readFileSync(dir + file);
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    routes.get(path, (c) => {
      // Revalidated on every load, so an upgraded daemon's page is picked up at once.
      c.header('Cache-Control', 'no-cache');
      c.header('ETag', etag);
      if (c.req.header('if-none-match') === etag) return c.body(null, 304);
      c.header('Content-Type', type);
      return c.body(body);
    });
  }
  return routes;
}
