// The published daemon, as `npm pack -w daemon` makes it: it installs without asking the registry for roundtable-shared,
// and `roundtable-daemon start` in an empty folder serves a board, with its migrations and web page found in the package.
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/board.js';
import { eventually } from '../helpers/eventually.js';
import { freePort } from '../helpers/net.js';
import { packAndInstall, packList } from '../helpers/packed.js';
import { spawnTracked, stopProcess } from '../helpers/processes.js';

describe('the packed daemon', () => {
  it('depends on no roundtable-* package, and `roundtable-daemon start` in an empty folder serves /status, a tool call and the page', async () => {
    const installed = packAndInstall('daemon');
    const deps = Object.keys(installed.pkg.dependencies ?? {});
    expect(deps.filter((d) => d.startsWith('roundtable'))).toEqual([]);
    expect(deps).toContain('better-sqlite3');
    expect(installed.pkg.bin).toEqual({ 'roundtable-daemon': 'bin/roundtable.js', roundtable: 'bin/roundtable.js' });

    const folder = join(installed.app, 'board');
    mkdirSync(folder);
    const port = await freePort();
    let stdout = '';
    let stderr = '';
    const child = spawnTracked(process.execPath, [join(installed.dir, installed.pkg.bin['roundtable-daemon']!), 'start', '--json'], {
      cwd: folder,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: folder, ROUNDTABLE_PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      const base = `http://127.0.0.1:${port}`;
      const status = await eventually(`the packed daemon to answer /status (stderr: ${stderr.slice(-300)})`, async () => {
        const res = await fetch(`${base}/status`).catch(() => undefined);
        return res?.ok ? ((await res.json()) as Record<string, unknown>) : undefined;
      });
      expect(status['version']).toBe(installed.pkg.version);
      // `start --json` printed the tokens it made as its first line.
      const printed = JSON.parse(stdout.split('\n')[0]!) as { agents: Array<{ name: string; role: string; token: string }> };
      const leader = printed.agents.find((a) => a.role === 'leader')!;
      const res = await fetch(`${base}/api/v1/tools/whoami`, {
        method: 'POST',
        headers: { authorization: `Bearer ${leader.token}`, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { name: string }).name).toBe(leader.name);
      const page = await fetch(`${base}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<html');
    } finally {
      await stopProcess(child);
      rmSync(join(installed.app, '..'), { recursive: true, force: true });
    }
  });

  it('npm pack --dry-run lists only the bin, the bundle, migrations (SQLite and PostgreSQL), the web page, LICENSE and package.json', () => {
    const files = packList('daemon').map((f) => f.path).sort();
    const allowed = [/^bin\/roundtable\.js$/, /^bundle\/(cli|chunk-[A-Z0-9]+)\.js$/, /^migrations(-pg)?\/\d{3}_[a-z0-9_]+\.sql$/, /^web\/[a-z]+\.(html|js|css|svg)$/, /^LICENSE$/, /^package\.json$/];
    expect(files.filter((f) => !allowed.some((re) => re.test(f)))).toEqual([]);
    for (const needed of ['bin/roundtable.js', 'bundle/cli.js', 'migrations/001_board.sql', 'migrations-pg/001_board.sql', 'web/index.html', 'web/app.js', 'LICENSE']) expect(files).toContain(needed);
    expect(readFileSync(join(ROOT, 'daemon/LICENSE'), 'utf8')).toBe(readFileSync(join(ROOT, 'LICENSE'), 'utf8'));
  });
});

describe('the live page the daemon ships', () => {
  it('is one script bundled from daemon/page: under 30 KB compressed, with no HTML-parsing sink and no inline code in the page', () => {
    const script = readFileSync(join(ROOT, 'daemon/web/app.js'));
    expect(gzipSync(script).length).toBeLessThan(30 * 1024);
    // The page's budget (docs/DECISIONS.md, issue 36): script, style and HTML together under 36 KB compressed.
    const page = ['app.js', 'app.css', 'index.html'].map((f) => gzipSync(readFileSync(join(ROOT, 'daemon/web', f)), { level: 9 }).length);
    expect(page.reduce((a, b) => a + b, 0)).toBeLessThan(36 * 1024);
    const text = script.toString('utf8');
    expect(text).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function/);
    // Built from the page's modules (each file's opening line names its concern; the bundle keeps their code, not comments).
    expect(readdirSync(join(ROOT, 'daemon/page')).filter((f) => f.endsWith('.ts')).length).toBeGreaterThan(5);
    expect(text).toContain('/actions/');
    const html = readFileSync(join(ROOT, 'daemon/web/index.html'), 'utf8');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|\son[a-z]+=|\sstyle=|<style/i);
  });
});

describe('packages that must never be published', () => {
  it('the root and shared/ are private; the bridge and the daemon are not', () => {
    const pkg = (path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as { private?: boolean };
    expect(pkg('package.json').private).toBe(true);
    expect(pkg('shared/package.json').private).toBe(true);
    expect(pkg('bridge/package.json').private).toBeUndefined();
    expect(pkg('daemon/package.json').private).toBeUndefined();
  });
});
