// `setup` run from a checkout, and an entry whose package is on no registry (issue 31, item 1). From the checkout, the
// entry is this Node.js by its full path and the checkout's script: it starts with no node on PATH and answers whoami
// from a real board. A bridge in npx's cache whose version the registry does not have (a stand-in registry answering
// 404, as npm's did for roundtable-bridge@0.1.0) gets the npx entry, its check says the package is not on the
// registry and what to run instead, and the app's config is left as it was: the same bytes and mode, no backup, or no
// file at all when there was none.
import { execFile } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startBoard, type TestBoard } from '../helpers/board.js';
import { BRIDGE_BIN } from '../helpers/bridge.js';
import { standInServer, type StandIn } from '../helpers/net.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let scratch: string;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'roundtable-setup-checkout-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function run(bin: string, args: string[], env: Record<string, string>, cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, 'setup', ...args], { env, cwd, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('setup from a checkout', () => {
  let board: TestBoard;
  beforeAll(async () => {
    board = await startBoard();
  });
  afterAll(async () => board?.stop());

  it("names this Node.js and the checkout's script; the entry starts without node on PATH and answers whoami", async () => {
    const home = mkdtempSync(join(scratch, 'home-'));
    // No node, no npx on PATH: what a desktop-started app may give the entry.
    const empty = mkdtempSync(join(scratch, 'path-'));
    const setup = await run(BRIDGE_BIN, ['claude-code', '--url', board.url], { PATH: empty, HOME: home, ROUNDTABLE_TOKEN: board.tokens['w1']! }, home);
    expect(setup.code, setup.stdout + setup.stderr).toBe(0);
    const entry = JSON.parse(readFileSync(join(home, '.claude.json'), 'utf8')).mcpServers.roundtable;
    const script = realpathSync(join(ROOT, 'bridge/bin/roundtable-bridge.js'));
    expect(entry).toEqual({ command: process.execPath, args: [script, '--url', board.url] });
    expect(setup.stdout).toContain(`The entry runs this checkout's bridge, which is no npm install: ${process.execPath} ${script}`);
    expect(setup.stdout).toContain('and the board answered whoami through it: w1 (worker)');
    expect(setup.stdout).not.toContain('npx');
  });
});

describe('an npx entry whose package the registry does not have', () => {
  let registry: StandIn;
  let copy: string;
  const asked: string[] = [];

  beforeAll(async () => {
    // npm's registry answers so for a name or version it does not have.
    registry = await standInServer((req, res) => {
      asked.push(req.url ?? '');
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"Not found"}');
    });
    // The bridge as npx would have unpacked it: in its cache, so setup names it by npx.
    const modules = join(scratch, 'npm-cache', '_npx', 'ab12', 'node_modules');
    copy = join(modules, 'roundtable-bridge');
    mkdirSync(copy, { recursive: true });
    for (const part of ['bin', 'bundle', 'package.json']) cpSync(join(ROOT, 'bridge', part), join(copy, part), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', '@napi-rs'), join(modules, '@napi-rs'));
  });
  afterAll(async () => registry?.close());

  const env = (home: string) => ({
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: home,
    npm_config_registry: `${registry.url}/`,
    npm_config_cache: join(home, '.npm'),
    npm_config_update_notifier: 'false',
  });

  it('says the package is not on the registry and what to run instead, and puts the config back as it was', async () => {
    const home = mkdtempSync(join(scratch, 'home-'));
    const file = join(home, '.claude.json');
    const original = '{\n  "numStartups": 3,\n  "mcpServers": { "other": { "command": "other-mcp" } }\n}\n';
    writeFileSync(file, original);
    chmodSync(file, 0o600);
    const setup = await run(join(copy, 'bin/roundtable-bridge.js'), ['claude-code', '--url', 'http://127.0.0.1:9'], env(home), home);
    expect(setup.code).toBe(1);
    expect(asked.some((url) => url.includes('roundtable-bridge'))).toBe(true);
    expect(setup.stdout).toContain('but npm found no such package on its registry (E404)');
    expect(setup.stdout).toMatch(/roundtable-bridge@\d+\.\d+\.\d+\S* is not on the npm registry, so the entry `npx -y roundtable-bridge@\S+` cannot start\. Left [^\n]*\.claude\.json as it was\./);
    expect(setup.stdout).toContain('Instead, in a checkout of Roundtable run `npm run pack:bridge`, then `npm install -g dist/roundtable-bridge-*.tgz`, and run `roundtable-bridge setup claude-code` again');
    expect(setup.stdout).not.toContain('A complete log of this run');
    expect(readFileSync(file, 'utf8')).toBe(original);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(home).filter((name) => name.startsWith('.claude.json'))).toEqual(['.claude.json']);
  });

  it('removes the file it created when there was none', async () => {
    const home = mkdtempSync(join(scratch, 'home-'));
    const setup = await run(join(copy, 'bin/roundtable-bridge.js'), ['claude-code', '--url', 'http://127.0.0.1:9'], env(home), home);
    expect(setup.code).toBe(1);
    expect(setup.stdout).toContain('is not on the npm registry');
    expect(existsSync(join(home, '.claude.json'))).toBe(false);
  });
});
