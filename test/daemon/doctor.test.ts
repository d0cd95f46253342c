// `roundtable doctor`: one line per check, a fix for each problem, exit 1 only when a check fails.
import { execFileSync } from 'node:child_process';
import { chmodSync, closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, readdirSync, statSync, symlinkSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { classifyCertificateExpiry, CERT_WARN_MS } from '../../daemon/src/doctor/tls.js';
import { api, daemonEnv, DEFAULT_AGENTS, startBoard, token, writeAgentsFile, type TestBoard, runCli } from '../helpers/board.js';
import { freePort } from '../helpers/net.js';
import { doctorLine } from '../helpers/doctor-output.js';


const cli = runCli;

const doctor = (env: Record<string, string>) => cli(['doctor'], env);

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'roundtable-doctor-'));
}

/** A directory with a valid agents.json (mode 600) and the environment a doctor run gets for it. */
function setUp(extra: Record<string, string> = {}): { dir: string; env: Record<string, string>; tokens: Record<string, string> } {
  const dir = tempDir();
  const tokens = Object.fromEntries(DEFAULT_AGENTS.map((a) => [a.name, token()]));
  writeAgentsFile(join(dir, 'agents.json'), DEFAULT_AGENTS, tokens);
  return { dir, env: daemonEnv(dir, { ROUNDTABLE_PORT: '1', ...extra }), tokens };
}

/** Starts and stops a board so the directory holds a real, closed database. */
async function closedBoard(): Promise<TestBoard> {
  const board = await startBoard();
  await api(board, 'lead', 'create_task', { title: 'something' });
  expect(await board.stop()).toBe(0);
  return board;
}

function envFor(board: TestBoard, extra: Record<string, string> = {}): Record<string, string> {
  return daemonEnv(board.dir, { ROUNDTABLE_PORT: String(board.port), ...extra });
}

describe('a healthy board', () => {
  it('running, with a fresh backup: every line ok, exit 0, no token and no board text printed', async () => {
    const board = await startBoard();
    try {
      const secretText = `board-text-${randomBytes(8).toString('hex')}`;
      expect((await api(board, 'lead', 'create_task', { title: secretText, description: secretText })).status).toBe(200);
      const backup = await cli(['backup'], envFor(board));
      expect(backup.code, backup.stderr).toBe(0);

      const result = await doctor(envFor(board));
      expect(result.code, result.stdout).toBe(0);
      for (const name of ['config', 'agents', 'database', 'backups', 'disk', 'tls', 'webhooks', 'git', 'port']) {
        expect(doctorLine(result.stdout, name).status, `${name} in\n${result.stdout}`).toBe('ok');
      }
      expect(doctorLine(result.stdout, 'config').detail).toContain(`http://127.0.0.1:${board.port}`);
      expect(doctorLine(result.stdout, 'config').detail).toContain(board.dbPath);
      expect(doctorLine(result.stdout, 'agents').detail).toMatch(/4 agents \(1 leader, 3 workers\), mode 600/);
      expect(doctorLine(result.stdout, 'database').detail).toMatch(/^integrity ok, schema (\d+) of \1, file [\d.]+ KB, WAL [\d.]+ KB$/);
      expect(doctorLine(result.stdout, 'backups').detail).toMatch(/^1 in .*, newest \d+ s old \(every 1 h, keep 48\)$/);
      expect(doctorLine(result.stdout, 'port').detail).toMatch(new RegExp(`/status answers in \\d+ ms \\(roundtable [^,]+, daemon pid ${board.process.pid}\\)`));
      expect(result.stdout).toMatch(/\n9 ok, 0 warnings, 0 failed/);
      for (const t of Object.values(board.tokens)) expect(result.stdout + result.stderr).not.toContain(t);
      expect(result.stdout + result.stderr).not.toContain(secretText);
    } finally {
      await board.stop();
    }
  });

  it('warnings do not fail: no database, no backups and no daemon yet is exit 0, each with a fix', async () => {
    const { env } = setUp({ ROUNDTABLE_PORT: String(await freePort()) });
    const result = await doctor(env);
    expect(result.code, result.stdout).toBe(0);
    expect(doctorLine(result.stdout, 'database')).toMatchObject({ status: 'warn', detail: expect.stringMatching(/no database yet/) });
    expect(doctorLine(result.stdout, 'backups')).toMatchObject({ status: 'warn', detail: expect.stringMatching(/no backups/), fix: expect.stringContaining('roundtable backup') });
    expect(doctorLine(result.stdout, 'port')).toMatchObject({ status: 'warn', detail: expect.stringMatching(/no daemon running/), fix: expect.stringMatching(/roundtable run.*systemctl start roundtable/) });
  });
});

describe('database', () => {
  it('a corrupted copy fails, naming the integrity check; doctor leaves no -wal or -shm behind', async () => {
    const board = await closedBoard();
    const dir = tempDir();
    const copy = join(dir, 'copy.db');
    copyFileSync(board.dbPath, copy);
    const size = statSync(copy).size;
    expect(size).toBeGreaterThan(8192);
    const fd = openSync(copy, 'r+');
    writeSync(fd, randomBytes(size - 4096), 0, size - 4096, 4096); // every page after the first
    closeSync(fd);

    const result = await doctor(daemonEnv(board.dir, { ROUNDTABLE_DB_PATH: copy, ROUNDTABLE_PORT: '1' }));
    expect(result.code, result.stdout).toBe(1);
    const db = doctorLine(result.stdout, 'database');
    expect(db.status).toBe('fail');
    expect(db.detail).toMatch(/integrity/);
    expect(db.fix).toMatch(/roundtable restore/);
    expect(readdirSync(dir).sort()).toEqual(['copy.db']);
  });

  it('a database from the future (schema_version 999) fails', async () => {
    const board = await closedBoard();
    const db = new Database(board.dbPath);
    db.prepare('INSERT INTO schema_version (version, applied_at) VALUES (999, ?)').run(new Date().toISOString());
    db.close();
    const result = await doctor(envFor(board));
    expect(result.code, result.stdout).toBe(1);
    const database = doctorLine(result.stdout, 'database');
    expect(database.status).toBe('fail');
    expect(database.detail).toMatch(/schema 999, newer than this roundtable/);
    expect(database.fix).toMatch(/upgrade roundtable-daemon|restore an older backup/);
    expect(readdirSync(board.dir).filter((f) => /-(wal|shm)$/.test(f))).toEqual([]);
  });

  it('a WAL file above 64 MB warns, with the restart as the fix', async () => {
    const board = await closedBoard();
    writeFileSync(`${board.dbPath}-wal`, '');
    truncateSync(`${board.dbPath}-wal`, 65 * 1024 * 1024); // sparse; SQLite ignores a WAL without a valid header
    const result = await doctor(envFor(board));
    expect(doctorLine(result.stdout, 'database')).toMatchObject({
      status: 'warn',
      detail: expect.stringMatching(/^integrity ok, .*WAL file is 65\.0 MB, above 64\.0 MB$/),
      fix: expect.stringContaining('restart the board'),
    });
  });

  it('an older schema warns that it migrates at the next start', async () => {
    const board = await closedBoard();
    const db = new Database(board.dbPath);
    const top = (db.prepare('SELECT MAX(version) AS v FROM schema_version').get() as { v: number }).v;
    db.prepare('DELETE FROM schema_version WHERE version = ?').run(top);
    db.close();
    const result = await doctor(envFor(board));
    expect(doctorLine(result.stdout, 'database')).toMatchObject({ status: 'warn', detail: expect.stringMatching(new RegExp(`schema ${top - 1} of ${top}: it migrates`)) });
  });
});

describe('agents.json', () => {
  it('mode 644 warns, with chmod 600 as the fix, and does not fail', async () => {
    const { dir, env } = setUp();
    chmodSync(join(dir, 'agents.json'), 0o644);
    const result = await doctor(env);
    const agents = doctorLine(result.stdout, 'agents');
    expect(agents.status).toBe('warn');
    expect(agents.detail).toMatch(/mode 644: group and others can read it/);
    expect(agents.fix).toBe(`chmod 600 ${join(dir, 'agents.json')}`);
    expect(result.code, result.stdout).toBe(0);
  });

  it('a plaintext token warns with the rotate command and is never printed', async () => {
    const dir = tempDir();
    const secret = token();
    writeFileSync(join(dir, 'agents.json'), JSON.stringify({ agents: [{ name: 'boss', role: 'leader', token: secret }] }), { mode: 0o600 });
    const result = await doctor(daemonEnv(dir, { ROUNDTABLE_PORT: '1' }));
    expect(doctorLine(result.stdout, 'agents')).toMatchObject({ status: 'warn', detail: expect.stringContaining('plaintext token for boss'), fix: expect.stringContaining('roundtable agents rotate boss') });
    expect(result.stdout + result.stderr).not.toContain(secret);
  });

  it('a broken file fails without quoting it (it may hold a token); a missing one says roundtable init', async () => {
    const dir = tempDir();
    const secret = token();
    writeFileSync(join(dir, 'agents.json'), `${secret} {"agents": [`, { mode: 0o600 });
    const broken = await doctor(daemonEnv(dir, { ROUNDTABLE_PORT: '1' }));
    expect(broken.code).toBe(1);
    expect(doctorLine(broken.stdout, 'agents')).toMatchObject({ status: 'fail', detail: expect.stringMatching(/not valid JSON at line \d+, column \d+; /) });
    expect(broken.stdout + broken.stderr).not.toContain(secret.slice(0, 8));

    const missing = await doctor(daemonEnv(tempDir(), { ROUNDTABLE_PORT: '1' }));
    expect(missing.code).toBe(1);
    expect(doctorLine(missing.stdout, 'agents')).toMatchObject({ status: 'fail', fix: expect.stringContaining('roundtable init') });
  });
});

describe('backups and disk', () => {
  it('a stale newest backup warns; a symlinked backup folder fails', async () => {
    const { dir, env } = setUp();
    mkdirSync(join(dir, 'backups'));
    writeFileSync(join(dir, 'backups', 'roundtable-20200101T000000Z.db'), '');
    const stale = await doctor(env);
    expect(doctorLine(stale.stdout, 'backups')).toMatchObject({ status: 'warn', detail: expect.stringMatching(/^1 in .*newest .* old.*older than twice the interval/) });

    const elsewhere = tempDir();
    const linked = join(dir, 'linked-backups');
    symlinkSync(elsewhere, linked);
    const symlinked = await doctor({ ...env, ROUNDTABLE_BACKUP_DIR: linked });
    expect(symlinked.code).toBe(1);
    expect(doctorLine(symlinked.stdout, 'backups')).toMatchObject({ status: 'fail', detail: expect.stringContaining('is a symlink'), fix: expect.stringContaining('ROUNDTABLE_BACKUP_DIR') });
  });

  it('an empty backup folder warns "no backups"', async () => {
    const { dir, env } = setUp();
    mkdirSync(join(dir, 'backups'));
    const result = await doctor(env);
    expect(doctorLine(result.stdout, 'backups')).toMatchObject({ status: 'warn', detail: expect.stringMatching(/^no backups in /), fix: expect.stringContaining('roundtable backup') });
  });

  it('less free space than ROUNDTABLE_BACKUP_MIN_FREE_MB warns, naming the variable', async () => {
    const backups = tempDir();
    const { env } = setUp({ ROUNDTABLE_BACKUP_MIN_FREE_MB: '10000000', ROUNDTABLE_BACKUP_DIR: backups });
    const result = await doctor(env);
    const disk = doctorLine(result.stdout, 'disk');
    expect(disk.status).toBe('warn');
    expect(disk.detail).toContain('below ROUNDTABLE_BACKUP_MIN_FREE_MB=10000000, so backups are skipped');
    expect(disk.fix).toContain('ROUNDTABLE_BACKUP_MIN_FREE_MB');
  });
});

describe('port', () => {
  it('a running daemon that does not answer on the configured port fails', async () => {
    const board = await startBoard();
    try {
      const result = await doctor(envFor(board, { ROUNDTABLE_PORT: String(await freePort()) }));
      expect(result.code, result.stdout).toBe(1);
      expect(doctorLine(result.stdout, 'port')).toMatchObject({
        status: 'fail',
        detail: expect.stringMatching(new RegExp(`a daemon \\(pid ${board.process.pid}\\) uses the database, but .* does not answer`)),
        fix: expect.stringContaining('ROUNDTABLE_PORT'),
      });
    } finally {
      await board.stop();
    }
  });
});

describe('TLS', () => {
  function selfSigned(dir: string, name: string, days: number): { cert: string; key: string } {
    const cert = join(dir, `${name}.crt`);
    const key = join(dir, `${name}.key`);
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', String(days), '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', key, '-out', cert,
    ], { stdio: 'ignore' });
    chmodSync(key, 0o600);
    return { cert, key };
  }

  /** A certificate valid only in January 2020, made with `openssl ca` (works on OpenSSL 1.1 and 3.x). */
  function expired(dir: string): { cert: string; key: string } {
    const key = join(dir, 'old.key');
    const csr = join(dir, 'old.csr');
    const cert = join(dir, 'old.crt');
    execFileSync('openssl', ['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-keyout', key, '-out', csr], { stdio: 'ignore' });
    chmodSync(key, 0o600);
    writeFileSync(join(dir, 'index.txt'), '');
    writeFileSync(join(dir, 'serial'), '01\n');
    writeFileSync(
      join(dir, 'ca.cnf'),
      ['[ca]', 'default_ca = local', '[local]', `database = ${dir}/index.txt`, `new_certs_dir = ${dir}`, `serial = ${dir}/serial`,
        'default_md = sha256', 'policy = any', 'email_in_dn = no', '[any]', 'commonName = supplied', ''].join('\n'),
    );
    execFileSync('openssl', ['ca', '-batch', '-config', join(dir, 'ca.cnf'), '-selfsign', '-keyfile', key, '-in', csr, '-out', cert,
      '-startdate', '20200101000000Z', '-enddate', '20200131000000Z', '-notext'], { stdio: 'ignore' });
    return { cert, key };
  }

  it('a valid certificate on a running HTTPS board: tls and port ok', async () => {
    const dir = tempDir();
    const good = selfSigned(dir, 'good', 90);
    const tls = { ROUNDTABLE_TLS_CERT: good.cert, ROUNDTABLE_TLS_KEY: good.key };
    const board = await startBoard({ env: tls });
    try {
      const result = await doctor(envFor(board, tls));
      expect(doctorLine(result.stdout, 'tls')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/^certificate valid until \d{4}-\d\d-\d\d \(\d+(\.\d)? d\), key matches$/) });
      expect(doctorLine(result.stdout, 'port')).toMatchObject({ status: 'ok', detail: expect.stringContaining(`https://127.0.0.1:${board.port}/status answers`) });
      expect(result.code, result.stdout).toBe(0);
    } finally {
      await board.stop();
    }
  });

  it('a key that does not match the certificate fails', async () => {
    const dir = tempDir();
    const a = selfSigned(dir, 'a', 90);
    const b = selfSigned(dir, 'b', 90);
    const { env } = setUp({ ROUNDTABLE_TLS_CERT: a.cert, ROUNDTABLE_TLS_KEY: b.key });
    const result = await doctor(env);
    expect(result.code, result.stdout).toBe(1);
    expect(doctorLine(result.stdout, 'tls')).toMatchObject({ status: 'fail', detail: expect.stringContaining('the key does not match the certificate'), fix: expect.stringContaining('ROUNDTABLE_TLS_KEY') });
  });

  it('an expired certificate fails; one expiring within 14 days warns; a readable key warns', async () => {
    const dir = tempDir();
    const old = expired(dir);
    const oldRun = await doctor(setUp({ ROUNDTABLE_TLS_CERT: old.cert, ROUNDTABLE_TLS_KEY: old.key }).env);
    expect(oldRun.code, oldRun.stdout).toBe(1);
    expect(doctorLine(oldRun.stdout, 'tls')).toMatchObject({ status: 'fail', detail: expect.stringMatching(/key matches; the certificate expired on 2020-01-31/), fix: expect.stringContaining('renew') });

    const soon = selfSigned(dir, 'soon', 1);
    chmodSync(soon.key, 0o644);
    const soonRun = await doctor(setUp({ ROUNDTABLE_TLS_CERT: soon.cert, ROUNDTABLE_TLS_KEY: soon.key }).env);
    const tls = doctorLine(soonRun.stdout, 'tls');
    expect(tls.status).toBe('warn');
    expect(tls.detail).toMatch(/the certificate expires in (1 d|2\d(\.\d)? h)/);
    expect(tls.detail).toMatch(/key file: group and others can read it/);
    expect(tls.fix).toContain(`chmod 600 ${soon.key}`);
  });

  it('an unreadable certificate file fails, naming the variable', async () => {
    const { dir, env } = setUp({ ROUNDTABLE_TLS_CERT: '/nonexistent/cert.pem', ROUNDTABLE_TLS_KEY: '/nonexistent/key.pem' });
    void dir;
    const result = await doctor(env);
    expect(doctorLine(result.stdout, 'tls')).toMatchObject({ status: 'fail', detail: expect.stringContaining('cannot read ROUNDTABLE_TLS_CERT /nonexistent/cert.pem (ENOENT)') });
  });

  it('classifies validity periods', () => {
    const now = new Date('2025-06-01T00:00:00Z');
    const day = 24 * 3600 * 1000;
    const at = (offsetDays: number) => new Date(now.getTime() + offsetDays * day);
    expect(classifyCertificateExpiry(at(-90), at(-1), now)).toEqual({ status: 'fail', detail: 'the certificate expired on 2025-05-31, 24 h ago' });
    expect(classifyCertificateExpiry(at(-90), now, now).status).toBe('fail');
    expect(classifyCertificateExpiry(at(-90), at(3), now)).toEqual({ status: 'warn', detail: 'the certificate expires in 3 d, on 2025-06-04' });
    expect(classifyCertificateExpiry(at(-90), new Date(now.getTime() + CERT_WARN_MS - 1000), now).status).toBe('warn');
    expect(classifyCertificateExpiry(at(-90), new Date(now.getTime() + CERT_WARN_MS), now).status).toBe('ok');
    expect(classifyCertificateExpiry(at(-90), at(60), now)).toEqual({ status: 'ok', detail: 'valid until 2025-07-31 (60 d)' });
    expect(classifyCertificateExpiry(at(1), at(60), now)).toEqual({ status: 'fail', detail: 'the certificate is not valid before 2025-06-02' });
  });
});
