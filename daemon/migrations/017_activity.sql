-- The board-wide Activity timeline (issue 36) filters the event log by who acted and what kind of change it was. Both
-- are read from the row's event (names and states only, never board text) as virtual columns, so no writer changes
-- and copies between stores carry them by construction; the indexes serve "one agent's (one kind's) rows, newest
-- first" (bench/activity.mjs: a kind in 1 row of 1,000 took a scan of the whole log without its index).
-- Numbered 017: 016 is the search indexes of the same issue, written on another branch at the same time.
ALTER TABLE event_log ADD COLUMN actor TEXT GENERATED ALWAYS AS (
  CASE kind
    WHEN 'task' THEN json_extract(event, '$.actor')
    WHEN 'task_message' THEN json_extract(event, '$.author')
    WHEN 'room' THEN json_extract(event, '$.from')
  END
) VIRTUAL;
ALTER TABLE event_log ADD COLUMN action TEXT GENERATED ALWAYS AS (
  CASE kind WHEN 'task' THEN json_extract(event, '$.action') ELSE kind END
) VIRTUAL;
CREATE INDEX event_log_actor ON event_log (actor, id);
CREATE INDEX event_log_action ON event_log (action, id);
-- The owners' Audit view pages one agent's rows by id, newest first (bench/activity.mjs: 57 ms p50 with only (agent, at)).
CREATE INDEX audit_agent_id ON audit_log (agent, id);
