// `roundtable doctor`: independent checks of the set-up, one line each, saying what is wrong and how to fix it.
// It only reads: the database through a read-only connection, agents.json for names and roles, the TLS files,
// and GET /status. It never prints a token or board text.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, statfsSync, statSync, unlinkSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { AgentsFileError, loadAgentsFile, type AgentDirectory } from '../agents/directory.js';
import { escapeControls } from '../runtime/terminal-text.js';
import { listBackups } from '../store/backup.js';
import type { Config } from '../runtime/config.js';
import { daemonUsing } from '../runtime/db-lock.js';
import { isLoopback, plainHttpExposure } from '../process/exposure.js';
import { CODE_SCHEMA_VERSION } from '../store/sqlite/migrate.js';
import { describeDatabase } from '../store/open.js';
import { exposedToGit } from '../process/git-exclude.js';
import { SECRETS_FILE, secretsPathBeside } from '../webhooks/secret-file.js';
import { VERSION } from '../runtime/version.js';
import type { CheckResult, CheckStatus } from '../store/check-result.js';

export type Check = (config: Config) => CheckResult | Promise<CheckResult>;

/** A WAL file above this is reported: it is disk the board holds on to until it restarts. */
export const WAL_WARN_BYTES = 64 * 1024 * 1024;
/** A certificate expiring sooner than this is reported. */
export const CERT_WARN_MS = 14 * 24 * 3600 * 1000;
/** Below this much free space on the database's disk, writes are about to fail. */
export const DISK_FAIL_MB = 16;
const PROBE_TIMEOUT_MS = 3_000;

const SEVERITY: Record<CheckStatus, number> = { ok: 0, warn: 1, fail: 2 };

/** A problem found by a check; a check reports its worst one and lists them all. */
interface Finding {
  readonly status: CheckStatus;
  readonly detail: string;
  readonly fix?: string;
}

function result(name: string, status: CheckStatus, detail: string, fix?: string): CheckResult {
  return fix === undefined ? { name, status, detail } : { name, status, detail, fix };
}

/** One line for a check: what is fine first, then each problem; the fixes joined in the same order. */
function summarise(name: string, base: string, findings: readonly Finding[]): CheckResult {
  const status = findings.reduce<CheckStatus>((worst, f) => (SEVERITY[f.status] > SEVERITY[worst] ? f.status : worst), 'ok');
  const detail = [base, ...findings.map((f) => f.detail)].filter(Boolean).join('; ');
  const fixes = findings.map((f) => f.fix).filter((f): f is string => Boolean(f));
  return result(name, status, detail, fixes.length ? fixes.join('; ') : undefined);
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
}

export function formatDuration(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 48 * 3600) return `${(s / 3600).toFixed(1).replace(/\.0$/, '')} h`;
  const days = s / 86400;
  return days >= 10 ? `${Math.round(days)} d` : `${days.toFixed(1).replace(/\.0$/, '')} d`;
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message ?? String(error);
}

function boardUrl(config: Config): string {
  const shown = config.host.includes(':') && !config.host.startsWith('[') ? `[${config.host}]` : config.host;
  return `${config.tls ? 'https' : 'http'}://${shown}:${config.port}`;
}

/** "group or others can read" for a mode, or undefined when only the owner can. */
function openTo(mode: number): string | undefined {
  const who = [mode & 0o060 ? 'group' : '', mode & 0o006 ? 'others' : ''].filter(Boolean);
  if (!who.length) return undefined;
  const can = [mode & 0o044 ? 'read' : '', mode & 0o022 ? 'write' : ''].filter(Boolean).join(' and ');
  return `${who.join(' and ')} can ${can} it`;
}

// ---- the checks ----

export function checkConfig(config: Config): CheckResult {
  const base = `${boardUrl(config)}, database ${config.databaseUrl ? describeDatabase(config) : resolve(config.dbPath)}, agents ${resolve(config.agentsConfigPath)}`;
  const findings: Finding[] = [];
  const exposure = plainHttpExposure(config);
  if (exposure) findings.push({ status: 'warn', detail: exposure.detail, fix: exposure.fix });
  if (config.port === 0) {
    findings.push({ status: 'warn', detail: 'ROUNDTABLE_PORT=0 picks a new random port at every start, so clients cannot find the board', fix: 'set ROUNDTABLE_PORT to a fixed port, e.g. 8000' });
  }
  return summarise('config', base, findings);
}

export function checkAgents(config: Config): CheckResult {
  const path = resolve(config.agentsConfigPath);
  let directory;
  try {
    directory = loadAgentsFile(config.agentsConfigPath);
  } catch (error) {
    if (!(error instanceof AgentsFileError)) throw error;
    // V8's JSON.parse messages quote a few characters of the file, which could be part of a plaintext token.
    const message = /not valid JSON/.test(error.message) ? `${config.agentsConfigPath}: not valid JSON` : error.message;
    const missing = !existsSync(config.agentsConfigPath);
    return result(
      'agents',
      'fail',
      message,
      missing
        ? '`roundtable init` writes a new one (or set ROUNDTABLE_AGENTS_CONFIG to the existing file)'
        : 'correct the entry named above; a running board keeps the last valid file in force meanwhile',
    );
  }
  const mode = statSync(config.agentsConfigPath).mode & 0o777;
  const findings: Finding[] = [];
  const exposure = openTo(mode);
  if (exposure) findings.push({ status: 'warn', detail: `mode ${mode.toString(8)}: ${exposure}`, fix: `chmod 600 ${path}` });
  const plaintext = directory.plaintextTokenAgents;
  if (plaintext.length) {
    findings.push({
      status: 'warn',
      detail: `plaintext token for ${plaintext.join(', ')}`,
      fix: `${plaintext.map((n) => `roundtable agents rotate ${n}`).join(', ')} (stores only the hash; give the agent its new token)`,
    });
  }
  const base = `${countAgents(directory)}${exposure ? '' : `, mode ${mode.toString(8)}`}`;
  return summarise('agents', base, findings);
}

/** "4 agents (1 leader, 3 workers)", and the mode when it is peer. */
function countAgents(directory: AgentDirectory): string {
  const agents = directory.list();
  const byRole = new Map<string, number>();
  for (const agent of agents) byRole.set(agent.role, (byRole.get(agent.role) ?? 0) + 1);
  const roles = [...byRole].map(([role, n]) => `${n} ${role}${n === 1 ? '' : 's'}`).join(', ');
  return `${agents.length} agent${agents.length === 1 ? '' : 's'} (${roles})${directory.mode === 'peer' ? ', peer mode' : ''}`;
}

/** On PostgreSQL the agents live in the agents table; agents.json only matters while the table is empty. */
async function checkAgentsOf(config: Config): Promise<CheckResult> {
  if (!config.databaseUrl) return checkAgents(config);
  const { readAgentsTable } = await import('../agents/table.js');
  let directory: AgentDirectory | undefined;
  try {
    directory = await readAgentsTable(config.databaseUrl);
  } catch (error) {
    // A table that breaks a rule (two names equal but for case, held from before the rule): its daemons refuse to start.
    if (error instanceof AgentsFileError) return result('agents', 'fail', error.message, 'daemons on this board refuse to start until it is fixed');
    return result('agents', 'fail', `cannot read the agents table: ${(error as { code?: string }).code ?? 'connection failed'}`, 'see the database line below');
  }
  if (directory) return result('agents', 'ok', `${countAgents(directory)} in the agents table`);
  return existsSync(config.agentsConfigPath)
    ? result('agents', 'warn', `the agents table is empty; the daemon moves ${config.agentsConfigPath} in when it starts`, `or now: roundtable agents import ${config.agentsConfigPath}`)
    : result('agents', 'fail', `the agents table is empty and there is no ${config.agentsConfigPath}`, '`roundtable init` writes one, then `roundtable agents import agents.json`');
}

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

/** How a certificate's validity period looks at `now`. */
export function classifyCertificateExpiry(validFrom: Date, validTo: Date, now: Date = new Date()): { status: CheckStatus; detail: string } {
  const day = (d: Date) => d.toISOString().slice(0, 10);
  const left = validTo.getTime() - now.getTime();
  if (Number.isNaN(left) || Number.isNaN(validFrom.getTime())) return { status: 'fail', detail: 'the certificate has unreadable validity dates' };
  if (now.getTime() < validFrom.getTime()) return { status: 'fail', detail: `the certificate is not valid before ${day(validFrom)}` };
  if (left <= 0) return { status: 'fail', detail: `the certificate expired on ${day(validTo)}, ${formatDuration(-left)} ago` };
  if (left < CERT_WARN_MS) return { status: 'warn', detail: `the certificate expires in ${formatDuration(left)}, on ${day(validTo)}` };
  return { status: 'ok', detail: `valid until ${day(validTo)} (${formatDuration(left)})` };
}

export function checkTls(config: Config, now = new Date()): CheckResult {
  if (!config.tls) {
    return result('tls', 'ok', isLoopback(config.host) ? 'not configured (plain HTTP on loopback; put a TLS proxy in front to expose the board)' : 'not configured (plain HTTP)');
  }
  const { certPath, keyPath } = config.tls;
  const readable = (path: string, variable: string): Buffer | CheckResult => {
    try {
      return readFileSync(path);
    } catch (error) {
      return result('tls', 'fail', `cannot read ${variable} ${resolve(path)} (${errorCode(error)})`, `check the path in ${variable} and that the board's user can read the file`);
    }
  };
  const certPem = readable(certPath, 'ROUNDTABLE_TLS_CERT');
  if (!Buffer.isBuffer(certPem)) return certPem;
  const keyPem = readable(keyPath, 'ROUNDTABLE_TLS_KEY');
  if (!Buffer.isBuffer(keyPem)) return keyPem;
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch (error) {
    return result('tls', 'fail', `ROUNDTABLE_TLS_CERT ${resolve(certPath)} is not a PEM certificate (${(error as Error).message})`, 'point ROUNDTABLE_TLS_CERT at the PEM certificate (the full chain file, e.g. fullchain.pem)');
  }
  let key;
  try {
    key = createPrivateKey(keyPem);
  } catch {
    return result('tls', 'fail', `ROUNDTABLE_TLS_KEY ${resolve(keyPath)} is not an unencrypted PEM private key`, 'point ROUNDTABLE_TLS_KEY at the PEM private key (not passphrase-protected)');
  }
  const findings: Finding[] = [];
  if (!cert.checkPrivateKey(key)) {
    findings.push({ status: 'fail', detail: 'the key does not match the certificate', fix: "set ROUNDTABLE_TLS_KEY to the certificate's own private key" });
  }
  const expiry = classifyCertificateExpiry(new Date(cert.validFrom), new Date(cert.validTo), now);
  if (expiry.status !== 'ok') {
    findings.push({ status: expiry.status, detail: expiry.detail, fix: 'renew the certificate, then `systemctl reload roundtable` (SIGHUP makes the board re-read the TLS files)' });
  }
  const keyExposure = openTo(statSync(keyPath).mode & 0o777);
  if (keyExposure) findings.push({ status: 'warn', detail: `key file: ${keyExposure}`, fix: `chmod 600 ${resolve(keyPath)}` });
  const base = [expiry.status === 'ok' ? `certificate ${expiry.detail}` : '', findings.some((f) => f.detail.startsWith('the key does not')) ? '' : 'key matches'];
  return summarise('tls', base.filter(Boolean).join(', '), findings);
}

interface ProbeAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly ms: number;
}

/** GET /status on the configured address, with Host: localhost (always allowed) and a short timeout. */
/** Where to reach the board: a wildcard bind address is reached on loopback. */
function probeHost(config: Config): string {
  const host = config.host.replace(/^\[|\]$/g, '');
  return host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
}

function probeStatus(config: Config): Promise<ProbeAnswer> {
  const hostname = probeHost(config);
  const started = performance.now();
  return new Promise((resolvePromise, reject) => {
    const onResponse = (res: IncomingMessage) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (text.length < 64 * 1024) text += chunk;
      });
      res.on('end', () => {
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolvePromise({ status: res.statusCode ?? 0, body, ms: performance.now() - started });
      });
      res.on('error', reject);
    };
    const options = { hostname, port: config.port, path: '/status', method: 'GET', headers: { host: `localhost:${config.port}` }, timeout: PROBE_TIMEOUT_MS };
    // This checks that the board answers, not who it is: the certificate itself is checked by the tls line.
    const req = config.tls ? httpsRequest({ ...options, rejectUnauthorized: false }, onResponse) : httpRequest(options, onResponse);
    req.on('timeout', () => req.destroy(Object.assign(new Error(`no answer within ${PROBE_TIMEOUT_MS / 1000} s`), { code: 'ETIMEDOUT' })));
    req.on('error', reject);
    req.end();
  });
}

export async function checkPort(config: Config): Promise<CheckResult> {
  const url = `${boardUrl({ ...config, host: probeHost(config) })}/status`;
  const pid = daemonUsing(config.dbPath);
  const startFix = '`roundtable run` (or `systemctl start roundtable` where it is installed as a service)';
  if (config.port === 0) {
    return result('port', pid === undefined ? 'warn' : 'ok', pid === undefined ? 'no daemon running (and ROUNDTABLE_PORT=0 has no fixed port to check)' : `a daemon (pid ${pid}) uses the database; ROUNDTABLE_PORT=0, so there is no fixed port to check`, pid === undefined ? startFix : undefined);
  }
  let answer: ProbeAnswer | undefined;
  let problem = '';
  try {
    answer = await probeStatus(config);
  } catch (error) {
    problem = errorCode(error);
  }
  const body = answer?.body as { ok?: unknown; version?: unknown; error?: { code?: unknown } } | undefined;
  const isBoard = answer !== undefined && ((answer.status === 200 && body?.ok === true) || (answer.status === 429 && body?.error?.code === 'rate_limited'));
  if (pid !== undefined) {
    if (isBoard) {
      const version = typeof body?.version === 'string' ? `roundtable ${body.version}, ` : '';
      return result('port', 'ok', `${url} answers in ${answer!.ms.toFixed(0)} ms (${version}daemon pid ${pid})`);
    }
    return result(
      'port',
      'fail',
      `a daemon (pid ${pid}) uses the database, but ${url} ${answer ? `answers HTTP ${answer.status}, not the board's status` : `does not answer (${problem})`}`,
      "check that ROUNDTABLE_HOST and ROUNDTABLE_PORT match the running board's, and read its log (journalctl -u roundtable, or its stderr)",
    );
  }
  if (isBoard) {
    return result('port', 'warn', `a board answers at ${url}, but no daemon uses ${resolve(config.dbPath)}`, 'that board uses another database: check ROUNDTABLE_DB_PATH');
  }
  if (answer) {
    return result('port', 'fail', `no daemon running, and something else answers at ${url} (HTTP ${answer.status}): the board could not listen there`, 'stop the other program, or set ROUNDTABLE_PORT to a free port');
  }
  return result('port', 'warn', `no daemon running (nothing answers at ${url})`, startFix);
}

/** On PostgreSQL (ROUNDTABLE_DATABASE_URL) the database and its backups are checked as PostgreSQL's. */
/** The SQLite board's webhook signing secrets: only the board's user may read them, as for agents.json. */
export function checkWebhookSecrets(config: Config): CheckResult {
  if (config.databaseUrl) return result('webhooks', 'ok', 'the board is on PostgreSQL: the signing secrets are in its webhooks table');
  const path = resolve(secretsPathBeside(config.agentsConfigPath));
  let mode: number;
  try {
    mode = statSync(path).mode & 0o777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return result('webhooks', 'ok', `no ${SECRETS_FILE} (no webhook added)`);
    return result('webhooks', 'fail', `cannot read ${path} (${errorCode(error)})`, "check that the board's user can read it");
  }
  const exposure = openTo(mode);
  if (exposure) return result('webhooks', 'warn', `${path} mode ${mode.toString(8)}: ${exposure}`, `chmod 600 ${path}`);
  return result('webhooks', 'ok', `${path}, mode ${mode.toString(8)}`);
}

/** A file holding a secret inside a git work tree, not ignored: `git add -A` would commit it. */
export function checkGit(config: Config): CheckResult {
  const found = exposedToGit(config, existsSync);
  if (found.git === 'missing') return result('git', 'ok', 'git is not installed: not checked whether secret-bearing files sit in a repository');
  if (found.exposed.length === 0) return result('git', 'ok', 'no secret-bearing file of the board is in a git work tree without being ignored');
  const tracked = found.exposed.filter((f) => f.tracked);
  const fixes = [
    ...(found.exposed.length > tracked.length ? ['start the board once (it adds its files to the repository\'s .git/info/exclude), or list them in .gitignore'] : []),
    ...tracked.map((f) => `git rm --cached ${f.path} (and rotate what it holds if it was pushed)`),
  ];
  return result(
    'git',
    'warn',
    found.exposed.map((f) => `${f.path} (${f.what}) is in a git work tree and ${f.tracked ? 'tracked by git' : 'not ignored'}`).join('; '),
    fixes.join('; '),
  );
}

async function checkDatabaseOf(config: Config): Promise<CheckResult> {
  if (!config.databaseUrl) return checkDatabase(config);
  const { checkPostgres } = await import('../store/postgres/doctor-check.js');
  return checkPostgres(config.databaseUrl, describeDatabase(config));
}

function checkBackupsOf(config: Config): CheckResult {
  if (!config.databaseUrl) return checkBackups(config);
  return result('backups', 'ok', "the board is on PostgreSQL: its backups are PostgreSQL's own (pg_dump or base backups), not checked here");
}

export const CHECKS: ReadonlyArray<readonly [string, Check]> = [
  ['config', checkConfig],
  ['agents', checkAgentsOf],
  ['database', checkDatabaseOf],
  ['backups', checkBackupsOf],
  ['disk', checkDisk],
  ['tls', (config) => checkTls(config)],
  ['webhooks', checkWebhookSecrets],
  ['git', checkGit],
  ['port', checkPort],
];

export function formatResult(r: CheckResult): string {
  const line = `${r.status.padEnd(6)}${r.name.padEnd(11)}${r.detail}`;
  return r.fix && r.status !== 'ok' ? `${line}\n${' '.repeat(17)}fix: ${r.fix}` : line;
}

/** Runs every check (one failing to run is itself reported), printing each line as it completes. */
export async function runChecks(config: Config, write: (text: string) => void, checks = CHECKS): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const [name, check] of checks) {
    let r: CheckResult;
    try {
      r = await check(config);
    } catch (error) {
      r = result(name, 'fail', `the check could not run: ${(error as Error).message ?? String(error)}`);
    }
    results.push(r);
    write(`${formatResult(r)}\n`);
  }
  return results;
}

/** Returns the exit code: 1 when a check failed, 0 otherwise (warnings do not fail). */
export async function runDoctor(config: Config): Promise<number> {
  // Findings may quote agents.json (a refused name): shown escaped, like every CLI message (terminal-text.ts).
  const write = (text: string) => void process.stdout.write(escapeControls(text, { keepLineBreaks: true }));
  write(`roundtable doctor ${VERSION}\n`);
  const results = await runChecks(config, write);
  const count = (s: CheckStatus) => results.filter((r) => r.status === s).length;
  const failed = count('fail');
  const warned = count('warn');
  write(
    `\n${count('ok')} ok, ${warned} warning${warned === 1 ? '' : 's'}, ${failed} failed: ${
      failed ? 'fix the fail lines above' : warned ? 'the board can run; see the warnings' : 'all good'
    }\n`,
  );
  return failed ? 1 : 0;
}
