// The doctor's disk line: free space where the database and the backups are written.
import { existsSync, statfsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Config } from '../runtime/config.js';
import type { CheckResult } from '../store/check-result.js';
import { formatBytes, summarise, type Finding } from './result.js';

/** Below this much free space on the database's disk, writes are about to fail. */
export const DISK_FAIL_MB = 16;

/** The nearest folder that exists, for a path that may not exist yet. */
function existingFolder(path: string): string {
  let dir = resolve(path);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

function freeBytes(dir: string): number {
  const stats = statfsSync(dir);
  return stats.bavail * stats.bsize;
}

export function checkDisk(config: Config): CheckResult {
  const minMb = config.backup.minFreeMb;
  const dbDir = existingFolder(dirname(resolve(config.dbPath)));
  const backupDir = existingFolder(config.backup.dir);
  const sameDisk = statSync(dbDir).dev === statSync(backupDir).dev;
  const folders = sameDisk
    ? [{ label: 'database and backups', dir: dbDir, holdsDb: true }]
    : [
        { label: 'database', dir: dbDir, holdsDb: true },
        { label: 'backups', dir: backupDir, holdsDb: false },
      ];
  const findings: Finding[] = [];
  const shown: string[] = [];
  for (const folder of folders) {
    const free = freeBytes(folder.dir);
    const freeMb = free / (1024 * 1024);
    shown.push(`${formatBytes(free)} free for ${folder.label} (${folder.dir})`);
    if (folder.holdsDb && freeMb < DISK_FAIL_MB) {
      findings.push({ status: 'fail', detail: `the database's disk is nearly full`, fix: `free space on the disk holding ${folder.dir}; the board's writes fail when it is full` });
    } else if (freeMb < minMb) {
      findings.push({
        status: 'warn',
        detail: `${folder.label}: below ROUNDTABLE_BACKUP_MIN_FREE_MB=${minMb}${folder.label === 'database' ? '' : ', so backups are skipped'}`,
        fix: `free space on that disk, move ROUNDTABLE_BACKUP_DIR to a bigger one, or lower ROUNDTABLE_BACKUP_MIN_FREE_MB`,
      });
    }
  }
  return summarise('disk', `${shown.join('; ')}, minimum ${minMb} MB`, findings);
}
