// The doctor's database line: the SQLite file read-only (integrity, schema version, WAL size), or PostgreSQL's own check.
import { existsSync, statSync, unlinkSync } from 'node:fs';
import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { Config } from '../runtime/config.js';
import { daemonUsing } from '../runtime/db-lock.js';
import type { CheckResult } from '../store/check-result.js';
import { describeDatabase } from '../store/open.js';
import { CODE_SCHEMA_VERSION } from '../store/sqlite/migrate.js';
import { formatBytes, result, summarise, type Finding } from './result.js';

/** A WAL file above this is reported: it is disk the board holds on to until it restarts. */
export const WAL_WARN_BYTES = 64 * 1024 * 1024;

/**
 * Opens the database read-only. A read-only connection to a WAL database creates the -wal and -shm files when
 * they are missing and cannot remove them on close; left behind (owned by whoever ran doctor, e.g. root), they
 * could stop the board's own user from opening the database. So files this call created are removed again,
 * unless a daemon has started using the database meanwhile.
 */
function withReadOnlyDatabase<T>(path: string, use: (db: Database.Database) => T): T {
  const sidecars = [`${path}-wal`, `${path}-shm`];
  const existed = sidecars.map((f) => existsSync(f));
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    return use(db);
  } finally {
    db.close();
    if (daemonUsing(path) === undefined) {
      for (const [i, file] of sidecars.entries()) {
        if (existed[i] || !existsSync(file)) continue;
        if (file.endsWith('-wal') && statSync(file).size !== 0) continue;
        try {
          unlinkSync(file);
        } catch {
          // another process has it; leave it
        }
      }
    }
  }
}

export function checkDatabase(config: Config): CheckResult {
  const path = config.dbPath;
  if (!existsSync(path)) {
    return result('database', 'warn', `no database yet at ${resolve(path)}`, '`roundtable run` creates it at the first start; if the board ran before, check ROUNDTABLE_DB_PATH');
  }
  // Measured before opening: a read-only connection may create an empty WAL.
  const walExists = existsSync(`${path}-wal`);
  const walBytes = walExists ? statSync(`${path}-wal`).size : 0;
  const restoreFix = 'stop the board, pick a backup with `roundtable backup --list`, and `roundtable restore FILE` (the damaged file is kept aside)';
  let integrity: string[];
  let version: number | undefined;
  try {
    ({ integrity, version } = withReadOnlyDatabase(path, (db) => {
      const rows = (db.pragma('integrity_check(5)') as Array<{ integrity_check: string }>).map((r) => r.integrity_check);
      let v: number | undefined;
      try {
        v = (db.prepare('SELECT MAX(version) AS v FROM schema_version').get() as { v: number | null }).v ?? 0;
      } catch (error) {
        if (!/no such table/.test((error as Error).message)) throw error;
      }
      return { integrity: rows, version: v };
    }));
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    const message = (error as Error).message;
    if (/NOTADB|CORRUPT/.test(code) || /not a database|malformed/.test(message)) {
      return result('database', 'fail', `${resolve(path)} fails the integrity check: ${message}`, restoreFix);
    }
    return result('database', 'fail', `cannot open ${resolve(path)} read-only: ${message}`, "run doctor as the board's user, and check the file and folder permissions");
  }
  const findings: Finding[] = [];
  const ok = integrity.length === 1 && integrity[0] === 'ok';
  if (!ok) {
    const first = integrity.join(' | ').replace(/\s+/g, ' ').slice(0, 300);
    findings.push({ status: 'fail', detail: `integrity check failed: ${first}`, fix: restoreFix });
  }
  if (version === undefined || version === 0) {
    findings.push({ status: 'warn', detail: 'no Roundtable schema in it yet', fix: 'the board creates the schema at its next start; if this is not a Roundtable database, check ROUNDTABLE_DB_PATH' });
  } else if (version > CODE_SCHEMA_VERSION) {
    findings.push({
      status: 'fail',
      detail: `schema ${version}, newer than this roundtable (${CODE_SCHEMA_VERSION}); the board refuses to start on it`,
      fix: 'upgrade roundtable-daemon to the version that wrote it, or restore an older backup with `roundtable restore FILE`',
    });
  } else if (version < CODE_SCHEMA_VERSION) {
    findings.push({ status: 'warn', detail: `schema ${version} of ${CODE_SCHEMA_VERSION}: it migrates at the next start`, fix: 'take a backup first: `roundtable backup`' });
  }
  if (walBytes > WAL_WARN_BYTES) {
    findings.push({
      status: 'warn',
      detail: `WAL file is ${formatBytes(walBytes)}, above ${formatBytes(WAL_WARN_BYTES)}`,
      fix: 'restart the board (`systemctl restart roundtable`, or stop and `roundtable run`): it checkpoints and removes the WAL when it closes',
    });
  }
  const parts = [
    ok ? 'integrity ok' : '',
    version !== undefined && version > 0 && version <= CODE_SCHEMA_VERSION ? `schema ${version} of ${CODE_SCHEMA_VERSION}` : '',
    `file ${formatBytes(statSync(path).size)}`,
    walBytes > WAL_WARN_BYTES ? '' : walExists ? `WAL ${formatBytes(walBytes)}` : 'no WAL',
  ];
  return summarise('database', parts.filter(Boolean).join(', '), findings);
}

/** On PostgreSQL (ROUNDTABLE_DATABASE_URL) the database is checked as PostgreSQL's. */
export async function checkDatabaseOf(config: Config): Promise<CheckResult> {
  if (!config.databaseUrl) return checkDatabase(config);
  const { checkPostgres } = await import('../store/postgres/doctor-check.js');
  return checkPostgres(config.databaseUrl, describeDatabase(config));
}
