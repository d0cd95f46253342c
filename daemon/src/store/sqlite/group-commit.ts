// Group commit on SQLite: write calls that arrive together share one transaction and one fsync, each in a savepoint.
import type Database from 'better-sqlite3';

interface Job {
  readonly work: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * better-sqlite3 is synchronous, so a commit's fsync blocks the event loop; the calls that arrive meanwhile (and those
 * that arrive in the same event-loop turn) are collected and run as the next group: BEGIN IMMEDIATE, one SAVEPOINT per
 * call (a call that throws rolls back only itself), COMMIT, and only then is each call answered. A lone call waits for
 * nobody: its group runs at the end of the current event-loop turn (setImmediate), with no timer.
 */
export class GroupCommit {
  private jobs: Job[] = [];
  private scheduled = false;
  private closed = false;
  private readonly begin: Database.Statement;
  private readonly commit: Database.Statement;
  private readonly rollback: Database.Statement;
  /** Inside the group's transaction better-sqlite3 runs this as SAVEPOINT ... RELEASE, or ROLLBACK TO on a throw. */
  private readonly isolated: (work: () => unknown) => unknown;

  constructor(private readonly db: Database.Database) {
    this.begin = db.prepare('BEGIN IMMEDIATE');
    this.commit = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
    this.isolated = db.transaction((work: () => unknown) => work());
  }

  /** Runs `work` (synchronous SQL) in the next group; resolves with its result once the group's commit is on disk. */
  write<T>(work: () => T): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the board store is closed'));
    return new Promise<T>((resolve, reject) => {
      this.jobs.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commits whatever is pending now (at close, so nothing queued is lost). */
  flush(): void {
    this.scheduled = false;
    const jobs = this.jobs;
    this.jobs = [];
    if (jobs.length === 0) return;
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      this.begin.run();
      for (const job of jobs) {
        try {
          outcomes.push({ ok: true, value: this.isolated(job.work) });
        } catch (error) {
          outcomes.push({ ok: false, error });
          // SQLite itself rolled the whole transaction back (disk full, I/O error): nothing of the group stands.
          if (!this.db.inTransaction) throw error;
        }
      }
      this.commit.run();
    } catch (error) {
      if (this.db.inTransaction) this.rollback.run();
      for (const job of jobs) job.reject(error);
      return;
    }
    jobs.forEach((job, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.error);
    });
  }

  /** Commits what is pending and refuses anything later. */
  close(): void {
    if (this.closed) return;
    if (this.db.open) this.flush();
    this.closed = true;
  }
}
