-- Who is parked in wait_for_activity, per daemon, so that `members` through any daemon sees waits parked on all.
-- Each daemon writes only its own rows and renews their expiry (on the database's clock) while they last; a daemon
-- that dies stops counting when its rows expire. UNLOGGED: rewritten every few seconds, worth nothing after a crash.
CREATE UNLOGGED TABLE waiting_agents (
  daemon_id TEXT COLLATE "C" NOT NULL,
  agent TEXT COLLATE "C" NOT NULL,
  expires_ms DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (daemon_id, agent)
);
CREATE INDEX waiting_agents_agent ON waiting_agents (agent);
