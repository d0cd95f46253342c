-- Every change to a reservation bumps its scope's version and logs the reservation's id, by trigger, in the same
-- transaction: each daemon keeps the scope's reservations indexed in memory and catches up by reading the ids changed
-- since the version it has (issue 22), whatever daemon wrote them. The version row's lock orders a scope's changes,
-- so the versions of committed changes never skip one a reader could still see appear. The log keeps the last 10,000
-- changes of each scope (RESERVATION_CHANGES_KEPT); an index further behind reads the scope whole.
CREATE TABLE reservation_versions (
  scope TEXT COLLATE "C" PRIMARY KEY,
  version BIGINT NOT NULL
);

CREATE TABLE reservation_changes (
  scope TEXT COLLATE "C" NOT NULL,
  version BIGINT NOT NULL,
  reservation_id INTEGER NOT NULL,
  PRIMARY KEY (scope, version)
);

-- The reservations one agent holds over all its claims are counted for the limit of an agent.
CREATE INDEX reservations_agent ON reservations (agent);

-- Reservations live before this migration are read whole by each index's first read, so they need no log rows.
INSERT INTO reservation_versions (scope, version) SELECT DISTINCT scope, 1 FROM reservations;

CREATE FUNCTION reservation_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed_scope TEXT;
  changed_id INTEGER;
  new_version BIGINT;
BEGIN
  IF TG_OP = 'DELETE' THEN
    changed_scope := OLD.scope;
    changed_id := OLD.id;
  ELSE
    changed_scope := NEW.scope;
    changed_id := NEW.id;
  END IF;
  INSERT INTO reservation_versions AS v (scope, version) VALUES (changed_scope, 1)
    ON CONFLICT (scope) DO UPDATE SET version = v.version + 1
    RETURNING v.version INTO new_version;
  INSERT INTO reservation_changes (scope, version, reservation_id) VALUES (changed_scope, new_version, changed_id);
  DELETE FROM reservation_changes WHERE scope = changed_scope AND version <= new_version - 10000;
  RETURN NULL;
END
$$;

CREATE TRIGGER reservation_changed AFTER INSERT OR UPDATE OR DELETE ON reservations
  FOR EACH ROW EXECUTE FUNCTION reservation_changed();
