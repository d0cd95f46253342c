// What both stores' full-text search shares (issue 36): the query as plain words, the sources a hit comes from, and
// the shaping of a hit. The words are cut from the user's text here, so no operator of FTS5 or tsquery reaches either parser.
import { SEARCH_MARK, type SearchHit, type SearchScope } from 'roundtable-shared';

/** Where a hit's text lives; SQLite's index keys a row by source id * 8 + this number (migration 016_search). */
export const SOURCES = {
  1: { kind: 'task', field: 'title', scope: 'tasks' },
  2: { kind: 'task', field: 'description', scope: 'tasks' },
  3: { kind: 'task', field: 'result', scope: 'tasks' },
  4: { kind: 'message', field: 'text', scope: 'messages' },
  5: { kind: 'review', field: 'note', scope: 'reviews' },
  6: { kind: 'room', field: 'text', scope: 'room' },
} as const satisfies Record<number, { kind: SearchHit['kind']; field: SearchHit['field']; scope: SearchScope }>;
export type Source = keyof typeof SOURCES;
export const ROOM_SOURCE: Source = 6;

/** The sources a search looks in, from the scopes asked for. */
export function sourcesOf(scopes: readonly SearchScope[]): Source[] {
  return (Object.keys(SOURCES).map(Number) as Source[]).filter((source) => scopes.includes(SOURCES[source].scope));
}

/**
 * How many matches are ranked, the newest first, so a very common word costs bounded ranking work instead of one rank
 * per row of the board (bm25 of every match took 2.2 s for a word in most of a million rows). PostgreSQL ranks each
 * source's newest RANKED_PER_SOURCE (an index scan per table); SQLite's one index ranks its newest RANKED_SQLITE
 * matches by rowid (source id * 8 + source), one pass: per source it walked the word's whole list six times. Neither
 * is below LIMITS.searchDepth, so every page stays reachable; a word found in fewer places is ranked whole.
 */
export const RANKED_PER_SOURCE = 2_000;
export const RANKED_SQLITE = 10_000;

/** Most words a query keeps: a longer query adds nothing a person could mean and only costs the index work. */
const MAX_WORDS = 16;

/**
 * The query's words: runs of letters, digits and marks, lower-cased, each once, in order. Both indexes split text the
 * same way (unicode61 on SQLite; on PostgreSQL the text is split at every other character before `simple` reads it),
 * so every punctuation or operator character (`"`, `*`, `:`, `(`, `!`, `&`, `|`) only separates words, and AND, OR,
 * NOT and NEAR are plain words.
 */
export function queryWords(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}\p{M}]+/gu) ?? [];
  return [...new Set(words)].slice(0, MAX_WORDS);
}

export interface SearchQuery {
  /** From queryWords: never empty. Every word must match. */
  readonly words: readonly string[];
  readonly sources: readonly Source[];
  /** Whose room messages may be found: those to all, by it, or addressed to it (a receipt names it), as read_log. */
  readonly reader: string;
  readonly offset: number;
  readonly limit: number;
}

/** A hit as a store reads it, before shaping: `body` is the whole text the hit was found in. */
export interface SearchRow {
  readonly source: number;
  readonly id: number;
  readonly task_id: number | null;
  readonly created_at: string;
  readonly body: string | null;
  readonly score: number;
}

/** Words shown before the first match, and in all. */
const WORDS_BEFORE = 6;
const WORDS_SHOWN = 20;
/** An excerpt's most characters: one word may be as long as the text, and an excerpt stays short. */
const EXCERPT_MAX = 300;

/**
 * A short excerpt around the first matched word, each matched word between SEARCH_MARK's marks. Made here for both
 * stores from the text and the query's words, split as the indexes split it, so both give the same excerpt (ts_headline's
 * parser would not mark `app` in `src/app.ts`, which the index finds).
 */
export function excerptOf(text: string, words: readonly string[]): string {
  const tokens = [...text.matchAll(/[\p{L}\p{N}\p{M}]+/gu)];
  const wanted = new Set(words);
  const first = Math.max(0, tokens.findIndex((t) => wanted.has(t[0].toLowerCase())));
  const from = Math.max(0, first - WORDS_BEFORE);
  const to = Math.min(tokens.length, from + WORDS_SHOWN);
  const start = from === 0 ? 0 : tokens[from]!.index;
  const end = to === tokens.length ? text.length : tokens[to - 1]!.index + tokens[to - 1]![0].length;
  let marked = '';
  let at = start;
  for (const token of tokens.slice(from, to)) {
    if (!wanted.has(token[0].toLowerCase())) continue;
    marked += `${text.slice(at, token.index)}${SEARCH_MARK.start}${token[0]}${SEARCH_MARK.end}`;
    at = token.index + token[0].length;
  }
  marked += text.slice(at, end);
  let line = marked.replace(/\s+/g, ' ').trim();
  if (line.length > EXCERPT_MAX) {
    line = line.slice(0, EXCERPT_MAX);
    // Never end inside a mark: a cut mark is dropped whole.
    const open = line.lastIndexOf(SEARCH_MARK.start);
    if (open > line.lastIndexOf(SEARCH_MARK.end)) line = line.slice(0, open);
  }
  return `${from > 0 ? '...' : ''}${line}${end < text.length || line.length >= EXCERPT_MAX ? '...' : ''}`;
}

export function toSearchHit(row: SearchRow, words: readonly string[]): SearchHit {
  const source = SOURCES[row.source as Source];
  const carriesMessage = source.kind === 'message' || source.kind === 'room';
  return {
    kind: source.kind,
    task_id: row.task_id === null ? null : Number(row.task_id),
    message_id: carriesMessage ? Number(row.id) : null,
    field: source.field,
    excerpt: excerptOf(row.body ?? '', words),
    // Higher is better on both stores (SQLite's bm25 is negated); six significant digits say all the order needs.
    score: Number(Number(row.score).toPrecision(6)),
    created_at: row.created_at,
  };
}
