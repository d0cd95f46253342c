-- The board-wide Activity timeline (issue 36) filters the event log by who acted and what kind of change it was. Both
-- are read from the row's event (names and states only, never board text) as virtual columns, so no writer changes
-- and copies between stores carry them by construction; the index serves "one agent's activity, newest first".
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
