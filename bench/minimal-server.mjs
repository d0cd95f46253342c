// The minimal route, the bench's second baseline (issue 27): what a durable tool call costs with no framework of ours.
// Hono + @hono/node-server + better-sqlite3, WAL, synchronous=FULL, one transaction per call, and only three tables
// (bench/minimal-schema.sql: tasks, activity, audit). A claim writes its activity row and its audit row in its own
// transaction, one durable commit; get_task is one read transaction (the task and its history) and writes nothing,
// which is the harder baseline: the daemon also commits an audit row for every read. No auth, no input schema, no
// rate limit, no triggers, no log.
//
// Environment: MINIMAL_DB_PATH (required; the schema is applied if absent), MINIMAL_AGENT (the audit row's agent and
// the claimant). Prints "minimal listening on http://127.0.0.1:PORT" once it accepts connections.
import { readFileSync } from 'node:fs';
import { serve } from '@hono/node-server';
import Database from 'better-sqlite3';
import { Hono } from 'hono';
import { UNTRUSTED_CONTENT_WARNING } from 'roundtable-shared';

const dbPath = process.env.MINIMAL_DB_PATH;
if (!dbPath) {
  process.stderr.write('minimal-server: set MINIMAL_DB_PATH\n');
  process.exit(1);
}
const agent = process.env.MINIMAL_AGENT ?? 'bench-worker';

const db = new Database(dbPath);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('busy_timeout = 5000');
db.exec(readFileSync(new URL('./minimal-schema.sql', import.meta.url), 'utf8'));

const stmt = {
  task: db.prepare('SELECT * FROM tasks WHERE id = ?'),
  history: db.prepare('SELECT * FROM activity WHERE task_id = ? ORDER BY id'),
  claim: db.prepare("UPDATE tasks SET status = 'claimed', assignee = ?, updated_at = ? WHERE id = ? AND status = 'open'"),
  activity: db.prepare('INSERT INTO activity (task_id, agent, action, from_status, to_status, created_at) VALUES (?, ?, ?, ?, ?, ?)'),
  audit: db.prepare('INSERT INTO audit (at, agent, tool, task_id, outcome) VALUES (?, ?, ?, ?, ?)'),
};

// get_task: the task and its history in one read transaction (BEGIN ... COMMIT).
const getTask = db.transaction((id) => {
  const task = stmt.task.get(id);
  return task ? { task, history: stmt.history.all(id) } : undefined;
});

// claim_task: the update, its activity row, the task read back and the audit row, in one transaction.
const claimTask = db.transaction((id) => {
  const at = new Date().toISOString();
  const changed = stmt.claim.run(agent, at, id).changes === 1;
  if (changed) stmt.activity.run(id, agent, 'claimed', 'open', 'claimed', at);
  stmt.audit.run(at, agent, 'claim_task', id, changed ? 'ok' : 'conflict');
  return changed ? stmt.task.get(id) : undefined;
});

const taskId = (args) => (Number.isSafeInteger(args?.task_id) && args.task_id > 0 ? args.task_id : undefined);

const app = new Hono();
app.post('/api/v1/tools/get_task', async (c) => {
  const id = taskId(await c.req.json());
  if (id === undefined) return c.json({ error: { code: 'invalid_input', message: 'task_id: a positive whole number' } }, 400);
  const detail = getTask(id);
  if (!detail) return c.json({ error: { code: 'not_found', message: `task ${id} does not exist` } }, 404);
  return c.json({ ...detail, untrusted_content_warning: UNTRUSTED_CONTENT_WARNING });
});
app.post('/api/v1/tools/claim_task', async (c) => {
  const id = taskId(await c.req.json());
  if (id === undefined) return c.json({ error: { code: 'invalid_input', message: 'task_id: a positive whole number' } }, 400);
  const task = claimTask.immediate(id);
  if (!task) return c.json({ error: { code: 'conflict', message: `task ${id} cannot be claimed` } }, 409);
  return c.json({ task, untrusted_content_warning: UNTRUSTED_CONTENT_WARNING });
});

const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  process.stdout.write(`minimal listening on http://127.0.0.1:${info.port}\n`);
});

function stop() {
  server.close(() => {
    db.close();
    process.exit(0);
  });
  server.closeIdleConnections?.();
}
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
