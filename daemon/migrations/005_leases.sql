-- Claim leases: every claim gets a new claim id and an expiry, renewed while its holder is alive; a lapsed claim reopens.
-- One row per claim ever made, so a claim id is unique and never reused, and a stale one can say how it ended.
CREATE TABLE claims (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  task_id INTEGER NOT NULL REFERENCES tasks (id),
  agent TEXT NOT NULL,
  claimed_at TEXT NOT NULL,
  -- When its lease ran out, if it did: a stale claim_id is told when its claim lapsed.
  lapsed_at TEXT
);
CREATE INDEX claims_task_agent ON claims (task_id, agent, id);

ALTER TABLE tasks ADD COLUMN claim_id INTEGER;
ALTER TABLE tasks ADD COLUMN lease_expires_at TEXT;
-- The sweep finds the next lapse without scanning the board: only claimed tasks carry a lease.
CREATE INDEX tasks_lease ON tasks (lease_expires_at) WHERE lease_expires_at IS NOT NULL;

-- The claim an activity row made or ended (claimed, released, submitted, lease_expired, cancelled), else null.
ALTER TABLE activity ADD COLUMN claim_id INTEGER;
-- /status counts the leases that lapsed in the last hour.
CREATE INDEX activity_action_at ON activity (action, created_at);

-- Tasks claimed before leases existed get one now, from the migration's time, so none is claimed forever.
INSERT INTO claims (task_id, agent, claimed_at)
  SELECT id, assignee, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM tasks WHERE status = 'claimed' ORDER BY id;
UPDATE tasks SET
  claim_id = (SELECT MAX(c.id) FROM claims c WHERE c.task_id = tasks.id),
  lease_expires_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+10 minutes')
  WHERE status = 'claimed';
