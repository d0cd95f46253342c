// The page's console reads on SQLite (issue 36): the "Needs me" rows and the history behind the progress charts.
import type Database from 'better-sqlite3';
import { COUNTS_BEFORE, COUNTS_PER_DAY, CYCLES, HELP_REQUESTS, LAPSED, MESSAGES_TO, WIP, newestPerTask } from '../console-sql.js';
import type { NeedsQuery, NeedsRows, ProgressRows } from '../store.js';

type Counts = ProgressRows['before'];

export class SqliteConsole {
  private readonly stmt;

  constructor(db: Database.Database) {
    this.stmt = {
      helpRequests: db.prepare(HELP_REQUESTS),
      messagesTo: db.prepare(MESSAGES_TO),
      lapsed: db.prepare(LAPSED),
      countsBefore: db.prepare(COUNTS_BEFORE),
      countsPerDay: db.prepare(COUNTS_PER_DAY),
      cycles: db.prepare(CYCLES),
      wip: db.prepare(WIP),
    };
  }

  /** Inside one read transaction, so the lists are one snapshot. */
  needsOf(query: NeedsQuery): NeedsRows {
    const { agent, limit } = query;
    return {
      helpRequests: query.helpRequests ? (this.stmt.helpRequests.all({ limit }) as NeedsRows['helpRequests'][number][]) : [],
      messagesTo: this.stmt.messagesTo.all({ agent, limit }) as NeedsRows['messagesTo'][number][],
      lapsed: query.lapsedSince === null ? [] : newestPerTask(this.stmt.lapsed.all({ since: query.lapsedSince, limit }) as NeedsRows['lapsed'][number][]),
    };
  }

  /** Inside one read transaction, so the figures are one snapshot. */
  progressRows(fromDay: string): ProgressRows {
    const before: Record<string, number> = {};
    for (const row of this.stmt.countsBefore.all({ from: fromDay }) as Array<{ action: string; n: number }>) before[row.action] = row.n;
    const counts: Counts = { created: before['created'] ?? 0, cancelled: before['cancelled'] ?? 0, done: before['approved'] ?? 0 };
    return {
      before: counts,
      days: this.stmt.countsPerDay.all({ from: fromDay }) as ProgressRows['days'][number][],
      cycles: this.stmt.cycles.all({ from: fromDay }) as ProgressRows['cycles'][number][],
      wip: this.stmt.wip.all() as ProgressRows['wip'][number][],
    };
  }
}
