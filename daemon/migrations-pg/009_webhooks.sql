-- Webhooks (issue 26): what the owner configured, and the outbox of deliveries written in the transaction of the change
-- they tell of. Every daemon must sign, so the signing secret is kept here, readable only by the board's role: it
-- never goes into a NOTIFY, an audit row or a log (docs/DECISIONS.md, issue 26).
CREATE TABLE webhooks (
  id TEXT COLLATE "C" PRIMARY KEY,
  url TEXT NOT NULL,
  events TEXT NOT NULL,
  format TEXT NOT NULL,
  allow_loopback BOOLEAN NOT NULL DEFAULT FALSE,
  allow_private BOOLEAN NOT NULL DEFAULT FALSE,
  secret TEXT NOT NULL,
  created_at TEXT NOT NULL
);

CREATE TABLE webhook_deliveries (
  id TEXT COLLATE "C" PRIMARY KEY,
  webhook_id TEXT COLLATE "C" NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event TEXT NOT NULL,
  facts TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending',
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT COLLATE "C" NOT NULL,
  lease_until TEXT COLLATE "C",
  last_error TEXT,
  created_at TEXT NOT NULL,
  finished_at TEXT COLLATE "C"
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (state, finished_at) WHERE state <> 'pending';
