-- Webhooks (issue 26): what the owner configured, and the outbox of deliveries written in the transaction of the change
-- they tell of. The signing secrets are not here: they live in webhook-secrets.json (mode 600) beside agents.json.
CREATE TABLE webhooks (
  id TEXT PRIMARY KEY,
  url TEXT NOT NULL,
  -- The event names between commas (",submitted,rejected,"), so one instr() finds the webhooks of an event.
  events TEXT NOT NULL,
  format TEXT NOT NULL,
  allow_loopback INTEGER NOT NULL DEFAULT 0,
  allow_private INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
);

CREATE TABLE webhook_deliveries (
  -- The webhook-id header: the same on every attempt, so a receiver de-duplicates by it.
  id TEXT PRIMARY KEY,
  webhook_id TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event TEXT NOT NULL,
  -- The event's facts (webhooks/events.ts), as JSON; the body is rendered from them on each attempt.
  facts TEXT NOT NULL,
  -- pending, delivered, dead (the dead-letter list).
  state TEXT NOT NULL DEFAULT 'pending',
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT NOT NULL,
  -- No lease column: one daemon per file, which keeps what it attempts in memory (PostgreSQL's has one).
  last_error TEXT,
  created_at TEXT NOT NULL,
  finished_at TEXT
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (state, finished_at) WHERE state <> 'pending';
