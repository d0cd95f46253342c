-- The agents directory on PostgreSQL: every daemon on the board reads it here instead of an agents.json of its own.
-- Tokens are kept as SHA-256 hashes only. `roundtable agents ...` replaces the rows in one transaction and sends
-- NOTIFY roundtable_agents, so every daemon reloads at once.
CREATE TABLE agents (
  name TEXT COLLATE "C" PRIMARY KEY,
  -- The order agents are listed in (as in the file they came from).
  position INTEGER NOT NULL,
  role TEXT NOT NULL,
  skills JSONB NOT NULL DEFAULT '[]',
  -- NULL: every toolset.
  toolsets JSONB,
  token_sha256 TEXT COLLATE "C" NOT NULL UNIQUE
);

-- The board's mode (role or peer): one row, written with the agents.
CREATE TABLE agents_mode (
  only_row BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_row),
  mode TEXT NOT NULL
);
