-- The first successful response per (agent, idempotency key), so a retried mutation is not applied twice.
CREATE TABLE idempotency_keys (
  agent TEXT NOT NULL,
  key TEXT NOT NULL,
  tool TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  response TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (agent, key)
) WITHOUT ROWID;
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
