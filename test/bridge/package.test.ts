// The published bridge: a self-contained tarball that installs with --ignore-scripts into an empty folder and works;
// and stdout, the MCP channel, is written by no module but the terminal one.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mcpClient, ROOT, startBoard } from '../helpers/board.js';
import { body, bridgeEnv, startBridge } from '../helpers/bridge.js';

const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall'];

function packageJsons(dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory() && !entry.isSymbolicLink()) walk(path);
      else if (entry.name === 'package.json') found.push(path);
    }
  };
  walk(dir);
  return found;
}

describe('the packed bridge', () => {
  it('installs into an empty folder with --ignore-scripts, runs nothing at install, needs no compiler, and serves', async () => {
    const work = mkdtempSync(join(tmpdir(), 'roundtable-pack-'));
    const tarball = execFileSync(process.execPath, [join(ROOT, 'scripts/pack-bridge.mjs'), work], { encoding: 'utf8' }).trim();
    const app = join(work, 'app');
    execFileSync('mkdir', ['-p', app]);
    writeFileSync(join(app, 'package.json'), '{"name":"empty","private":true}');
    execFileSync('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', tarball], { cwd: app, stdio: 'pipe', timeout: 180_000 });
    const modules = join(app, 'node_modules');
    expect(existsSync(join(modules, 'better-sqlite3'))).toBe(false);
    expect(existsSync(join(modules, 'roundtable-daemon'))).toBe(false);
    expect(existsSync(join(modules, 'roundtable-bridge/node_modules/roundtable-shared/dist/index.js'))).toBe(true);
    const withScripts = packageJsons(modules).filter((path) => {
      const pkg = JSON.parse(readFileSync(path, 'utf8')) as { scripts?: Record<string, string>; gypfile?: boolean };
      return pkg.gypfile === true || INSTALL_SCRIPTS.some((s) => pkg.scripts?.[s]);
    });
    expect(withScripts).toEqual([]);
    expect(readdirSync(modules, { recursive: true }).filter((f) => String(f).endsWith('binding.gyp'))).toEqual([]);

    // As a user would run it: npx finds the installed bin (no download) and runs it through its shebang.
    const version = execFileSync('npx', ['--no-install', 'roundtable-bridge', '--version'], { cwd: app, encoding: 'utf8', timeout: 60_000 }).trim();
    expect(version).toBe(JSON.parse(readFileSync(join(ROOT, 'bridge/package.json'), 'utf8')).version);

    const board = await startBoard();
    const bin = join(modules, 'roundtable-bridge/bin/roundtable-bridge.js');
    const bridge = await startBridge({ bin, args: ['--url', board.url], env: bridgeEnv({ ROUNDTABLE_TOKEN: board.tokens['w1']! }) });
    const direct = await mcpClient(board, 'w1');
    try {
      expect(await bridge.client.listTools()).toEqual(await direct.listTools());
      expect(body(await bridge.client.callTool({ name: 'whoami', arguments: {} })).name).toBe('w1');
    } finally {
      await direct.close();
      await bridge.close();
      await board.stop();
    }
  });
});

describe('npm run pack:bridge', () => {
  // git answers for ignore rules; an unpacked copy of the repository has none to check.
  it.skipIf(!existsSync(join(ROOT, '.git')))('writes its tarball into dist/, and git ignores it there and any other *.tgz', () => {
    const expected = join(ROOT, 'dist', `roundtable-bridge-${JSON.parse(readFileSync(join(ROOT, 'bridge/package.json'), 'utf8')).version}.tgz`);
    const existed = existsSync(expected);
    const tarball = execFileSync(process.execPath, [join(ROOT, 'scripts/pack-bridge.mjs')], { encoding: 'utf8', timeout: 120_000 }).trim();
    try {
      expect(tarball).toBe(expected);
      expect(existsSync(tarball)).toBe(true);
      const ignored = (path: string) => execFileSync('git', ['check-ignore', '--no-index', path], { cwd: ROOT, encoding: 'utf8' }).trim();
      expect(ignored(relative(ROOT, tarball))).toBe(relative(ROOT, tarball));
      expect(ignored('roundtable-bridge-0.1.0.tgz')).toBe('roundtable-bridge-0.1.0.tgz');
    } finally {
      if (!existed) rmSync(tarball, { force: true });
    }
  });
});

describe('stdout is sacred', () => {
  it('no bridge module but terminal.ts writes to stdout or uses console', () => {
    const dir = join(ROOT, 'bridge/src');
    const offenders = readdirSync(dir)
      .filter((f) => f.endsWith('.ts') && f !== 'terminal.ts')
      .filter((f) => /console\.(log|info|warn|error|debug)|process\.stdout/.test(readFileSync(join(dir, f), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('every bin starts with a plain `#!/usr/bin/env node` (busybox env and some shims cannot run `env -S`)', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'bridge/package.json'), 'utf8')) as { bin: Record<string, string> };
    for (const bin of Object.values(pkg.bin)) expect(readFileSync(join(ROOT, 'bridge', bin), 'utf8').split('\n')[0], bin).toBe('#!/usr/bin/env node');
  });

  it('the bridge package declares no dependency that compiles', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'bridge/package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(pkg.dependencies)).not.toContain('better-sqlite3');
    expect(Object.keys(pkg.dependencies)).not.toContain('keytar');
  });
});
