-- Path reservations: the files a claim will touch. Each belongs to one claim and is deleted when that claim ends
-- (submit, release, cancel, lapse), in the same transaction, so the table holds live reservations only.
CREATE TABLE reservations (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  task_id INTEGER NOT NULL REFERENCES tasks (id),
  claim_id INTEGER NOT NULL REFERENCES claims (id),
  agent TEXT NOT NULL,
  -- '' is the default scope (a reservation made without one).
  scope TEXT NOT NULL,
  pattern TEXT NOT NULL,
  -- The pattern's leading wildcard-free segments, folded, each ending in "/": two patterns can overlap only if one
  -- key starts with the other, so a lookup reads a few index ranges instead of every reservation on the board.
  prefix TEXT NOT NULL,
  exclusive INTEGER NOT NULL,
  reason TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (claim_id, scope, pattern)
);
CREATE INDEX reservations_scope_prefix ON reservations (scope, prefix);
CREATE INDEX reservations_task ON reservations (task_id, id);
CREATE INDEX reservations_scope_id ON reservations (scope, id);
