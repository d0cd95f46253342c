// The published bridge, as `npm pack -w bridge` makes it (and so `npm publish -w bridge`): one bundle that needs no
// package but @napi-rs/keyring, and works from the tarball; and stdout, the MCP channel, is written by no module but the terminal one.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mcpClient, ROOT, startBoard } from '../helpers/board.js';
import { body, bridgeEnv, startBridge } from '../helpers/bridge.js';
import { packAndInstall, packList } from '../helpers/packed.js';

const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall'];
const VERSION = JSON.parse(readFileSync(join(ROOT, 'bridge/package.json'), 'utf8')).version as string;

describe('the packed bridge', () => {
  it('declares only @napi-rs/keyring, runs nothing at install, and serves a real board from the extracted tarball', async () => {
    const installed = packAndInstall('bridge');
    expect(Object.keys(installed.pkg.dependencies ?? {})).toEqual(['@napi-rs/keyring']);
    for (const field of ['devDependencies', 'bundleDependencies', 'bundledDependencies', 'optionalDependencies', 'peerDependencies']) {
      // npm keeps devDependencies in the tarball's package.json; they are never installed for a user.
      if (field !== 'devDependencies') expect(installed.pkg[field], field).toBeUndefined();
    }
    const scripts = (installed.pkg['scripts'] ?? {}) as Record<string, string>;
    expect(INSTALL_SCRIPTS.filter((s) => scripts[s])).toEqual([]);

    const run = (bin: string, args: string[]) =>
      spawnSync(process.execPath, [join(installed.dir, installed.pkg.bin[bin]!), ...args], { cwd: installed.app, env: bridgeEnv(), encoding: 'utf8', timeout: 30_000 });
    expect(run('roundtable-bridge', ['--version']).stdout.trim()).toBe(VERSION);
    for (const args of [['--help'], ['login', '--help']]) {
      const help = run('roundtable-bridge', args);
      expect(help.status, `${args.join(' ')}: ${help.stderr}`).toBe(0);
      expect(help.stdout).toContain('roundtable-bridge login --url URL');
    }
    const workerHelp = run('roundtable-worker', ['--help']);
    expect(workerHelp.status, workerHelp.stderr).toBe(0);
    expect(workerHelp.stdout).toContain('roundtable-worker');

    const board = await startBoard();
    const bridge = await startBridge({
      bin: join(installed.dir, installed.pkg.bin['roundtable-bridge']!),
      args: ['--url', board.url],
      env: bridgeEnv({ ROUNDTABLE_TOKEN: board.tokens['w1']! }),
    });
    const direct = await mcpClient(board, 'w1');
    try {
      // Once whoami told the bridge the role, it lists what /mcp lists for the same agent.
      expect(body(await bridge.client.callTool({ name: 'whoami', arguments: {} })).name).toBe('w1');
      expect(await bridge.client.listTools()).toEqual(await direct.listTools());
    } finally {
      await direct.close();
      await bridge.close();
      await board.stop();
      rmSync(join(installed.app, '..'), { recursive: true, force: true });
    }
  });

  it('npm pack --dry-run lists only the bins, the bundle, its third-party licenses, LICENSE, the README and package.json', () => {
    const files = packList('bridge').map((f) => f.path).sort();
    const allowed = [/^bin\/roundtable-(bridge|worker)\.js$/, /^bundle\/(cli|worker|chunk-[A-Z0-9]+)\.js$/, /^bundle\/THIRD-PARTY-LICENSES\.txt$/, /^LICENSE$/, /^README\.md$/, /^package\.json$/];
    expect(files.filter((f) => !allowed.some((re) => re.test(f)))).toEqual([]);
    for (const needed of ['bin/roundtable-bridge.js', 'bin/roundtable-worker.js', 'bundle/cli.js', 'bundle/worker.js', 'LICENSE', 'README.md', 'package.json']) {
      expect(files).toContain(needed);
    }
    expect(readFileSync(join(ROOT, 'bridge/LICENSE'), 'utf8')).toBe(readFileSync(join(ROOT, 'LICENSE'), 'utf8'));
  });
});

describe('npm run pack:bridge', () => {
  // git answers for ignore rules; an unpacked copy of the repository has none to check.
  it.skipIf(!existsSync(join(ROOT, '.git')))('writes its tarball into dist/, and git ignores it there and any other *.tgz', () => {
    const expected = join(ROOT, 'dist', `roundtable-bridge-${VERSION}.tgz`);
    const existed = existsSync(expected);
    execFileSync('npm', ['run', '--silent', 'pack:bridge'], { cwd: ROOT, encoding: 'utf8', timeout: 180_000 });
    try {
      expect(existsSync(expected)).toBe(true);
      const ignored = (path: string) => execFileSync('git', ['check-ignore', '--no-index', path], { cwd: ROOT, encoding: 'utf8' }).trim();
      expect(ignored(relative(ROOT, expected))).toBe(relative(ROOT, expected));
      expect(ignored('roundtable-bridge-0.1.0.tgz')).toBe('roundtable-bridge-0.1.0.tgz');
      expect(ignored('bridge/bundle/cli.js')).toBe('bridge/bundle/cli.js');
    } finally {
      if (!existed) rmSync(expected, { force: true });
    }
  });
});

describe('stdout is sacred', () => {
  it('no bridge module but terminal.ts writes to stdout or uses console', () => {
    const dir = join(ROOT, 'bridge/src');
    const offenders = readdirSync(dir)
      .filter((f) => f.endsWith('.ts') && f !== 'terminal.ts')
      // Listening for stdout's failure (serve.ts leaves on EPIPE) writes nothing.
      .filter((f) => /console\.(log|info|warn|error|debug)|process\.stdout(?!\.on\('error')/.test(readFileSync(join(dir, f), 'utf8')));
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
    expect(Object.keys(pkg.dependencies)).toEqual(['@napi-rs/keyring']);
  });
});

describe('what the packages say about themselves', () => {
  it('engines names the Node lines the tests run on: 20 here, 22 and 24 from test/apps (the odd lines are never LTS)', () => {
    for (const pkg of ['package.json', 'bridge/package.json', 'daemon/package.json']) {
      expect(JSON.parse(readFileSync(join(ROOT, pkg), 'utf8')).engines, pkg).toEqual({ node: '^20 || ^22 || >=24' });
    }
    const apps = JSON.parse(readFileSync(join(ROOT, 'test/apps/package.json'), 'utf8')).dependencies as Record<string, string>;
    expect([apps['node22'], apps['node24']]).toEqual([expect.stringMatching(/^npm:node@22\./), expect.stringMatching(/^npm:node@24\./)]);
  });

  it("the bridge's README names every client setup knows and every command the bridge has", async () => {
    const readme = readFileSync(join(ROOT, 'bridge/README.md'), 'utf8');
    const { CLIENT_NAMES } = await import('../../bridge/src/setup/clients.js');
    for (const client of CLIENT_NAMES) expect(readme).toContain(`\`${client}\``);
    for (const command of ['login', 'logout', 'status', 'setup CLIENT', 'hook CLIENT EVENT', 'wake --exec CMD', 'guard --install', 'worktree TASK', 'trailer MSGFILE', 'roundtable-worker']) expect(readme).toContain(command);
  });
});
