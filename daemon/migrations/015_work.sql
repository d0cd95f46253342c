-- Issue 35: the git work behind each submission, and the model use agents reported. Both are agent-written data.
-- A submission's summary (branch, commits, files) is kept for the life of the task; its patch may be dropped later to
-- keep the project's patch total (SPEC §22), and then patch is NULL and patch_bytes 0.
CREATE TABLE work_records (
  id INTEGER PRIMARY KEY,
  task_id INTEGER NOT NULL REFERENCES tasks(id),
  claim_id INTEGER,
  submitted_by TEXT NOT NULL,
  -- The work record without its patch, as JSON.
  summary TEXT NOT NULL,
  patch TEXT,
  -- The UTF-8 bytes of the patch kept here (0 when none is kept): what the project's total counts.
  patch_bytes INTEGER NOT NULL DEFAULT 0,
  -- The UTF-8 bytes of the patch as it was sent (0 when none was): a patch sent but not kept was dropped.
  sent_bytes INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
);
CREATE INDEX work_records_task ON work_records (task_id, id);
CREATE INDEX work_records_kept ON work_records (id) WHERE patch IS NOT NULL;

CREATE TABLE usage_reports (
  id INTEGER PRIMARY KEY,
  task_id INTEGER NOT NULL REFERENCES tasks(id),
  agent TEXT NOT NULL,
  tool TEXT NOT NULL,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  cached_tokens INTEGER NOT NULL DEFAULT 0,
  cost_usd REAL NOT NULL DEFAULT 0,
  model TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX usage_reports_task ON usage_reports (task_id);
CREATE INDEX usage_reports_agent ON usage_reports (agent);
