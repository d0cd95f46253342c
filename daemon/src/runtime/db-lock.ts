// One daemon per database: a lock file beside it names the daemon while it runs, by its pid and the time that process
// started, so a pid reused by another process after a crash does not look like the daemon; once it listens, the lock
// also records its address, for `roundtable status`.
import { execFileSync } from 'node:child_process';
import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';

export class DatabaseInUse extends Error {}

function lockPath(dbPath: string): string {
  return `${dbPath}.lock`;
}

/**
 * When process `pid` started, as an opaque text that differs between two processes given the same pid; undefined
 * when this system cannot say. Linux: the start time in clock ticks since boot, field 22 of /proc/PID/stat (the command
 * name before it is in parentheses and may hold spaces). Elsewhere: `ps -o lstart=`, to the second.
 */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the name: state is field 3, so field 22 is at index 19.
    const start = fields[19];
    if (start && /^\d+$/.test(start)) return start;
  } catch {
    // No /proc (macOS, the BSDs, Windows), or the process is gone.
  }
  if (process.platform === 'win32') return undefined;
  try {
    const start = execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8', timeout: 2000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return start || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The lock's first line is the pid (scripts/install-local.sh reads it so); the second, when present, its start time;
 * the third, once the daemon listens, its address (http(s)://host:port).
 */
function readLock(dbPath: string): { pid: number; start: string | undefined; url: string | undefined } | undefined {
  let text: string;
  try {
    text = readFileSync(lockPath(dbPath), 'utf8');
  } catch {
    return undefined;
  }
  const [pidLine, startLine, urlLine] = text.split('\n');
  const pid = Number(pidLine?.trim());
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  return { pid, start: startLine?.trim() || undefined, url: urlLine?.trim() || undefined };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The pid of a live daemon using this database, if any. A lock left by a dead process does not count, nor one whose
 * pid now belongs to a process that started at another time (the pid was reused). A lock without a start time (an
 * older daemon's) is judged by its pid alone, as is one on a system that cannot tell a process's start time.
 */
export function daemonUsing(dbPath: string): number | undefined {
  return liveDaemon(dbPath)?.pid;
}

/** The live daemon using this database (as daemonUsing judges it), with its address once it has recorded one. */
export function liveDaemon(dbPath: string): { pid: number; url: string | undefined } | undefined {
  const lock = readLock(dbPath);
  if (!lock || lock.pid === process.pid || !alive(lock.pid)) return undefined;
  if (lock.start !== undefined) {
    const now = processStartTime(lock.pid);
    if (now !== undefined && now !== lock.start) return undefined;
  }
  return { pid: lock.pid, url: lock.url };
}

/** Adds the address this daemon listens on to its own lock (a lock that is not this process's is left alone). */
export function recordLockAddress(dbPath: string, url: string): void {
  const lock = readLock(dbPath);
  if (lock?.pid !== process.pid) return;
  // Written aside and renamed over, so a reader never sees the lock half written (and the pid on its first line gone).
  const aside = `${lockPath(dbPath)}.${process.pid}.tmp`;
  writeFileSync(aside, `${process.pid}\n${lock.start ?? ''}\n${url}\n`, { mode: 0o600 });
  renameSync(aside, lockPath(dbPath));
}

export function lockDatabase(dbPath: string): () => void {
  const holder = daemonUsing(dbPath);
  if (holder !== undefined) {
    throw new DatabaseInUse(`${dbPath} is in use by another roundtable daemon (pid ${holder}); stop it first, or set ROUNDTABLE_DB_PATH to another file`);
  }
  const start = processStartTime(process.pid);
  writeFileSync(lockPath(dbPath), `${process.pid}\n${start ?? ''}\n`, { mode: 0o600 });
  return () => {
    try {
      if (readLock(dbPath)?.pid === process.pid) unlinkSync(lockPath(dbPath));
    } catch {
      // already gone
    }
  };
}
