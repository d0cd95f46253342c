// Full-text search on PostgreSQL (issue 36): the generated tsvector columns of migration 015_search, each with its GIN
// index, ranked by ts_rank; one statement of fixed text per combination of sources, every value a parameter.
import type { SearchHit } from 'roundtable-shared';
import { ROOM_SOURCE, toSearchHit, type SearchQuery, type SearchRow, type Source } from '../search-rows.js';
import type { Db } from './connection.js';

/**
 * Each source's matches, each branch naming its columns (any one may come first): the row id and the rank. $1 is the
 * words; $4 the reader, passed only when the room is searched. The query is written in each branch, not read from a
 * CTE: a CTE named several times is materialized and joined into each branch.
 */
const MATCHES: Record<Source, string> = {
  1: `SELECT 1 AS source, t.id, ts_rank(t.title_search, plainto_tsquery('simple', $1)) AS score FROM tasks t WHERE t.title_search @@ plainto_tsquery('simple', $1)`,
  2: `SELECT 2 AS source, t.id, ts_rank(t.description_search, plainto_tsquery('simple', $1)) AS score FROM tasks t WHERE t.description_search @@ plainto_tsquery('simple', $1)`,
  3: `SELECT 3 AS source, t.id, ts_rank(t.result_search, plainto_tsquery('simple', $1)) AS score FROM tasks t WHERE t.result_search @@ plainto_tsquery('simple', $1)`,
  4: `SELECT 4 AS source, m.id, ts_rank(m.text_search, plainto_tsquery('simple', $1)) AS score FROM messages m WHERE m.text_search @@ plainto_tsquery('simple', $1)`,
  5: `SELECT 5 AS source, r.id, ts_rank(r.note_search, plainto_tsquery('simple', $1)) AS score FROM reviews r WHERE r.note_search @@ plainto_tsquery('simple', $1)`,
  // read_log's rule: to all, by the reader, or addressed to it (a receipt names it).
  6: `SELECT 6 AS source, m.id, ts_rank(m.text_search, plainto_tsquery('simple', $1)) AS score FROM room_messages m WHERE m.text_search @@ plainto_tsquery('simple', $1)
        AND (m.recipients = 'all' OR m.author = $4 OR EXISTS (SELECT 1 FROM room_receipts r WHERE r.agent = $4 AND r.message_id = m.id))`,
};

/**
 * The page is chosen first from ranks alone; only its rows are read whole (the excerpt is made from them,
 * search-rows.ts). The words are joined by spaces and read by plainto_tsquery, which takes no operator.
 */
function statement(sources: readonly Source[]): string {
  return `WITH hits AS (${sources.map((source) => MATCHES[source]).join('\n      UNION ALL ')}),
    page AS (SELECT source, id, score FROM hits ORDER BY score DESC, source, id LIMIT $2 OFFSET $3)
  SELECT p.source, p.id, p.score,
    COALESCE(t.id, m.task_id, r.task_id) AS task_id,
    COALESCE(t.created_at, m.created_at, r.created_at, rm.created_at) AS created_at,
    CASE p.source WHEN 1 THEN t.title WHEN 2 THEN t.description WHEN 3 THEN t.result
      WHEN 4 THEN m.text WHEN 5 THEN r.note ELSE rm.text END AS body
  FROM page p
    LEFT JOIN tasks t ON p.source <= 3 AND t.id = p.id
    LEFT JOIN messages m ON p.source = 4 AND m.id = p.id
    LEFT JOIN reviews r ON p.source = 5 AND r.id = p.id
    LEFT JOIN room_messages rm ON p.source = 6 AND rm.id = p.id
  ORDER BY p.score DESC, p.source, p.id`;
}

export async function search(db: Db, query: SearchQuery): Promise<SearchHit[]> {
  const params = [query.words.join(' '), query.limit, query.offset, ...(query.sources.includes(ROOM_SOURCE) ? [query.reader] : [])];
  const rows = await db.unsafe<SearchRow[]>(statement(query.sources), params, { prepare: true });
  return rows.map((row) => toSearchHit(row, query.words));
}
