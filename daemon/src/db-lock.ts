// One daemon per database: a lock file beside it holds the daemon's pid while it runs.
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';

export class DatabaseInUse extends Error {}

function lockPath(dbPath: string): string {
  return `${dbPath}.lock`;
}

/** The pid of a live daemon using this database, if any; a lock left by a dead process does not count. */
export function daemonUsing(dbPath: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(lockPath(dbPath), 'utf8').trim());
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined;
  }
}

export function lockDatabase(dbPath: string): () => void {
  const holder = daemonUsing(dbPath);
  if (holder !== undefined) {
    throw new DatabaseInUse(`${dbPath} is in use by another roundtable daemon (pid ${holder}); stop it first, or set ROUNDTABLE_DB_PATH to another file`);
  }
  writeFileSync(lockPath(dbPath), `${process.pid}\n`, { mode: 0o600 });
  return () => {
    try {
      if (Number(readFileSync(lockPath(dbPath), 'utf8').trim()) === process.pid) unlinkSync(lockPath(dbPath));
    } catch {
      // already gone
    }
  };
}
