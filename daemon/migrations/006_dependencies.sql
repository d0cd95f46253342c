-- Plans as graphs: dependencies between tasks, a priority per task, and edits kept in the history.
-- One row per edge: task_id cannot be claimed until depends_on is done.
CREATE TABLE task_dependencies (
  task_id INTEGER NOT NULL REFERENCES tasks (id),
  depends_on INTEGER NOT NULL REFERENCES tasks (id),
  PRIMARY KEY (task_id, depends_on)
) WITHOUT ROWID;
-- From a blocker to its dependents: approving or cancelling a task recounts the tasks that wait on it.
CREATE INDEX task_dependencies_blocker ON task_dependencies (depends_on, task_id);

-- 0 urgent, 1 high, 2 normal, 3 low: the ready set sorts on it, then on id (oldest first).
ALTER TABLE tasks ADD COLUMN priority INTEGER NOT NULL DEFAULT 2 CHECK (priority BETWEEN 0 AND 3);
-- Kept by the store in the transaction that changes an edge or a blocker's state, so the ready set is one index
-- range, not a join per task: how many dependencies are not done, and how many of those are cancelled.
ALTER TABLE tasks ADD COLUMN blocker_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN cancelled_blocker_count INTEGER NOT NULL DEFAULT 0;

-- The ready set (open, nothing blocking) in the order it is served; claimable_by_me walks the same index.
CREATE INDEX tasks_ready ON tasks (priority, id) WHERE status = 'open' AND blocker_count = 0;
-- Tasks stranded by a cancelled blocker, for the leader's (the creator's) wait: few, so a small partial index.
CREATE INDEX tasks_stranded ON tasks (created_by, id) WHERE cancelled_blocker_count > 0;
-- list_tasks with order "priority", with or without a status filter.
CREATE INDEX tasks_status_priority_id ON tasks (status, priority, id);
CREATE INDEX tasks_priority_id ON tasks (priority, id);

-- An edit's history row: the fields it changed and their values before, as JSON, so nothing written is lost.
ALTER TABLE activity ADD COLUMN edit TEXT;
