-- What one daemon kept in memory and several daemons on one board must share.
-- Rate-limit buckets per agent: a token bucket updated in one statement, on the database's clock. UNLOGGED: every
-- tool call updates it, and a bucket is not worth a WAL flush; after a crash PostgreSQL empties it (full buckets).
CREATE UNLOGGED TABLE rate_buckets (
  key TEXT COLLATE "C" PRIMARY KEY,
  tokens DOUBLE PRECISION NOT NULL,
  updated_ms DOUBLE PRECISION NOT NULL,
  -- Whether the last take spent a token (false: refused, the bucket only refilled).
  spent BOOLEAN NOT NULL DEFAULT TRUE
);

-- Web sign-in sessions: a random id maps to the token's SHA-256 and an expiry, never to the token.
CREATE TABLE web_sessions (
  id TEXT COLLATE "C" PRIMARY KEY,
  token_sha256 BYTEA NOT NULL,
  expires_ms DOUBLE PRECISION NOT NULL
);
CREATE INDEX web_sessions_expires ON web_sessions (expires_ms);
