-- Full-text search (issue 36): a tsvector beside each text a person may look for (a task's title, description and
-- result, task messages, review notes, room messages), each a stored generated column with a GIN index. PostgreSQL
-- computes a generated column in the statement that writes the text, so the index changes in the same transaction
-- whatever writes it, and adding the column here indexes the rows already there.
-- The `simple` configuration (no stemming, no stop words): board text is code, names and many languages, and it finds
-- the same words as SQLite's unicode61 (016_search). The text is split at every character that is not a letter or a
-- digit first, as unicode61 does, so `src/app.ts` holds the word `app` on both stores (the default parser would keep
-- it as one file-name token).
ALTER TABLE tasks
  ADD COLUMN title_search tsvector GENERATED ALWAYS AS (to_tsvector('simple', regexp_replace(title, '[^[:alnum:]]+', ' ', 'g'))) STORED,
  ADD COLUMN description_search tsvector GENERATED ALWAYS AS (to_tsvector('simple', regexp_replace(description, '[^[:alnum:]]+', ' ', 'g'))) STORED,
  ADD COLUMN result_search tsvector GENERATED ALWAYS AS (to_tsvector('simple', regexp_replace(COALESCE(result, ''), '[^[:alnum:]]+', ' ', 'g'))) STORED;
CREATE INDEX tasks_title_search ON tasks USING gin (title_search);
CREATE INDEX tasks_description_search ON tasks USING gin (description_search);
CREATE INDEX tasks_result_search ON tasks USING gin (result_search);

ALTER TABLE messages
  ADD COLUMN text_search tsvector GENERATED ALWAYS AS (to_tsvector('simple', regexp_replace(text, '[^[:alnum:]]+', ' ', 'g'))) STORED;
CREATE INDEX messages_text_search ON messages USING gin (text_search);

ALTER TABLE reviews
  ADD COLUMN note_search tsvector GENERATED ALWAYS AS (to_tsvector('simple', regexp_replace(COALESCE(note, ''), '[^[:alnum:]]+', ' ', 'g'))) STORED;
CREATE INDEX reviews_note_search ON reviews USING gin (note_search);

ALTER TABLE room_messages
  ADD COLUMN text_search tsvector GENERATED ALWAYS AS (to_tsvector('simple', regexp_replace(text, '[^[:alnum:]]+', ' ', 'g'))) STORED;
CREATE INDEX room_messages_text_search ON room_messages USING gin (text_search);
