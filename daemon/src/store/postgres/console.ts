// The page's console reads on PostgreSQL (issue 36): the "Needs me" rows and the history behind the progress charts,
// the same SQL as SQLite's (console-sql.ts), its :names turned into $n.
import { COUNTS_BEFORE, COUNTS_PER_DAY, CYCLES, HELP_REQUESTS, LAPSED, MESSAGES_TO, WIP, newestPerTask } from '../console-sql.js';
import type { NeedsQuery, NeedsRows, ProgressRows } from '../store.js';
import type { Tx } from './connection.js';

/** `:name` placeholders to `$n`, in order of first use, with the values to pass. */
function positional(text: string, values: Record<string, string | number>): [string, Array<string | number>] {
  const names: string[] = [];
  const query = text.replace(/:([a-z]+)/g, (_match, name: string) => {
    if (!(name in values)) throw new Error(`console SQL: no value for :${name}`);
    if (!names.includes(name)) names.push(name);
    return `$${names.indexOf(name) + 1}`;
  });
  return [query, names.map((name) => values[name]!)];
}

async function rows<R>(tx: Tx, text: string, values: Record<string, string | number> = {}): Promise<R[]> {
  const [query, params] = positional(text, values);
  return [...(await tx.unsafe(query, params))] as unknown as R[];
}

export async function needsOf(tx: Tx, query: NeedsQuery): Promise<NeedsRows> {
  const { agent, limit } = query;
  const [helpRequests, messagesTo, lapsed] = [
    query.helpRequests ? await rows<NeedsRows['helpRequests'][number]>(tx, HELP_REQUESTS, { limit }) : [],
    await rows<NeedsRows['messagesTo'][number]>(tx, MESSAGES_TO, { agent, limit }),
    query.lapsedSince === null ? [] : await rows<NeedsRows['lapsed'][number]>(tx, LAPSED, { since: query.lapsedSince, limit }),
  ];
  return { helpRequests, messagesTo: messagesTo.map((m) => ({ ...m, id: Number(m.id) })), lapsed: newestPerTask(lapsed) };
}

export async function progressRows(tx: Tx, fromDay: string): Promise<ProgressRows> {
  const before: Record<string, number> = {};
  for (const row of await rows<{ action: string; n: string }>(tx, COUNTS_BEFORE, { from: fromDay })) before[row.action] = Number(row.n);
  const days = await rows<{ day: string; created: string; cancelled: string; done: string }>(tx, COUNTS_PER_DAY, { from: fromDay });
  const cycles = await rows<ProgressRows['cycles'][number]>(tx, CYCLES, { from: fromDay });
  const wip = await rows<{ agent: string; claimed: string }>(tx, WIP);
  return {
    before: { created: before['created'] ?? 0, cancelled: before['cancelled'] ?? 0, done: before['approved'] ?? 0 },
    days: days.map((d) => ({ day: d.day, created: Number(d.created), cancelled: Number(d.cancelled), done: Number(d.done) })),
    cycles,
    wip: wip.map((w) => ({ agent: w.agent, claimed: Number(w.claimed) })),
  };
}
