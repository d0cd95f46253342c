// Full-text search on SQLite (issue 36): one FTS5 index kept by triggers (migration 016_search), ranked by bm25.
import type Database from 'better-sqlite3';
import type { SearchHit } from 'roundtable-shared';
import { ROOM_SOURCE, toSearchHit, type SearchQuery, type SearchRow } from '../search-rows.js';

/** Every word quoted as an FTS5 string (a `"` doubled), so the MATCH text is a plain AND of phrases whatever it holds. */
export function ftsMatch(words: readonly string[]): string {
  return words.map((word) => `"${word.replace(/"/g, '""')}"`).join(' ');
}

export class SqliteSearch {
  private readonly stmt;

  constructor(db: Database.Database) {
    // The page is chosen first (bm25 of every match), then only its rows are read whole, by rowid (the excerpt is made
    // from them, search-rows.ts). A room message counts only if the reader may read it (read_log's rule).
    this.stmt = db.prepare(
      `WITH page AS (
         SELECT rowid AS key, bm25(search_index) AS rank FROM search_index
         WHERE search_index MATCH @match
           AND ((1 << (rowid & 7)) & @sources) != 0
           AND ((rowid & 7) != ${ROOM_SOURCE} OR EXISTS (
             SELECT 1 FROM room_messages m WHERE m.id = (search_index.rowid >> 3)
               AND (m.recipients = 'all' OR m.author = @reader
                    OR EXISTS (SELECT 1 FROM room_receipts r WHERE r.agent = @reader AND r.message_id = m.id))))
         ORDER BY rank, rowid LIMIT @limit OFFSET @offset
       )
       SELECT page.key & 7 AS source, page.key >> 3 AS id, s.task_id, s.created_at, -page.rank AS score, s.body
       FROM page CROSS JOIN search_index s ON s.rowid = page.key
       ORDER BY page.rank, page.key`,
    );
  }

  search(query: SearchQuery): SearchHit[] {
    const sources = query.sources.reduce((mask, source) => mask | (1 << source), 0);
    const rows = this.stmt.all({ match: ftsMatch(query.words), sources, reader: query.reader, limit: query.limit, offset: query.offset }) as SearchRow[];
    return rows.map((row) => toSearchHit(row, query.words));
  }
}
