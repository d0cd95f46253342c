-- Counters kept up to date by triggers, so /status and wait_for_activity never count a large board row by row.
-- name: a task status (open, claimed, submitted, done, cancelled), or 'ready' (open tasks nothing blocks).
CREATE TABLE board_counts (
  name TEXT PRIMARY KEY,
  n INTEGER NOT NULL
) WITHOUT ROWID;

INSERT INTO board_counts (name, n) VALUES ('open', 0), ('claimed', 0), ('submitted', 0), ('done', 0), ('cancelled', 0), ('ready', 0);
UPDATE board_counts SET n = (SELECT COUNT(*) FROM tasks WHERE tasks.status = board_counts.name) WHERE name != 'ready';
UPDATE board_counts SET n = (SELECT COUNT(*) FROM tasks WHERE status = 'open' AND blocker_count = 0) WHERE name = 'ready';

CREATE TRIGGER board_counts_insert AFTER INSERT ON tasks
BEGIN
  UPDATE board_counts SET n = n + 1 WHERE name = NEW.status;
  UPDATE board_counts SET n = n + 1 WHERE name = 'ready' AND NEW.status = 'open' AND NEW.blocker_count = 0;
END;

CREATE TRIGGER board_counts_delete AFTER DELETE ON tasks
BEGIN
  UPDATE board_counts SET n = n - 1 WHERE name = OLD.status;
  UPDATE board_counts SET n = n - 1 WHERE name = 'ready' AND OLD.status = 'open' AND OLD.blocker_count = 0;
END;

CREATE TRIGGER board_counts_status AFTER UPDATE OF status ON tasks WHEN OLD.status != NEW.status
BEGIN
  UPDATE board_counts SET n = n - 1 WHERE name = OLD.status;
  UPDATE board_counts SET n = n + 1 WHERE name = NEW.status;
END;

CREATE TRIGGER board_counts_ready AFTER UPDATE OF status, blocker_count ON tasks
  WHEN (OLD.status = 'open' AND OLD.blocker_count = 0) != (NEW.status = 'open' AND NEW.blocker_count = 0)
BEGIN
  UPDATE board_counts SET n = n + CASE WHEN NEW.status = 'open' AND NEW.blocker_count = 0 THEN 1 ELSE -1 END WHERE name = 'ready';
END;
