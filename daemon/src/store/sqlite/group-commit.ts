// Group commit on SQLite: calls that arrive together share one transaction, each in a savepoint, and one fsync of the
// write-ahead log, which runs on libuv's thread pool while the event loop goes on.
import { closeSync, fdatasync, fdatasyncSync, fstatSync, openSync, statSync } from 'node:fs';
import type Database from 'better-sqlite3';

interface Job {
  readonly work: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

type Outcome = { readonly job: Job; readonly ok: true; readonly value: unknown } | { readonly job: Job; readonly ok: false; readonly error: unknown };

/** The -wal file, held open so its fsync can run off the event loop. */
interface WalFile {
  readonly fd: number;
  readonly ino: number;
}

/** How the WAL reaches the disk: fs.fdatasync, run on the thread pool (a test gives one that fails). */
export type SyncFile = (fd: number, done: (error: NodeJS.ErrnoException | null) => void) => void;

/**
 * How a group forms:
 * - a call queues its work and, if no group is scheduled, schedules one at the end of this event-loop turn
 *   (setImmediate, no timer), so a lone call on a quiet board waits for nobody;
 * - while the previous group's fsync is still running on the thread pool, no new group commits: the calls that arrive
 *   meanwhile queue up and become the next group, committed as soon as that fsync returns;
 * - a group is BEGIN IMMEDIATE, one SAVEPOINT per call (a call that throws rolls back only itself), COMMIT at
 *   synchronous=NORMAL (SQLite writes the WAL frames but does not fsync), then fdatasync of the -wal file on the thread
 *   pool; only when it returns is each call answered.
 * Answered means on disk, as with synchronous=FULL: the fsync covers every frame the commit wrote. Writes made outside
 * the group (rare, and by other processes) keep synchronous=FULL, and SQLite still syncs the WAL before each
 * checkpoint. An fsync that fails leaves the store refusing every later write until restart (the kernel may have
 * dropped the pages it could not write, so nothing after can be promised); a restart reads the WAL as it stands.
 * Between a commit and its fsync the rows are visible to this process's own reads; anything answered waits for a
 * later fsync, and `durable()` lets a read that writes nothing wait for the one in flight.
 */
export class GroupCommit {
  private jobs: Job[] = [];
  private scheduled = false;
  private closed = false;
  /** The group whose fsync is running, answered when it returns. */
  private syncing: Outcome[] | undefined;
  private readonly afterSync: Array<() => void> = [];
  private failure: unknown;
  private wal: WalFile | null | undefined;
  private readonly begin: Database.Statement;
  private readonly commit: Database.Statement;
  private readonly rollback: Database.Statement;
  private readonly fullSync: Database.Statement;
  private readonly normalSync: Database.Statement;
  /** Inside the group's transaction better-sqlite3 runs this as SAVEPOINT ... RELEASE, or ROLLBACK TO on a throw. */
  private readonly isolated: (work: () => unknown) => unknown;

  constructor(
    private readonly db: Database.Database,
    private readonly sync: SyncFile = fdatasync,
  ) {
    this.begin = db.prepare('BEGIN IMMEDIATE');
    this.commit = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
    this.fullSync = db.prepare('PRAGMA synchronous = FULL');
    this.normalSync = db.prepare('PRAGMA synchronous = NORMAL');
    this.isolated = db.transaction((work: () => unknown) => work());
  }

  /** Runs `work` (synchronous SQL) in the next group; resolves with its result once the group's commit is on disk. */
  write<T>(work: () => T): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the board store is closed'));
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise<T>((resolve, reject) => {
      this.jobs.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  /** Resolves once every commit made so until now is on disk: at once when no fsync is running. */
  durable(): Promise<void> {
    if (this.syncing === undefined) return Promise.resolve();
    return new Promise((resolve) => this.afterSync.push(resolve));
  }

  private schedule(): void {
    if (this.scheduled || this.syncing !== undefined) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Commits the queued calls as one group, unless an fsync is running (then the group forms until it returns). */
  private flush(): void {
    this.scheduled = false;
    if (this.syncing !== undefined || this.jobs.length === 0) return;
    const wal = this.walFile();
    const outcomes = this.commitGroup(wal !== null);
    if (outcomes === undefined) return;
    if (wal === null) return settle(outcomes);
    this.syncing = outcomes;
    this.sync(wal.fd, (error) => this.synced(outcomes, error));
  }

  /** The group's transaction; undefined if it failed as a whole (every call was rejected). */
  private commitGroup(deferSync: boolean): Outcome[] | undefined {
    const jobs = this.jobs;
    this.jobs = [];
    const outcomes: Outcome[] = [];
    try {
      if (deferSync) this.normalSync.run();
      this.begin.run();
      for (const job of jobs) {
        try {
          outcomes.push({ job, ok: true, value: this.isolated(job.work) });
        } catch (error) {
          outcomes.push({ job, ok: false, error });
          // SQLite itself rolled the whole transaction back (disk full, I/O error): nothing of the group stands.
          if (!this.db.inTransaction) throw error;
        }
      }
      this.commit.run();
    } catch (error) {
      if (this.db.inTransaction) this.rollback.run();
      for (const job of jobs) job.reject(error);
      return undefined;
    } finally {
      if (deferSync && this.db.open) this.fullSync.run();
    }
    return outcomes;
  }

  private synced(outcomes: Outcome[], error: NodeJS.ErrnoException | null): void {
    if (this.syncing !== outcomes) return; // close() already made them durable and answered them
    this.syncing = undefined;
    if (error) {
      this.failure = error;
      for (const { job } of outcomes) job.reject(error);
      for (const job of this.jobs.splice(0)) job.reject(error);
    } else settle(outcomes);
    for (const resolve of this.afterSync.splice(0)) resolve();
    if (this.jobs.length > 0) this.schedule();
  }

  /**
   * The -wal file, opened at the first group (SQLite creates it with the connection). Checked by inode at each group:
   * a file SQLite replaced would take our fsync elsewhere, so then it is opened again. Null for a database with no
   * write-ahead log (in memory): its groups commit as before.
   */
  private walFile(): WalFile | null {
    if (this.wal === null) return null;
    const path = `${this.db.name}-wal`;
    if (this.wal !== undefined) {
      if (statSync(path, { throwIfNoEntry: false })?.ino === this.wal.ino) return this.wal;
      closeSync(this.wal.fd);
      this.wal = undefined;
    }
    if (this.db.memory) return (this.wal = null);
    try {
      const fd = openSync(path, 'r');
      this.wal = { fd, ino: fstatSync(fd).ino };
    } catch {
      this.wal = null;
    }
    return this.wal;
  }

  /** Commits and syncs what is pending now, synchronously (at close, so nothing queued is lost), and refuses anything later. */
  close(): void {
    if (this.closed) return;
    if (this.db.open && this.failure === undefined) {
      const inFlight = this.syncing;
      const queued = this.jobs.length > 0 ? this.commitGroup(false) : [];
      if (inFlight && this.wal) {
        this.syncing = undefined;
        try {
          fdatasyncSync(this.wal.fd);
          settle(inFlight);
        } catch (error) {
          for (const { job } of inFlight) job.reject(error);
        }
      }
      if (queued) settle(queued);
    }
    for (const resolve of this.afterSync.splice(0)) resolve();
    if (this.wal) closeSync(this.wal.fd);
    this.wal = null;
    this.closed = true;
  }
}

function settle(outcomes: readonly Outcome[]): void {
  for (const outcome of outcomes) {
    if (outcome.ok) outcome.job.resolve(outcome.value);
    else outcome.job.reject(outcome.error);
  }
}
