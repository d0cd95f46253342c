-- One live process per agent token for long-running workers: the instance holding the lease, until it expires.
CREATE TABLE agent_instances (
  agent TEXT PRIMARY KEY,
  instance_id TEXT NOT NULL,
  started_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
) WITHOUT ROWID;
