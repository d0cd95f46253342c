-- Help requests nobody answered (issue 37, found by the projects bench): "unfinished tasks whose newest message is a
-- help request" was read task by task over every unfinished task (370 ms for /overview with 60,000 claimed tasks).
-- This partial index holds only help requests, so the reads start from them instead: a task's newest message is a help
-- request exactly when it is one with no later message on its task (the messages_task index).
CREATE INDEX messages_help_requests ON messages (id) WHERE kind = 'help_request';
