-- The durable event log (issue 24): each board change appends one row in its own transaction. A row names ids, states
-- and agent names only, never board text. Several daemons write at once, so ids are not commit order: a reader orders
-- rows by (xid, id), the writing transaction's id first, and reads only rows whose transaction is below the oldest one
-- still running (pg_snapshot_xmin), so a row that commits late can never appear before a position already read.
-- Retention deletes a prefix in that order; pruned_xid/pruned_id say where it ended.
CREATE TABLE event_log (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  xid XID8 NOT NULL DEFAULT pg_current_xact_id(),
  at TIMESTAMPTZ NOT NULL DEFAULT now(),
  kind TEXT NOT NULL,
  task_id BIGINT,
  event TEXT NOT NULL
);
CREATE INDEX event_log_order ON event_log (xid, id);
CREATE INDEX event_log_at ON event_log (at);

CREATE TABLE event_log_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  secret BYTEA NOT NULL,
  pruned_xid XID8 NOT NULL DEFAULT '0',
  pruned_id BIGINT NOT NULL DEFAULT 0
);
INSERT INTO event_log_state (id, secret)
VALUES (1, decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'));
