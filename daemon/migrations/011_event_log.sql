-- The durable event log (issue 24): each board change appends one row in its own transaction. A row names ids, states
-- and agent names only, never board text. Ids are commit order (SQLite has one writer); a change cursor is a position
-- in it. Retention (ROUNDTABLE_EVENT_LOG_MAX_ROWS, ROUNDTABLE_EVENT_LOG_MAX_AGE_H) deletes a prefix, and pruned_through
-- says where it ended, so a cursor older than what is kept is told so instead of skipping what was deleted.
CREATE TABLE event_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at TEXT NOT NULL,
  kind TEXT NOT NULL,
  task_id INTEGER,
  event TEXT NOT NULL
);
CREATE INDEX event_log_at ON event_log (at);

-- One row: the key that signs this board's cursors (a cursor is refused on another board, or forged), and the last
-- id retention deleted.
CREATE TABLE event_log_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  secret BLOB NOT NULL,
  pruned_through INTEGER NOT NULL DEFAULT 0
);
INSERT INTO event_log_state (id, secret) VALUES (1, randomblob(32));
