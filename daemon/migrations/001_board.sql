-- The board: tasks, their skills, messages, reviews, activity history and the audit log.
CREATE TABLE tasks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  title TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  required_skills TEXT NOT NULL DEFAULT '[]',
  status TEXT NOT NULL CHECK (status IN ('open', 'claimed', 'submitted', 'done', 'cancelled')),
  assignee TEXT,
  created_by TEXT NOT NULL,
  result TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX tasks_status_id ON tasks (status, id);
CREATE INDEX tasks_assignee_status_id ON tasks (assignee, status, id);

CREATE TABLE task_skills (
  task_id INTEGER NOT NULL REFERENCES tasks (id),
  skill TEXT NOT NULL,
  PRIMARY KEY (task_id, skill)
) WITHOUT ROWID;

CREATE TABLE messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  task_id INTEGER NOT NULL REFERENCES tasks (id),
  author TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('progress', 'help_request', 'reply', 'note')),
  text TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX messages_task ON messages (task_id, id);

CREATE TABLE reviews (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  task_id INTEGER NOT NULL REFERENCES tasks (id),
  reviewer TEXT NOT NULL,
  verdict TEXT NOT NULL CHECK (verdict IN ('approve', 'reject')),
  note TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX reviews_task ON reviews (task_id, id);

CREATE TABLE activity (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  task_id INTEGER NOT NULL REFERENCES tasks (id),
  agent TEXT NOT NULL,
  action TEXT NOT NULL,
  from_status TEXT,
  to_status TEXT NOT NULL,
  assignee TEXT,
  note TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX activity_task ON activity (task_id, id);

-- One row per tool call, failures included. Never a token, never board text.
CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at TEXT NOT NULL,
  agent TEXT,
  tool TEXT NOT NULL,
  task_id INTEGER,
  outcome TEXT NOT NULL
);
CREATE INDEX audit_agent_at ON audit_log (agent, at);

CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
