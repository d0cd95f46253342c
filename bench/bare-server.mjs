// The bare baseline for the benchmarks: Hono + @hono/node-server + better-sqlite3 and nothing else.
// It opens a board database (schema from daemon/migrations/ -- 001_board.sql and any later migration -- applied by
// the bench's seeder, or here if the file is empty), sets the daemon's pragmas, and answers get_task and claim_task with the same SQL
// statements the daemon runs (daemon/src/store/sqlite/), the same audit insert, and the same response shape.
// No auth, no host guard, no body limit, no input schema, no rate limit: that difference is what the bench measures.
//
// Environment: BARE_DB_PATH (required), BARE_AGENT (the name written to the audit log and as claimant),
// BARE_SYNCHRONOUS (FULL, the daemon's, or NORMAL: commits without an fsync), BARE_READ_AUDIT (1, or 0: reads write
// no audit row, the "same SELECT and nothing else" baseline). create_task inserts the task, its activity row and the
// audit row in one transaction, as the daemon does.
// Prints "bare listening on http://127.0.0.1:PORT" on stdout once it accepts connections.
import { readdirSync, readFileSync } from 'node:fs';
import { serve } from '@hono/node-server';
import Database from 'better-sqlite3';
import { Hono } from 'hono';
import { UNTRUSTED_CONTENT_WARNING } from 'roundtable-shared';

const dbPath = process.env.BARE_DB_PATH;
if (!dbPath) {
  process.stderr.write('bare-server: set BARE_DB_PATH\n');
  process.exit(1);
}
const agent = process.env.BARE_AGENT ?? 'bench-worker';
// The daemon's exact warning string, so both servers send responses of the same size.
const WARNING = UNTRUSTED_CONTENT_WARNING;

const db = new Database(dbPath);
db.pragma('journal_mode = WAL');
const SYNCHRONOUS = process.env.BARE_SYNCHRONOUS ?? 'FULL';
if (!['FULL', 'NORMAL'].includes(SYNCHRONOUS)) throw new Error(`BARE_SYNCHRONOUS=${SYNCHRONOUS}: FULL or NORMAL`);
db.pragma(`synchronous = ${SYNCHRONOUS}`);
const READ_AUDIT = process.env.BARE_READ_AUDIT !== '0';
db.pragma('foreign_keys = ON');
db.pragma('busy_timeout = 5000');
const hasSchema = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'tasks'").get();
if (!hasSchema) {
  const dir = new URL('../daemon/migrations/', import.meta.url);
  for (const file of readdirSync(dir).filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f)).sort()) {
    db.transaction(() => db.exec(readFileSync(new URL(file, dir), 'utf8')))();
  }
}

// The daemon's statements, verbatim.
const stmt = {
  getTask: db.prepare('SELECT * FROM tasks WHERE id = ?'),
  updateTask: db.prepare('UPDATE tasks SET status = @status, assignee = @assignee, result = @result, updated_at = @at WHERE id = @id'),
  insertActivity: db.prepare(
    `INSERT INTO activity (task_id, agent, action, from_status, to_status, assignee, note, created_at)
         VALUES (@task_id, @agent, @action, @from_status, @to_status, @assignee, @note, @at)`,
  ),
  messagesOf: db.prepare('SELECT * FROM messages WHERE task_id = ? ORDER BY id'),
  reviewsOf: db.prepare('SELECT * FROM reviews WHERE task_id = ? ORDER BY id'),
  historyOf: db.prepare('SELECT * FROM activity WHERE task_id = ? ORDER BY id'),
  insertAudit: db.prepare('INSERT INTO audit_log (at, agent, tool, task_id, outcome) VALUES (?, ?, ?, ?, ?)'),
  insertTask: db.prepare(
    `INSERT INTO tasks (title, description, required_skills, status, assignee, created_by, created_at, updated_at)
     VALUES (@title, @description, '[]', 'open', NULL, @created_by, @at, @at)`,
  ),
};

const toTask = (row) => ({ ...row, required_skills: JSON.parse(row.required_skills) });

class HttpError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

// get_task: one read transaction (BEGIN ... COMMIT) over the task, its messages, reviews and activity.
const readTask = db.transaction((id) => {
  const row = stmt.getTask.get(id);
  if (!row) return undefined;
  return { task: toTask(row), messages: stmt.messagesOf.all(id), reviews: stmt.reviewsOf.all(id), history: stmt.historyOf.all(id) };
});

// claim_task: BEGIN IMMEDIATE; read the task, check it, update it, append the activity row, read it back, append
// the call's audit row (ok); COMMIT. Like the daemon, a successful write audits itself inside its transaction.
const claim = db.transaction((id) => {
  const row = stmt.getTask.get(id);
  if (!row) throw new HttpError(404, 'not_found', `task ${id} does not exist`);
  if (row.status !== 'open') throw new HttpError(409, 'conflict', `task ${id} cannot be claimed: it is ${row.status}`);
  const at = new Date().toISOString();
  stmt.updateTask.run({ id, status: 'claimed', assignee: agent, result: row.result, at });
  stmt.insertActivity.run({ task_id: id, agent, action: 'claimed', from_status: row.status, to_status: 'claimed', assignee: agent, note: null, at });
  const task = toTask(stmt.getTask.get(id));
  stmt.insertAudit.run(new Date().toISOString(), agent, 'claim_task', id, 'ok');
  audited = true;
  return task;
});
let audited = false;

// create_task: BEGIN IMMEDIATE; insert the task and its activity row, read it back, the audit row; COMMIT.
const create = db.transaction((title) => {
  const at = new Date().toISOString();
  const id = Number(stmt.insertTask.run({ title, description: '', created_by: agent, at }).lastInsertRowid);
  stmt.insertActivity.run({ task_id: id, agent, action: 'created', from_status: null, to_status: 'open', assignee: null, note: null, at });
  const task = toTask(stmt.getTask.get(id));
  stmt.insertAudit.run(new Date().toISOString(), agent, 'create_task', id, 'ok');
  audited = true;
  return task;
});

function taskIdOf(args) {
  const id = args?.task_id;
  if (!Number.isSafeInteger(id) || id < 1) throw new HttpError(400, 'invalid_input', 'task_id: a positive whole number');
  return id;
}

/** Runs one tool call and, like the daemon's dispatcher, appends its audit row unless the write already did. */
async function tool(c, name, run) {
  let outcome = 'ok';
  let taskId = null;
  audited = false;
  try {
    const args = await c.req.json();
    taskId = Number.isSafeInteger(args?.task_id) ? args.task_id : null;
    return c.json(run(args));
  } catch (error) {
    outcome = error instanceof HttpError ? error.code : 'internal';
    const status = error instanceof HttpError ? error.status : 500;
    return c.json({ error: { code: outcome, message: String(error.message) } }, status);
  } finally {
    if (!READ_AUDIT && name === 'get_task' && outcome === 'ok') audited = true;
    if (!audited || outcome !== 'ok') stmt.insertAudit.run(new Date().toISOString(), agent, name, taskId, outcome);
  }
}

const app = new Hono();
app.post('/api/v1/tools/get_task', (c) =>
  tool(c, 'get_task', (args) => {
    const id = taskIdOf(args);
    const detail = readTask(id);
    if (!detail) throw new HttpError(404, 'not_found', `task ${id} does not exist`);
    return { ...detail, untrusted_content_warning: WARNING };
  }),
);
app.post('/api/v1/tools/create_task', (c) =>
  tool(c, 'create_task', (args) => {
    if (typeof args?.title !== 'string' || args.title.length === 0) throw new HttpError(400, 'invalid_input', 'title: required');
    return { task: create(args.title), untrusted_content_warning: WARNING };
  }),
);
app.post('/api/v1/tools/claim_task', (c) => tool(c, 'claim_task', (args) => ({ task: claim(taskIdOf(args)), untrusted_content_warning: WARNING })));

const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  process.stdout.write(`bare listening on http://127.0.0.1:${info.port}\n`);
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
