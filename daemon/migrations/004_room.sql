-- The shared room: messages to all or to named members, a receipt per recipient, and per-agent cursors.
CREATE TABLE room_messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  author TEXT NOT NULL,
  -- 'all', or a JSON array of member names
  recipients TEXT NOT NULL,
  text TEXT NOT NULL,
  created_at TEXT NOT NULL
);

CREATE TABLE room_receipts (
  message_id INTEGER NOT NULL REFERENCES room_messages (id),
  agent TEXT NOT NULL,
  read_at TEXT,
  PRIMARY KEY (agent, message_id)
) WITHOUT ROWID;
CREATE INDEX room_receipts_message ON room_receipts (message_id);

-- Where each agent has read up to in the room, and which reviews of its work it has been told of.
CREATE TABLE agent_cursors (
  agent TEXT PRIMARY KEY,
  room_read_id INTEGER NOT NULL DEFAULT 0,
  review_seen_id INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

-- Whose submission a review judged, so reviews can be told to their submitter.
ALTER TABLE reviews ADD COLUMN submitter TEXT;
CREATE INDEX reviews_submitter ON reviews (submitter, id);
