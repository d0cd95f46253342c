-- Every change to a reservation bumps its scope's version and logs the reservation's id, by trigger, in the same
-- transaction: each daemon keeps the scope's reservations indexed in memory and catches up by reading the ids changed
-- since the version it has (issue 22), whatever wrote them. The log keeps the last 10,000 changes of each scope
-- (RESERVATION_CHANGES_KEPT); an index further behind reads the scope whole.
CREATE TABLE reservation_versions (
  scope TEXT PRIMARY KEY,
  version INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE reservation_changes (
  scope TEXT NOT NULL,
  version INTEGER NOT NULL,
  reservation_id INTEGER NOT NULL,
  PRIMARY KEY (scope, version)
) WITHOUT ROWID;

-- The reservations one agent holds over all its claims are counted for the limit of an agent.
CREATE INDEX reservations_agent ON reservations (agent);

-- Reservations live before this migration are read whole by each index's first read, so they need no log rows.
INSERT INTO reservation_versions (scope, version) SELECT DISTINCT scope, 1 FROM reservations;

CREATE TRIGGER reservation_changes_insert AFTER INSERT ON reservations
BEGIN
  INSERT INTO reservation_versions (scope, version) VALUES (NEW.scope, 1) ON CONFLICT (scope) DO UPDATE SET version = version + 1;
  INSERT INTO reservation_changes (scope, version, reservation_id) SELECT NEW.scope, version, NEW.id FROM reservation_versions WHERE scope = NEW.scope;
  DELETE FROM reservation_changes WHERE scope = NEW.scope AND version <= (SELECT version FROM reservation_versions WHERE scope = NEW.scope) - 10000;
END;

CREATE TRIGGER reservation_changes_update AFTER UPDATE ON reservations
BEGIN
  INSERT INTO reservation_versions (scope, version) VALUES (NEW.scope, 1) ON CONFLICT (scope) DO UPDATE SET version = version + 1;
  INSERT INTO reservation_changes (scope, version, reservation_id) SELECT NEW.scope, version, NEW.id FROM reservation_versions WHERE scope = NEW.scope;
  DELETE FROM reservation_changes WHERE scope = NEW.scope AND version <= (SELECT version FROM reservation_versions WHERE scope = NEW.scope) - 10000;
END;

CREATE TRIGGER reservation_changes_delete AFTER DELETE ON reservations
BEGIN
  INSERT INTO reservation_versions (scope, version) VALUES (OLD.scope, 1) ON CONFLICT (scope) DO UPDATE SET version = version + 1;
  INSERT INTO reservation_changes (scope, version, reservation_id) SELECT OLD.scope, version, OLD.id FROM reservation_versions WHERE scope = OLD.scope;
  DELETE FROM reservation_changes WHERE scope = OLD.scope AND version <= (SELECT version FROM reservation_versions WHERE scope = OLD.scope) - 10000;
END;
