// The doctor's backups line: the SQLite board's backup folder, how old its newest backup is against the schedule.
import { lstatSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '../runtime/config.js';
import { listBackups } from '../store/backup.js';
import type { CheckResult } from '../store/check-result.js';
import { formatDuration, result, summarise, type Finding } from './result.js';

/** The time in a server-chosen backup name, roundtable-20250101T120000Z.db. */
function backupTime(name: string): number | undefined {
  const m = /^roundtable-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z/.exec(name);
  if (!m) return undefined;
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
}

export function checkBackups(config: Config, now = Date.now()): CheckResult {
  const dir = resolve(config.backup.dir);
  const { intervalMs, keep } = config.backup;
  const schedule = intervalMs > 0 ? `every ${formatDuration(intervalMs)}, keep ${keep}` : 'automatic backups off';
  const offFix = 'set ROUNDTABLE_BACKUP_INTERVAL (e.g. 1h) for automatic backups';
  let stat;
  try {
    stat = lstatSync(dir);
  } catch {
    return result(
      'backups',
      'warn',
      `no backups: ${dir} does not exist yet (${schedule})`,
      intervalMs > 0 ? `\`roundtable backup\` takes one now; the board takes one every ${formatDuration(intervalMs)} while it runs` : `\`roundtable backup\` takes one now; ${offFix}`,
    );
  }
  if (stat.isSymbolicLink()) return result('backups', 'fail', `${dir} is a symlink; the board refuses to write backups into it`, 'point ROUNDTABLE_BACKUP_DIR at a real folder');
  if (!stat.isDirectory()) return result('backups', 'fail', `${dir} is not a folder`, 'point ROUNDTABLE_BACKUP_DIR at a folder');
  const names = listBackups(dir);
  const newest = names[0];
  if (newest === undefined) {
    return result('backups', 'warn', `no backups in ${dir} (${schedule})`, `\`roundtable backup\` takes one now${intervalMs > 0 ? '' : `; ${offFix}`}`);
  }
  const taken = backupTime(newest) ?? statSync(join(dir, newest)).mtimeMs;
  const age = now - taken;
  const base = `${names.length} in ${dir}, newest ${formatDuration(age)} old (${schedule})`;
  const findings: Finding[] = [];
  if (intervalMs === 0) {
    findings.push({ status: 'warn', detail: 'no automatic backups (ROUNDTABLE_BACKUP_INTERVAL=0)', fix: offFix });
  } else if (age > 2 * intervalMs) {
    findings.push({
      status: 'warn',
      detail: `the newest backup is older than twice the interval`,
      fix: 'check that the board runs and look for "backup skipped" or "backup failed" in its log; `roundtable backup` takes one now',
    });
  }
  return summarise('backups', base, findings);
}

/** On PostgreSQL (ROUNDTABLE_DATABASE_URL) the backups are checked as PostgreSQL's. */
export function checkBackupsOf(config: Config): CheckResult {
  if (!config.databaseUrl) return checkBackups(config);
  return result('backups', 'ok', "the board is on PostgreSQL: its backups are PostgreSQL's own (pg_dump or base backups), not checked here");
}
