// The shipped systemd user unit for the model worker (deploy/roundtable-worker.service): secrets only through
// credentials, the bin it starts exists, and `systemd-analyze --user verify` accepts it when systemd is installed.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/board.js';

const UNIT = join(ROOT, 'deploy/roundtable-worker.service');
const SYSTEMD_ANALYZE = '/usr/bin/systemd-analyze';
const HAVE_SYSTEMD_ANALYZE = existsSync(SYSTEMD_ANALYZE);
/** Names of variables that would carry a secret if they held a value rather than a path. */
const SECRET_NAME = /TOKEN|KEY|SECRET|PASSWORD|PASSWD/i;

if (!HAVE_SYSTEMD_ANALYZE) console.warn(`systemd-analyze verify skipped: ${SYSTEMD_ANALYZE} is not installed (apt-get install systemd)`);

/** The unit's [section] key=value lines, in order; comments and blank lines dropped. */
function parseUnit(text: string): Array<{ section: string; key: string; value: string }> {
  const lines: Array<{ section: string; key: string; value: string }> = [];
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = header[1]!;
      continue;
    }
    const eq = line.indexOf('=');
    expect(eq, `a line without "=": ${line}`).toBeGreaterThan(0);
    lines.push({ section, key: line.slice(0, eq).trim(), value: line.slice(eq + 1).trim() });
  }
  return lines;
}

/** Environment=A=1 "B=two words" C=3 as [name, value] pairs. */
function assignments(value: string): Array<[string, string]> {
  return [...value.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => {
    const item = m[1] ?? m[2]!;
    const eq = item.indexOf('=');
    return [item.slice(0, eq), item.slice(eq + 1)];
  });
}

describe('deploy/roundtable-worker.service', () => {
  const text = readFileSync(UNIT, 'utf8');
  const lines = parseUnit(text);
  const service = lines.filter((l) => l.section === 'Service');
  const values = (key: string) => service.filter((l) => l.key === key).map((l) => l.value);

  it('passes the token and the model key as credentials, never in an Environment= line', () => {
    const credentials = new Map(values('LoadCredential').map((v) => [v.slice(0, v.indexOf(':')), v.slice(v.indexOf(':') + 1)]));
    expect(credentials.size).toBe(2);
    const env = new Map(values('Environment').flatMap(assignments));
    for (const [name, value] of env) {
      if (!SECRET_NAME.test(name)) continue;
      // A secret's variable may only name a file in the credentials directory (%d), never hold the secret.
      expect(name, `${name} in an Environment= line`).toMatch(/_FILE$/);
      expect(value, name).toMatch(/^%d\/[A-Za-z0-9._-]+$/);
      expect(credentials.has(value.slice(3)), `${name} points at credential ${value.slice(3)}, which no LoadCredential= loads`).toBe(true);
    }
    expect(env.get('ROUNDTABLE_TOKEN_FILE')).toMatch(/^%d\//);
    expect(env.get('WORKER_API_KEY_FILE')).toMatch(/^%d\//);
    expect(env.has('ROUNDTABLE_TOKEN')).toBe(false);
    expect(env.has('WORKER_API_KEY')).toBe(false);
    // Inherited values would win over the files.
    expect(values('UnsetEnvironment').join(' ').split(/\s+/)).toEqual(expect.arrayContaining(['ROUNDTABLE_TOKEN', 'WORKER_API_KEY']));
    // Nothing in the file looks like a token or a key.
    expect(text).not.toMatch(/rt_[A-Za-z0-9_-]{20,}|sk-[A-Za-z0-9]{16,}/);
    for (const file of values('EnvironmentFile')) expect(file).toMatch(/worker\.env$/);
  });

  it("starts the worker bin that bridge/package.json ships, and is hardened like the daemon's unit where a user unit can be", () => {
    const bins = (JSON.parse(readFileSync(join(ROOT, 'bridge/package.json'), 'utf8')) as { bin: Record<string, string> }).bin;
    const [start] = values('ExecStart');
    expect(values('ExecStart')).toHaveLength(1);
    const program = start!.split(/\s+/)[0]!.split('/').at(-1)!;
    expect(Object.keys(bins)).toContain(program);
    expect(program).toBe('roundtable-worker');
    expect(existsSync(join(ROOT, 'bridge', bins[program]!))).toBe(true);
    for (const key of ['NoNewPrivileges', 'PrivateUsers', 'PrivateTmp', 'PrivateDevices', 'RestrictSUIDSGID', 'LockPersonality', 'RestrictNamespaces']) {
      expect(values(key), key).toEqual(['true']);
    }
    expect(values('ProtectSystem')).toEqual(['strict']);
    expect(values('UMask')).toEqual(['0077']);
    expect(values('SystemCallFilter')).toEqual(['@system-service']);
    expect(lines.find((l) => l.section === 'Install' && l.key === 'WantedBy')?.value).toBe('default.target');
    // A system unit's settings that a user unit must not carry.
    for (const key of ['User', 'Group', 'DynamicUser']) expect(values(key), key).toEqual([]);
  });

  it.skipIf(!HAVE_SYSTEMD_ANALYZE)('passes systemd-analyze --user verify (ExecStart pointed at the built bin)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roundtable-unit-'));
    const runtime = mkdtempSync(join(tmpdir(), 'roundtable-xdg-'));
    try {
      const unit = join(dir, 'roundtable-worker.service');
      // The unit expects an installed bin; here the repository's own stands in for it.
      writeFileSync(unit, text.replace(/^ExecStart=\S+/m, `ExecStart=${join(ROOT, 'bridge/bin/roundtable-worker.js')}`));
      const run = await promisify(execFile)(SYSTEMD_ANALYZE, ['--user', 'verify', unit], {
        env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: dir, XDG_RUNTIME_DIR: runtime },
      }).catch((error: { code: number; stdout: string; stderr: string }) => error);
      // verify exits 0 on unknown keys too; those are only warnings on stderr.
      expect(run.stderr).toBe('');
      expect('code' in run ? run.code : 0).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(runtime, { recursive: true, force: true });
    }
  });
});
