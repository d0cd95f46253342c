-- The board-wide Activity timeline (issue 36) filters the event log by who acted and what kind of change it was. Both
-- are read from the row's event (names and states only, never board text) as generated columns, so no writer changes
-- and copies between stores carry them by construction; the indexes serve "one agent's (one kind's) rows, newest
-- first" in the log's (xid, id) order. Numbered 016: 015 is the search indexes of the same issue, written on another branch.
ALTER TABLE event_log ADD COLUMN actor TEXT GENERATED ALWAYS AS (
  CASE kind
    WHEN 'task' THEN event::jsonb ->> 'actor'
    WHEN 'task_message' THEN event::jsonb ->> 'author'
    WHEN 'room' THEN event::jsonb ->> 'from'
  END
) STORED;
ALTER TABLE event_log ADD COLUMN action TEXT GENERATED ALWAYS AS (
  CASE kind WHEN 'task' THEN event::jsonb ->> 'action' ELSE kind END
) STORED;
CREATE INDEX event_log_actor ON event_log (actor, xid, id);
CREATE INDEX event_log_action ON event_log (action, xid, id);
-- The owners' Audit view pages one agent's rows by id, newest first (bench/activity.mjs: 57 ms p50 with only (agent, at)).
CREATE INDEX audit_agent_id ON audit_log (agent, id);
