// The board-wide Activity timeline (issue 36): the event log newest first, filtered by agent, kind and time, as the
// viewer may see it (a room message to others is left out, as the event stream leaves it out). Its cursors are the
// event stream's own signed ids, so a page resumes from the stream's Last-Event-ID as well as from its own head.
import type { Agent } from '../agents/directory.js';
import { decodeChangeCursor, encodeChangeCursor } from '../board/change-cursor.js';
import { InvalidInput } from '../errors.js';
import type { LoggedEvent } from '../events.js';
import { comparePositions, type ActivityFilter, type LogEntry, type LogPosition } from '../store/event-log.js';
import type { BoardStore } from '../store/store.js';
import { isoTimeOf, nameOf, pageSizeOf, type QueryText } from './history-query.js';

export const ACTIVITY_PAGE = 50;
export const ACTIVITY_PAGE_MAX = 200;
/** A page whose rows are mostly others' private room messages reads the log at most this many times, then hands a cursor back. */
const MAX_READS = 8;
const KIND = /^[a-z][a-z_]{0,39}$/;
const MAX_KINDS = 20;

/** One row of the timeline: names, ids and states only (the log holds no board text). */
export interface ActivityItem {
  /** Where this row is; `before` it reads on, older. */
  readonly cursor: string;
  readonly at: string | null;
  readonly kind: LoggedEvent['type'];
  /** A task event's action (created, claimed, submitted, ...); task_message; room. */
  readonly action: string;
  readonly actor: string;
  readonly task_id: number | null;
  readonly status?: string;
  readonly assignee?: string | null;
  readonly submitter?: string | null;
  readonly message_id?: number;
  readonly to?: 'all' | readonly string[];
}

export interface ActivityPage {
  /** Newest first. */
  readonly items: ActivityItem[];
  /** The older page (`before=`); null when the log (as filtered) has nothing older. */
  readonly next: string | null;
  /** Where newer rows start (`after=`): the log's head on a first page, the end of what was read on a live read. */
  readonly head: string | null;
  /** A live read: more rows follow, or (PostgreSQL) a transaction still running holds some back; read again shortly. */
  readonly more?: boolean;
  /** The cursor is older than what the log keeps, or from another copy of the board: read the first page again. */
  readonly resync?: boolean;
}

/** Who acted: the same as the virtual column `actor` of SQLite 017 and PostgreSQL 016. */
export function actorOf(event: LoggedEvent): string {
  return event.type === 'task' ? event.actor : event.type === 'task_message' ? event.author : event.from;
}

/** The activity kind: the same as the virtual column `action`. */
export function actionOf(event: LoggedEvent): string {
  return event.type === 'task' ? event.action : event.type;
}

/** As the event stream decides (event-stream.ts): a room message to named agents is seen by its sender and them. */
export function seenBy(event: LoggedEvent, viewer: string): boolean {
  return event.type !== 'room' || event.to === 'all' || event.from === viewer || event.to.includes(viewer);
}

interface ActivityQuery {
  readonly before?: string;
  readonly after?: string;
  readonly limit: number;
  /** The filter but for the kinds: each kind is its own read (store/event-log.ts ActivityFilter). */
  readonly filter: Omit<ActivityFilter, 'action'>;
  readonly kinds?: readonly string[];
}

export function parseActivityQuery(query: QueryText): ActivityQuery {
  const before = query['before'];
  const after = query['after'];
  if (before !== undefined && after !== undefined) throw new InvalidInput('before, after: send one of them (before pages back, after reads what is newer)');
  const kinds = query['kind']?.split(',').filter((k) => k !== '');
  if (kinds && (kinds.length > MAX_KINDS || !kinds.every((k) => KIND.test(k)))) {
    throw new InvalidInput(`kind: send up to ${MAX_KINDS} kinds separated by commas, each a task action (created, claimed, submitted, ...) or task_message or room`);
  }
  const actor = nameOf(query, 'agent');
  const since = isoTimeOf(query, 'since');
  const until = isoTimeOf(query, 'until');
  return {
    ...(before !== undefined && { before }),
    ...(after !== undefined && { after }),
    limit: pageSizeOf(query, ACTIVITY_PAGE, ACTIVITY_PAGE_MAX),
    filter: { ...(actor !== undefined && { actor }), ...(since && { since }), ...(until && { until }) },
    ...(kinds && kinds.length > 0 && { kinds: [...new Set(kinds)] }),
  };
}

export class ActivityFeed {
  constructor(private readonly store: Pick<BoardStore, 'readEventsBefore' | 'readEvents' | 'eventLogHead' | 'eventLogSecret'>) {}

  async read(viewer: Agent, text: QueryText): Promise<ActivityPage> {
    const query = parseActivityQuery(text);
    const secret = await this.store.eventLogSecret();
    const decode = (field: 'before' | 'after', cursor: string): LogPosition => {
      try {
        return decodeChangeCursor(secret, cursor);
      } catch {
        throw new InvalidInput(`${field}: not a cursor this board gave (altered, or from another board); leave it out to read the newest page`);
      }
    };
    if (query.after !== undefined) return this.newer(viewer, decode('after', query.after), query, secret);
    const head = query.before === undefined ? await this.store.eventLogHead() : undefined;
    // The first page ends at the head it names, so reading `after` it later misses nothing and repeats nothing.
    let at = head ? { xid: head.xid, id: head.id + 1 } : decode('before', query.before!);
    const items: ActivityItem[] = [];
    let exhausted = false;
    for (let reads = 0; reads < MAX_READS && items.length < query.limit && !exhausted; reads++) {
      const rows = await this.before(at, query);
      exhausted = rows.length < query.limit;
      for (const [i, row] of rows.entries()) {
        at = row.position;
        if (seenBy(row.event, viewer.name)) items.push(itemOf(row, secret));
        if (items.length === query.limit) {
          if (i < rows.length - 1) exhausted = false;
          break;
        }
      }
    }
    return { items, next: exhausted ? null : encodeChangeCursor(secret, at), head: head ? encodeChangeCursor(secret, head) : null };
  }

  /** One read per kind asked for, each in its index's order, merged: the newest `limit` rows of them all. */
  private async before(at: LogPosition, query: ActivityQuery): Promise<LogEntry[]> {
    if (!query.kinds) return this.store.readEventsBefore(at, query.limit, query.filter);
    const reads = await Promise.all(query.kinds.map((action) => this.store.readEventsBefore(at, query.limit, { ...query.filter, action })));
    return reads
      .flat()
      .sort((a, b) => comparePositions(b.position, a.position))
      .slice(0, query.limit);
  }

  /** What was written after a cursor (a live page's catch-up), newest first, filtered as the first page was. */
  private async newer(viewer: Agent, from: LogPosition, query: ActivityQuery, secret: Buffer): Promise<ActivityPage> {
    const page = await this.store.readEvents(from, query.limit);
    if (page.expired) return { items: [], next: null, head: encodeChangeCursor(secret, await this.store.eventLogHead()), resync: true };
    const items = page.entries.filter((row) => seenBy(row.event, viewer.name) && matches(row, query)).map((row) => itemOf(row, secret));
    return { items: items.reverse(), next: null, head: encodeChangeCursor(secret, page.end), more: page.more || page.held };
  }
}

function matches(row: LogEntry, { filter, kinds }: ActivityQuery): boolean {
  if (filter.actor !== undefined && actorOf(row.event) !== filter.actor) return false;
  if (kinds !== undefined && !kinds.includes(actionOf(row.event))) return false;
  if (row.at !== undefined && filter.since !== undefined && row.at < filter.since) return false;
  if (row.at !== undefined && filter.until !== undefined && row.at >= filter.until) return false;
  return true;
}

function itemOf(row: LogEntry, secret: Buffer): ActivityItem {
  const event = row.event;
  const base = { cursor: encodeChangeCursor(secret, row.position), at: row.at ?? null, kind: event.type, action: actionOf(event), actor: actorOf(event) };
  switch (event.type) {
    case 'task':
      return {
        ...base,
        task_id: event.task.id,
        status: event.task.status,
        assignee: event.task.assignee,
        ...(event.submitter !== undefined && { submitter: event.submitter }),
      };
    case 'task_message':
      return { ...base, task_id: event.task_id };
    case 'room':
      return { ...base, task_id: null, message_id: event.message_id, to: event.to };
  }
}
