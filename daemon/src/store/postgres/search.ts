// Full-text search on PostgreSQL (issue 36): the generated tsvector columns of migration 015_search, each with its GIN
// index, ranked by ts_rank; one statement of fixed text per combination of sources, every value a parameter.
import type { SearchHit } from 'roundtable-shared';
import { RANKED_PER_SOURCE, ROOM_SOURCE, toSearchHit, type SearchQuery, type SearchRow, type Source } from '../search-rows.js';
import type { Db } from './connection.js';

/**
 * A source's newest RANKED_PER_SOURCE matches and their rank, each branch naming its columns (any one may come first).
 * $1 is the words; $4 the reader, passed only when the room is searched. The query is written in each branch, not read
 * from a CTE: a CTE named several times is materialized and joined into each branch.
 */
function newest(source: Source, table: string, column: string, readable = ''): string {
  return `SELECT ${source} AS source, x.id, ts_rank(x.${column}, plainto_tsquery('simple', $1)) AS score FROM (
      SELECT id, ${column} FROM ${table} x WHERE ${column} @@ plainto_tsquery('simple', $1) ${readable}
      ORDER BY id DESC LIMIT ${RANKED_PER_SOURCE}) x`;
}

const MATCHES: Record<Source, string> = {
  1: newest(1, 'tasks', 'title_search'),
  2: newest(2, 'tasks', 'description_search'),
  3: newest(3, 'tasks', 'result_search'),
  4: newest(4, 'messages', 'text_search'),
  5: newest(5, 'reviews', 'note_search'),
  // read_log's rule: to all, by the reader, or addressed to it (a receipt names it).
  6: newest(6, 'room_messages', 'text_search', `AND (x.recipients = 'all' OR x.author = $4 OR EXISTS (SELECT 1 FROM room_receipts r WHERE r.agent = $4 AND r.message_id = x.id))`),
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
