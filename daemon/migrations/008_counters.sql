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

-- The ready set by what it takes to claim a task: its required skills (as stored) and its assignee ('' for anyone).
-- Few distinct rows however many tasks, so an agent's claimable count is a sum over them (sqlite.ts countClaimable).
CREATE TABLE ready_skill_sets (
  skills TEXT NOT NULL,
  assignee TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (skills, assignee)
) WITHOUT ROWID;

INSERT INTO ready_skill_sets (skills, assignee, n)
  SELECT required_skills, COALESCE(assignee, ''), COUNT(*) FROM tasks WHERE status = 'open' AND blocker_count = 0 GROUP BY 1, 2;

CREATE TRIGGER ready_skill_sets_insert AFTER INSERT ON tasks WHEN NEW.status = 'open' AND NEW.blocker_count = 0
BEGIN
  INSERT INTO ready_skill_sets (skills, assignee, n) VALUES (NEW.required_skills, COALESCE(NEW.assignee, ''), 1)
    ON CONFLICT (skills, assignee) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER ready_skill_sets_delete AFTER DELETE ON tasks WHEN OLD.status = 'open' AND OLD.blocker_count = 0
BEGIN
  UPDATE ready_skill_sets SET n = n - 1 WHERE skills = OLD.required_skills AND assignee = COALESCE(OLD.assignee, '');
  DELETE FROM ready_skill_sets WHERE n <= 0;
END;

CREATE TRIGGER ready_skill_sets_leave AFTER UPDATE OF status, blocker_count, assignee, required_skills ON tasks
  WHEN OLD.status = 'open' AND OLD.blocker_count = 0
BEGIN
  UPDATE ready_skill_sets SET n = n - 1 WHERE skills = OLD.required_skills AND assignee = COALESCE(OLD.assignee, '');
  DELETE FROM ready_skill_sets WHERE n <= 0;
END;

CREATE TRIGGER ready_skill_sets_enter AFTER UPDATE OF status, blocker_count, assignee, required_skills ON tasks
  WHEN NEW.status = 'open' AND NEW.blocker_count = 0
BEGIN
  INSERT INTO ready_skill_sets (skills, assignee, n) VALUES (NEW.required_skills, COALESCE(NEW.assignee, ''), 1)
    ON CONFLICT (skills, assignee) DO UPDATE SET n = n + 1;
END;
