// Full-text search on SQLite (issue 36): one FTS5 index kept by triggers (migration 016_search), ranked by bm25.
import type Database from 'better-sqlite3';
import type { SearchHit } from 'roundtable-shared';
import { RANKED_SQLITE, ROOM_SOURCE, toSearchHit, type SearchQuery, type SearchRow } from '../search-rows.js';

/** Every word quoted as an FTS5 string (a `"` doubled), so the MATCH text is a plain AND of phrases whatever it holds. */
export function ftsMatch(words: readonly string[]): string {
  return words.map((word) => `"${word.replace(/"/g, '""')}"`).join(' ');
}

/**
 * The newest RANKED_SQLITE matches of the sources asked for, ranked by bm25 (FTS5 walks a word's rows by rowid and
 * stops there); a room message only if the reader may read it (read_log's rule). The page is chosen from them, and
 * only its rows are read whole, by rowid (the excerpt is made from them, search-rows.ts).
 */
const STATEMENT = `WITH matches AS (
    SELECT rowid AS key, bm25(search_index) AS rank FROM search_index
    WHERE search_index MATCH @match
      AND ((1 << (rowid & 7)) & @sources) != 0
      AND ((rowid & 7) != ${ROOM_SOURCE} OR EXISTS (
        SELECT 1 FROM room_messages m WHERE m.id = (search_index.rowid >> 3)
          AND (m.recipients = 'all' OR m.author = @reader
               OR EXISTS (SELECT 1 FROM room_receipts r WHERE r.agent = @reader AND r.message_id = m.id))))
    ORDER BY rowid DESC LIMIT ${RANKED_SQLITE}
  ),
  page AS (SELECT key, rank FROM matches ORDER BY rank, key LIMIT @limit OFFSET @offset)
  SELECT page.key & 7 AS source, page.key >> 3 AS id, s.task_id, s.created_at, -page.rank AS score, s.body
  FROM page CROSS JOIN search_index s ON s.rowid = page.key
  ORDER BY page.rank, page.key`;

export class SqliteSearch {
  private readonly stmt: Database.Statement;

  constructor(db: Database.Database) {
    this.stmt = db.prepare(STATEMENT);
  }

  search(query: SearchQuery): SearchHit[] {
    const sources = query.sources.reduce((mask, source) => mask | (1 << source), 0);
    const rows = this.stmt.all({ match: ftsMatch(query.words), sources, reader: query.reader, limit: query.limit, offset: query.offset }) as SearchRow[];
    return rows.map((row) => toSearchHit(row, query.words));
  }
}
