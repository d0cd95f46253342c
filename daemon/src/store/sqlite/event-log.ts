// The event log on SQLite (migration 011): rows appended inside the change's own savepoint, so a change and its event
// commit or roll back together; one writer, so ids are commit order. Retention deletes a prefix now and then.
import type Database from 'better-sqlite3';
import type { LoggedEvent } from '../../events.js';
import { activityConditions, LOG_START, PRUNE_EVERY, type ActivityFilter, type EventPage, type EventRetention, type LogEntry, type LogPosition } from '../event-log.js';

interface Row {
  readonly id: number;
  readonly at: string;
  readonly event: string;
}

/**
 * The Activity timeline's conditions on SQLite. A time bound also bounds the rowid through the `at` index (one writer:
 * ids and times rise together), so a window far back is a range, not a scan; `+at` keeps the planner on the rowid. The
 * upper bounds are one expression: given two, SQLite ranges on one and only filters by the other.
 */
const ACTIVITY_SQL = {
  actor: 'actor = @actor',
  action: 'action = @action',
  since: '+at >= @since AND id >= coalesce((SELECT id FROM event_log WHERE at >= @since ORDER BY at, id LIMIT 1), 9e18)',
  until: '+at < @until',
} as const;
const UNTIL_ID = 'coalesce((SELECT id FROM event_log WHERE at < @until ORDER BY at DESC, id DESC LIMIT 1), 0) + 1';

const position = (id: number): LogPosition => ({ xid: '0', id });

export class SqliteEventLog {
  private readonly stmt;
  /** One prepared statement per combination of filters, made when first asked (at most 16). */
  private readonly before = new Map<string, Database.Statement>();

  constructor(
    private readonly db: Database.Database,
    private readonly retention: EventRetention,
  ) {
    this.stmt = {
      append: db.prepare('INSERT INTO event_log (at, kind, task_id, event) VALUES (?, ?, ?, ?)'),
      after: db.prepare('SELECT id, at, event FROM event_log WHERE id > ? ORDER BY id LIMIT ?'),
      head: db.prepare('SELECT max(id) FROM event_log').pluck(),
      pruned: db.prepare('SELECT pruned_through FROM event_log_state').pluck(),
      secret: db.prepare('SELECT secret FROM event_log_state').pluck(),
      lastOlderThan: db.prepare('SELECT max(id) FROM event_log WHERE at < ?').pluck(),
      prune: db.prepare('DELETE FROM event_log WHERE id <= ?'),
      markPruned: db.prepare('UPDATE event_log_state SET pruned_through = max(pruned_through, ?)'),
    };
  }

  /** Inside the caller's write: one row per event, and retention every PRUNE_EVERY rows. */
  append(events: readonly LoggedEvent[]): void {
    const at = new Date().toISOString();
    for (const event of events) {
      const taskId = event.type === 'task' ? event.task.id : event.type === 'task_message' ? event.task_id : null;
      const id = Number(this.stmt.append.run(at, event.type, taskId, JSON.stringify(event)).lastInsertRowid);
      if (id % PRUNE_EVERY === 0) this.prune(id);
    }
  }

  private prune(newest: number): void {
    const byAge = (this.stmt.lastOlderThan.get(new Date(Date.now() - this.retention.maxAgeMs).toISOString()) as number | null) ?? 0;
    const through = Math.max(newest - this.retention.maxRows, byAge);
    if (through <= 0) return;
    this.stmt.prune.run(through);
    this.stmt.markPruned.run(through);
  }

  read(after: LogPosition, limit: number): EventPage {
    const pruned = this.stmt.pruned.get() as number;
    const newest = (this.stmt.head.get() as number | null) ?? pruned;
    const rows = this.stmt.after.all(after.id, limit + 1) as Row[];
    const more = rows.length > limit;
    const page = more ? rows.slice(0, limit) : rows;
    return {
      entries: page.map(entryOf),
      end: page.length > 0 ? position(page.at(-1)!.id) : after,
      more,
      // A position past the newest row is from another copy of the board (a restored backup): reading on would skip.
      expired: after.id < pruned || after.id > newest,
      held: false,
    };
  }

  /** The Activity timeline: rows before a position that pass the filter, newest first. */
  readBefore(before: LogPosition, limit: number, filter: ActivityFilter): LogEntry[] {
    const keys = activityConditions(filter);
    const key = keys.join(',');
    let stmt = this.before.get(key);
    if (!stmt) {
      const upper = filter.until === undefined ? '@before' : `min(@before, ${UNTIL_ID})`;
      const where = [`id < ${upper}`, ...keys.map((k) => ACTIVITY_SQL[k])].join(' AND ');
      stmt = this.db.prepare(`SELECT id, at, event FROM event_log WHERE ${where} ORDER BY id DESC LIMIT @limit`);
      this.before.set(key, stmt);
    }
    const params: Record<string, unknown> = { before: before.id, limit };
    if (filter.actor !== undefined) params['actor'] = filter.actor;
    if (filter.action !== undefined) params['action'] = filter.action;
    if (filter.since !== undefined) params['since'] = filter.since;
    if (filter.until !== undefined) params['until'] = filter.until;
    return (stmt.all(params) as Row[]).map(entryOf);
  }

  head(): LogPosition {
    const id = (this.stmt.head.get() as number | null) ?? (this.stmt.pruned.get() as number);
    return id > 0 ? position(id) : LOG_START;
  }

  secret(): Buffer {
    return this.stmt.secret.get() as Buffer;
  }
}

function entryOf(row: Row): LogEntry {
  return { position: position(row.id), event: JSON.parse(row.event) as LoggedEvent, at: row.at };
}
