// What is pending for the agent, as ids and counts only: the items a wake is about, and the environment CMD gets.
import type { WaitCategory } from 'roundtable-shared';
import type { BoardClient } from '../board-client.js';

/** The wait's answer: counts for all three categories, and the reviews it reported (when it waited for them). */
export interface WaitAnswer {
  readonly unread_messages: number;
  readonly claimable_tasks: number;
  readonly to_review: number;
  readonly reviews: ReadonlyArray<{ task_id: number; verdict: string; created_at: string }>;
  /** Tasks the agent must fix because a blocker was cancelled (the leader's; a peer's own); absent from older boards. */
  readonly stranded_tasks?: readonly number[];
  /** The change cursor to wait from next; absent from boards older than change cursors. */
  readonly cursor?: string;
  /** With since: the changes after it that concern the agent. */
  readonly changes?: readonly string[];
}

export interface Pending {
  /** The first page of them (at most PAGE ids); claimable counts them all. */
  readonly claimableIds: number[];
  readonly claimable: number;
  readonly toReviewIds: number[];
  readonly toReview: number;
  readonly unread: number;
  /** Task ids of reviews of the agent's work reported by this wait. */
  readonly reviewedIds: number[];
  /** Tasks stranded by a cancelled blocker, for the agent to edit. */
  readonly strandedIds: number[];
  /** One key per pending item: a wake runs CMD only for keys it has not run it for. */
  readonly keys: Set<string>;
}

const PAGE = 100;

/** Looks up the ids behind the counts, for the categories the wake watches; no call for a count of zero. */
export async function collectPending(client: BoardClient, me: string, answer: WaitAnswer, watched: readonly WaitCategory[]): Promise<Pending> {
  const tasks = watched.includes('tasks');
  const messages = watched.includes('messages');
  const [claimable, submitted, log] = await Promise.all([
    tasks && answer.claimable_tasks > 0 ? client.callTool('list_tasks', { claimable_by_me: true, limit: PAGE }) : undefined,
    tasks && answer.to_review > 0 ? client.callTool('list_tasks', { status: 'submitted', limit: PAGE }) : undefined,
    messages && answer.unread_messages > 0 ? client.callTool('read_log', { limit: 20 }) : undefined,
  ]);
  // Only ids and names are read from these answers; titles and texts are never looked at.
  const claimableIds = idsOf(claimable?.['tasks']);
  const toReviewIds = idsOf(submitted?.['tasks'], (t) => t['assignee'] !== me);
  const claimableCount = tasks ? trueCount(answer.claimable_tasks, claimableIds, claimable) : 0;
  const toReviewCount = tasks ? trueCount(answer.to_review, toReviewIds, submitted) : 0;
  const unread = messages ? answer.unread_messages : 0;
  const reviewedIds = watched.includes('reviews') ? answer.reviews.map((r) => r.task_id) : [];
  const strandedIds = tasks ? [...(answer.stranded_tasks ?? [])] : [];
  const keys = new Set<string>();
  for (const id of claimableIds) keys.add(`claimable:${id}`);
  for (const id of toReviewIds) keys.add(`review:${id}`);
  for (const id of strandedIds) keys.add(`stranded:${id}`);
  for (const r of watched.includes('reviews') ? answer.reviews : []) keys.add(`reviewed:${r.task_id}:${r.created_at}`);
  // With a cursor the board names each new change: one to a task past the page of ids listed (100 already pending,
  // say) is still a new item. Only then: with the whole list in hand, a change to a task no longer listed is one the
  // agent no longer has to do (it claimed the new task itself before this look, say), not a new item.
  const partial = claimableCount > claimableIds.length || toReviewCount > toReviewIds.length;
  if (tasks && partial) {
    const listed = new Set([...keys].map((key) => key.split(':')[1]));
    for (const change of answer.changes ?? []) {
      const [kind, id, action] = change.split(':');
      if (kind === 'task' && id !== undefined && /^\d+$/.test(id) && !listed.has(id)) keys.add(`changed:${id}:${action ?? ''}`);
    }
  }
  if (unread > 0) {
    // The newest message to the agent stands for the unread batch: a new message makes a new key.
    const newest = idsOf(log?.['messages'], (m) => m['from'] !== me)[0];
    keys.add(`messages:${newest ?? `count-${unread}`}`);
  }
  return { claimableIds, claimable: claimableCount, toReviewIds, toReview: toReviewCount, unread, reviewedIds, strandedIds, keys };
}

/** The variables CMD gets: ids, counts, the batch number and the agent's name (agents.json). Nothing else from the board. */
export function wakeEnv(pending: Pending, info: { agent: string; batch: number; newTaskIds: number[] }): Record<string, string> {
  return {
    ROUNDTABLE_WAKE_AGENT: info.agent,
    ROUNDTABLE_WAKE_BATCH: String(info.batch),
    ROUNDTABLE_WAKE_CLAIMABLE: String(pending.claimable),
    ROUNDTABLE_WAKE_CLAIMABLE_IDS: pending.claimableIds.join(','),
    ROUNDTABLE_WAKE_TO_REVIEW: String(pending.toReview),
    ROUNDTABLE_WAKE_TO_REVIEW_IDS: pending.toReviewIds.join(','),
    ROUNDTABLE_WAKE_UNREAD: String(pending.unread),
    ROUNDTABLE_WAKE_REVIEWS: String(pending.reviewedIds.length),
    ROUNDTABLE_WAKE_REVIEWED_IDS: pending.reviewedIds.join(','),
    ROUNDTABLE_WAKE_NEW_TASK_IDS: info.newTaskIds.join(','),
    ROUNDTABLE_WAKE_STRANDED: String(pending.strandedIds.length),
    ROUNDTABLE_WAKE_STRANDED_IDS: pending.strandedIds.join(','),
  };
}

/**
 * How many there are: the listed ids when the list was whole (no next page), else the board's count from the wait,
 * which counts past the one page listed (never fewer than the ids seen).
 */
function trueCount(counted: number, ids: readonly number[], page: Record<string, unknown> | undefined): number {
  if (page === undefined) return 0;
  return page['next_cursor'] ? Math.max(counted, ids.length) : ids.length;
}

function idsOf(list: unknown, keep: (item: Record<string, unknown>) => boolean = () => true): number[] {
  if (!Array.isArray(list)) return [];
  return (list as Array<Record<string, unknown>>)
    .filter((item) => Number.isInteger(item['id']) && keep(item))
    .map((item) => item['id'] as number);
}
