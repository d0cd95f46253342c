// The baseline for waking waiters: a long-poll server with no database. Hono + @hono/node-server, like the daemon.
// POST /wait parks the request until POST /wake answers every parked one with a small JSON body (about the size of
// wait_for_activity's answer), or until 50 s pass. No auth, no audit, no store: only the cost of parking and answering.
// Prints "longpoll listening on http://127.0.0.1:PORT" on stdout once it accepts connections.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const parked = new Set();
const app = new Hono();

app.post('/wait', async (c) => {
  await c.req.json();
  const started = Date.now();
  const reason = await new Promise((resolve) => {
    const waiter = (why) => {
      clearTimeout(timer);
      parked.delete(waiter);
      resolve(why);
    };
    const timer = setTimeout(() => waiter('timeout'), 50_000);
    parked.add(waiter);
  });
  return c.json({ reason, unread_messages: 0, claimable_tasks: 1, to_review: 0, reviews: [], waited_ms: Date.now() - started, stranded_tasks: [] });
});

app.post('/wake', (c) => {
  const count = parked.size;
  for (const waiter of [...parked]) waiter('activity');
  return c.json({ woken: count });
});

app.get('/parked', (c) => c.json({ parked: parked.size }));

const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  process.stdout.write(`longpoll listening on http://127.0.0.1:${info.port}\n`);
});
process.once('SIGTERM', () => {
  for (const waiter of [...parked]) waiter('timeout');
  server.close(() => process.exit(0));
  server.closeAllConnections?.();
});
