// The event log on PostgreSQL (migration 008). Rows are appended inside the change's own transaction. Several daemons
// write at once and a transaction may commit after one that took a later id, so readers go in (xid, id) order and
// only below pg_snapshot_xmin: every transaction that could still add a row there has ended, so a position once passed
// never gains a row before it. A long-running writing transaction holds readers back until it ends (docs/SPEC.md).
import type { LoggedEvent } from '../../events.js';
import { log } from '../../runtime/log.js';
import { activityConditions, LOG_START, PRUNE_EVERY, type ActivityFilter, type EventPage, type EventRetention, type LogEntry, type LogPosition } from '../event-log.js';
import { num, type Db, type Sql, type Tx } from './connection.js';

const XMIN = 'pg_snapshot_xmin(pg_current_snapshot())';

interface Row {
  readonly id: unknown;
  readonly xid: string;
  readonly at: Date | string;
  readonly event: string;
}

const position = (row: { readonly xid: string; readonly id: unknown }): LogPosition => ({ xid: row.xid, id: num(row.id) });

/** Inside the change's transaction; returns whether retention is due (a row id reached a multiple of PRUNE_EVERY). */
export async function appendEvents(tx: Tx, events: readonly LoggedEvent[]): Promise<boolean> {
  // Sent together, in order (the pool pipelines a transaction's statements): one round trip for all of them.
  const rows = await Promise.all(
    events.map((event) => {
      const taskId = event.type === 'task' ? event.task.id : event.type === 'task_message' ? event.task_id : null;
      return tx<Array<{ id: unknown }>>`INSERT INTO event_log (kind, task_id, event) VALUES (${event.type}, ${taskId}, ${JSON.stringify(event)}) RETURNING id`;
    }),
  );
  return rows.some(([row]) => num(row!.id) % PRUNE_EVERY === 0);
}

/** The rows after a position, with the retention mark, in one snapshot (the caller's REPEATABLE READ transaction). */
export async function readEvents(tx: Tx, after: LogPosition, limit: number): Promise<EventPage> {
  const [state] = await tx<Array<{ pruned_xid: string; pruned_id: unknown; held: boolean; newest_xid: string | null; newest_id: unknown }>>`
    SELECT pruned_xid::text, pruned_id,
      EXISTS (SELECT 1 FROM event_log WHERE xid >= pg_snapshot_xmin(pg_current_snapshot()) AND (xid, id) > (${after.xid}::xid8, ${after.id}::bigint)) AS held,
      newest.xid::text AS newest_xid, newest.id AS newest_id
    FROM event_log_state LEFT JOIN LATERAL (SELECT xid, id FROM event_log ORDER BY xid DESC, id DESC LIMIT 1) newest ON true`;
  const rows = await tx.unsafe<Row[]>(
    `SELECT id, xid::text AS xid, at, event FROM event_log WHERE (xid, id) > ($1::xid8, $2::bigint) AND xid < ${XMIN} ORDER BY xid, id LIMIT $3`,
    [after.xid, after.id, limit + 1],
    { prepare: true },
  );
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : [...rows];
  const pruned = { xid: state!.pruned_xid, id: num(state!.pruned_id) };
  const newest = state!.newest_xid === null ? pruned : { xid: state!.newest_xid, id: num(state!.newest_id) };
  return {
    entries: page.map(entryOf),
    end: page.length > 0 ? position(page.at(-1)!) : after,
    more,
    // Past the newest row: a cursor from another copy of the board (a restored dump); reading on would skip.
    expired: before(after, pruned) || before(newest, after),
    held: state!.held,
  };
}

/** The Activity timeline's conditions (the virtual columns of migration 016); $1, $2 are the position, $3 the limit. */
const ACTIVITY_SQL = {
  actor: (n: number) => `actor = $${n}`,
  action: (n: number) => `action = $${n}`,
  since: (n: number) => `at >= $${n}::timestamptz`,
  until: (n: number) => `at < $${n}::timestamptz`,
} as const;

/** Rows before a position that pass the filter, newest first; only below xmin, as readEvents reads, so the two meet. */
export async function readEventsBefore(db: Db, before: LogPosition, limit: number, filter: ActivityFilter): Promise<LogEntry[]> {
  const keys = activityConditions(filter);
  const where = keys.map((key, i) => ACTIVITY_SQL[key](i + 4));
  const rows = await db.unsafe<Row[]>(
    `SELECT id, xid::text AS xid, at, event FROM event_log WHERE (xid, id) < ($1::xid8, $2::bigint) AND xid < ${XMIN}${where.map((w) => ` AND ${w}`).join('')}
     ORDER BY xid DESC, id DESC LIMIT $3`,
    [before.xid, before.id, limit, ...keys.map((key) => filter[key]!)] as never[],
    { prepare: true },
  );
  return rows.map(entryOf);
}

export async function eventLogHead(db: Db): Promise<LogPosition> {
  const [row] = await db.unsafe<Array<{ xid: string; id: unknown }>>(
    `SELECT xid::text AS xid, id FROM event_log WHERE xid < ${XMIN} ORDER BY xid DESC, id DESC LIMIT 1`,
    [],
    { prepare: true },
  );
  if (row) return position(row);
  const [state] = await db<Array<{ xid: string; id: unknown }>>`SELECT pruned_xid::text AS xid, pruned_id AS id FROM event_log_state`;
  return state && num(state.id) > 0 ? position(state) : LOG_START;
}

export async function eventLogSecret(db: Db): Promise<Buffer> {
  const [row] = await db<Array<{ secret: Buffer }>>`SELECT secret FROM event_log_state`;
  return row!.secret;
}

/**
 * Deletes a prefix of the log: up to the newest row, below xmin, that is past the count (the newest id less maxRows)
 * or older than maxAgeMs. Run after the commit that made it due, in a transaction of its own; a failure only delays it.
 */
export async function pruneEvents(sql: Sql, retention: EventRetention): Promise<void> {
  try {
    await sql.begin(async (tx: Tx) => {
      const cutoff = new Date(Date.now() - retention.maxAgeMs).toISOString();
      const candidates = await tx.unsafe<Array<{ xid: string; id: unknown }>>(
        `(SELECT xid::text AS xid, id FROM event_log WHERE id <= (SELECT max(id) FROM event_log) - $1 AND xid < ${XMIN} ORDER BY id DESC LIMIT 1)
         UNION ALL
         (SELECT xid::text AS xid, id FROM event_log WHERE at < $2 AND xid < ${XMIN} ORDER BY at DESC LIMIT 1)`,
        [retention.maxRows, cutoff],
      );
      const through = candidates.map(position).sort((a, b) => (before(a, b) ? 1 : -1))[0];
      if (!through) return;
      await tx`DELETE FROM event_log WHERE (xid, id) <= (${through.xid}::xid8, ${through.id}::bigint)`;
      await tx`UPDATE event_log_state SET pruned_xid = ${through.xid}::xid8, pruned_id = ${through.id}
        WHERE (pruned_xid, pruned_id) < (${through.xid}::xid8, ${through.id}::bigint)`;
    });
  } catch (error) {
    log.warn('trimming the event log failed; it is tried again after later writes', { error: String(error) });
  }
}

function before(a: LogPosition, b: LogPosition): boolean {
  const ax = BigInt(a.xid);
  const bx = BigInt(b.xid);
  return ax < bx || (ax === bx && a.id < b.id);
}

function entryOf(row: Row): LogEntry {
  return { position: position(row), event: JSON.parse(row.event) as LoggedEvent, at: new Date(row.at).toISOString() };
}
