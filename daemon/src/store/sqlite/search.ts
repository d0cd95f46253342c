// Full-text search on SQLite (issue 36): one FTS5 index kept by triggers (migration 016_search), ranked by bm25.
import type Database from 'better-sqlite3';
import type { SearchHit } from 'roundtable-shared';
import { RANKED_PER_SOURCE, ROOM_SOURCE, toSearchHit, type SearchQuery, type SearchRow, type Source } from '../search-rows.js';

/** Every word quoted as an FTS5 string (a `"` doubled), so the MATCH text is a plain AND of phrases whatever it holds. */
export function ftsMatch(words: readonly string[]): string {
  return words.map((word) => `"${word.replace(/"/g, '""')}"`).join(' ');
}

/** A source's newest matches with their bm25; a room message only if the reader may read it (read_log's rule). */
function matchesOf(source: Source): string {
  const readable =
    source === ROOM_SOURCE
      ? `AND EXISTS (SELECT 1 FROM room_messages m WHERE m.id = (search_index.rowid >> 3)
           AND (m.recipients = 'all' OR m.author = @reader
                OR EXISTS (SELECT 1 FROM room_receipts r WHERE r.agent = @reader AND r.message_id = m.id)))`
      : '';
  return `SELECT * FROM (SELECT rowid AS key, bm25(search_index) AS rank FROM search_index
    WHERE search_index MATCH @match AND (rowid & 7) = ${source} ${readable}
    ORDER BY rowid DESC LIMIT ${RANKED_PER_SOURCE})`;
}

/**
 * Each source's newest RANKED_PER_SOURCE matches are ranked (FTS5 walks a word's rows by rowid and stops there), the
 * page is chosen from them, and only its rows are read whole, by rowid (the excerpt is made from them, search-rows.ts).
 */
function statement(sources: readonly Source[]): string {
  return `WITH matches AS (${sources.map(matchesOf).join('\n  UNION ALL ')}),
    page AS (SELECT key, rank FROM matches ORDER BY rank, key LIMIT @limit OFFSET @offset)
  SELECT page.key & 7 AS source, page.key >> 3 AS id, s.task_id, s.created_at, -page.rank AS score, s.body
  FROM page CROSS JOIN search_index s ON s.rowid = page.key
  ORDER BY page.rank, page.key`;
}

export class SqliteSearch {
  /** One statement per set of sources (at most 63), prepared when first asked for. */
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  search(query: SearchQuery): SearchHit[] {
    const key = query.sources.join(',');
    let stmt = this.statements.get(key);
    if (!stmt) this.statements.set(key, (stmt = this.db.prepare(statement(query.sources))));
    const reader = query.sources.includes(ROOM_SOURCE) ? { reader: query.reader } : {};
    const rows = stmt.all({ match: ftsMatch(query.words), ...reader, limit: query.limit, offset: query.offset }) as SearchRow[];
    return rows.map((row) => toSearchHit(row, query.words));
  }
}
