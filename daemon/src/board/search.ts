// The search tool's rule (issue 36): the caller's words become plain terms, and each caller finds only what it may
// read. Every role reads every task, its messages and reviews (get_task); a room message only as read_log shows it.
import { LIMITS, SEARCH_SCOPES, type search, type ToolInput, type ToolOutput } from 'roundtable-shared';
import type { Agent } from '../agents/directory.js';
import type { BoardStore } from '../store/store.js';
import { queryWords, sourcesOf } from '../store/search-rows.js';
import { warning } from './context.js';
import { decodeSearchCursor, encodeSearchCursor } from './cursor.js';

/** One page of hits for `agent`; a query with no word in it (only punctuation or operators) finds nothing, never fails. */
export async function searchBoard(store: BoardStore, agent: Agent, input: ToolInput<typeof search>): Promise<ToolOutput<typeof search>> {
  const offset = input.cursor === undefined ? 0 : decodeSearchCursor(input.cursor);
  const words = queryWords(input.query);
  // Pages stop at the depth: past it a person narrows the query rather than paging on.
  const limit = Math.min(input.limit ?? LIMITS.searchDefault, LIMITS.searchDepth - offset);
  if (words.length === 0) return { hits: [], next_cursor: null, ...warning };
  const found = await store.search({ words, sources: sourcesOf(input.in ?? SEARCH_SCOPES), reader: agent.name, offset, limit: limit + 1 });
  const more = found.length > limit && offset + limit < LIMITS.searchDepth;
  return { hits: found.slice(0, limit), next_cursor: more ? encodeSearchCursor(offset + limit) : null, ...warning };
}
