-- Full-text search (issue 36): one FTS5 index over every text the board keeps that a person may look for: a task's
-- title, description and result, task messages, review notes and room messages. Kept by triggers, so whatever writes
-- the text (a tool, an edit, an import) changes the index in the same transaction, and a rolled-back write leaves no
-- hit. One index, not one per table, so bm25 ranks every kind of hit on one scale.
-- A row's rowid says where its text lives: the source row's id * 8 + the source (1 title, 2 description, 3 result,
-- 4 task message, 5 review note, 6 room message). task_id and created_at are carried so a hit needs no join.
-- unicode61 without diacritic folding or stemming: the same words as PostgreSQL's `simple` configuration (015_search).
CREATE VIRTUAL TABLE search_index USING fts5(
  body,
  task_id UNINDEXED,
  created_at UNINDEXED,
  tokenize = 'unicode61 remove_diacritics 0'
);

INSERT INTO search_index (rowid, body, task_id, created_at) SELECT id * 8 + 1, title, id, created_at FROM tasks;
INSERT INTO search_index (rowid, body, task_id, created_at) SELECT id * 8 + 2, description, id, created_at FROM tasks WHERE description != '';
INSERT INTO search_index (rowid, body, task_id, created_at) SELECT id * 8 + 3, result, id, created_at FROM tasks WHERE result IS NOT NULL AND result != '';
INSERT INTO search_index (rowid, body, task_id, created_at) SELECT id * 8 + 4, text, task_id, created_at FROM messages;
INSERT INTO search_index (rowid, body, task_id, created_at) SELECT id * 8 + 5, note, task_id, created_at FROM reviews WHERE note IS NOT NULL AND note != '';
INSERT INTO search_index (rowid, body, task_id, created_at) SELECT id * 8 + 6, text, NULL, created_at FROM room_messages;

CREATE TRIGGER search_tasks_insert AFTER INSERT ON tasks
BEGIN
  INSERT INTO search_index (rowid, body, task_id, created_at) VALUES (NEW.id * 8 + 1, NEW.title, NEW.id, NEW.created_at);
  INSERT INTO search_index (rowid, body, task_id, created_at) SELECT NEW.id * 8 + 2, NEW.description, NEW.id, NEW.created_at WHERE NEW.description != '';
  INSERT INTO search_index (rowid, body, task_id, created_at) SELECT NEW.id * 8 + 3, NEW.result, NEW.id, NEW.created_at WHERE NEW.result IS NOT NULL AND NEW.result != '';
END;

CREATE TRIGGER search_tasks_title AFTER UPDATE OF title ON tasks WHEN OLD.title IS NOT NEW.title
BEGIN
  DELETE FROM search_index WHERE rowid = OLD.id * 8 + 1;
  INSERT INTO search_index (rowid, body, task_id, created_at) VALUES (NEW.id * 8 + 1, NEW.title, NEW.id, NEW.created_at);
END;

CREATE TRIGGER search_tasks_description AFTER UPDATE OF description ON tasks WHEN OLD.description IS NOT NEW.description
BEGIN
  DELETE FROM search_index WHERE rowid = OLD.id * 8 + 2;
  INSERT INTO search_index (rowid, body, task_id, created_at) SELECT NEW.id * 8 + 2, NEW.description, NEW.id, NEW.created_at WHERE NEW.description != '';
END;

CREATE TRIGGER search_tasks_result AFTER UPDATE OF result ON tasks WHEN OLD.result IS NOT NEW.result
BEGIN
  DELETE FROM search_index WHERE rowid = OLD.id * 8 + 3;
  INSERT INTO search_index (rowid, body, task_id, created_at) SELECT NEW.id * 8 + 3, NEW.result, NEW.id, NEW.created_at WHERE NEW.result IS NOT NULL AND NEW.result != '';
END;

CREATE TRIGGER search_tasks_delete AFTER DELETE ON tasks
BEGIN
  DELETE FROM search_index WHERE rowid IN (OLD.id * 8 + 1, OLD.id * 8 + 2, OLD.id * 8 + 3);
END;

CREATE TRIGGER search_messages_insert AFTER INSERT ON messages
BEGIN
  INSERT INTO search_index (rowid, body, task_id, created_at) VALUES (NEW.id * 8 + 4, NEW.text, NEW.task_id, NEW.created_at);
END;

CREATE TRIGGER search_messages_update AFTER UPDATE OF text ON messages
BEGIN
  DELETE FROM search_index WHERE rowid = OLD.id * 8 + 4;
  INSERT INTO search_index (rowid, body, task_id, created_at) VALUES (NEW.id * 8 + 4, NEW.text, NEW.task_id, NEW.created_at);
END;

CREATE TRIGGER search_messages_delete AFTER DELETE ON messages
BEGIN
  DELETE FROM search_index WHERE rowid = OLD.id * 8 + 4;
END;

CREATE TRIGGER search_reviews_insert AFTER INSERT ON reviews WHEN NEW.note IS NOT NULL AND NEW.note != ''
BEGIN
  INSERT INTO search_index (rowid, body, task_id, created_at) VALUES (NEW.id * 8 + 5, NEW.note, NEW.task_id, NEW.created_at);
END;

CREATE TRIGGER search_reviews_update AFTER UPDATE OF note ON reviews
BEGIN
  DELETE FROM search_index WHERE rowid = OLD.id * 8 + 5;
  INSERT INTO search_index (rowid, body, task_id, created_at) SELECT NEW.id * 8 + 5, NEW.note, NEW.task_id, NEW.created_at WHERE NEW.note IS NOT NULL AND NEW.note != '';
END;

CREATE TRIGGER search_reviews_delete AFTER DELETE ON reviews
BEGIN
  DELETE FROM search_index WHERE rowid = OLD.id * 8 + 5;
END;

CREATE TRIGGER search_room_insert AFTER INSERT ON room_messages
BEGIN
  INSERT INTO search_index (rowid, body, task_id, created_at) VALUES (NEW.id * 8 + 6, NEW.text, NULL, NEW.created_at);
END;

CREATE TRIGGER search_room_update AFTER UPDATE OF text ON room_messages
BEGIN
  DELETE FROM search_index WHERE rowid = OLD.id * 8 + 6;
  INSERT INTO search_index (rowid, body, task_id, created_at) VALUES (NEW.id * 8 + 6, NEW.text, NULL, NEW.created_at);
END;

CREATE TRIGGER search_room_delete AFTER DELETE ON room_messages
BEGIN
  DELETE FROM search_index WHERE rowid = OLD.id * 8 + 6;
END;
