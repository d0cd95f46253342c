// What needs a person now (issue 36): the page's "Needs me" list, from their role's rules and the store's rows.
// Each kind leaves the list when it is handled; SPEC §13 says exactly when.
import type { BoardStore } from '../store/store.js';
import { strandedScope } from './editing.js';
import { reviewScope, steersAll, type Caller } from './rules.js';

/** At most this many items of each kind; the counts say when there are more. */
export const NEEDS_PER_KIND = 50;
/** Lapsed claims are shown for a day after the lapse, unless someone claims, finishes or cancels the task first. */
export const LAPSED_SHOWN_MS = 24 * 3600_000;

export type NeedKind = 'review' | 'help' | 'message' | 'blocked' | 'lapsed';

/** One item: ids, names and times; `title` (the task's) and `text` (a message's first 200 characters) are board text. */
export interface NeedItem {
  readonly kind: NeedKind;
  readonly task_id?: number;
  readonly message_id?: number;
  readonly title?: string;
  readonly text?: string;
  /** Who submitted, asked, wrote or held the lapsed claim. */
  readonly who?: string;
  readonly at?: string;
}

export interface Needs {
  readonly items: readonly NeedItem[];
  /** Items of each kind, when a kind has more than NEEDS_PER_KIND only the first are listed. */
  readonly count: number;
}

export async function needsOf(store: BoardStore, caller: Caller, now = Date.now()): Promise<Needs> {
  const me = caller.agent.name;
  const reviews = reviewScope(caller);
  const steers = steersAll(caller);
  const [submitted, pending, rows] = await Promise.all([
    reviews === 'none' ? undefined : store.listTasks({ status: 'submitted', afterId: 0, limit: NEEDS_PER_KIND + 1 }),
    store.pendingFor({ agent: me, skills: [], claims: false, reviews, stranded: strandedScope(caller) }),
    store.needsOf({ agent: me, helpRequests: steers, lapsedSince: steers ? new Date(now - LAPSED_SHOWN_MS).toISOString() : null, limit: NEEDS_PER_KIND }),
  ]);
  const toReview = (submitted?.tasks ?? []).filter((t) => reviews === 'all' || t.assignee !== me).slice(0, NEEDS_PER_KIND);
  const items: NeedItem[] = [
    ...toReview.map((t) => ({ kind: 'review' as const, task_id: t.id, title: t.title, ...(t.assignee !== null && { who: t.assignee }), at: t.updated_at })),
    ...rows.helpRequests.map((r) => ({ kind: 'help' as const, task_id: r.task_id, title: r.title, who: r.author, at: r.at })),
    ...rows.messagesTo.map((m) => ({ kind: 'message' as const, message_id: m.id, text: m.text, who: m.author, at: m.at })),
    ...(pending.strandedTasks ?? []).slice(0, NEEDS_PER_KIND).map((id) => ({ kind: 'blocked' as const, task_id: id })),
    ...rows.lapsed.map((r) => ({ kind: 'lapsed' as const, task_id: r.task_id, title: r.title, who: r.agent, at: r.at })),
  ];
  const count = pending.toReview + rows.helpRequests.length + rows.messagesTo.length + (pending.strandedTasks?.length ?? 0) + rows.lapsed.length;
  return { items, count };
}
