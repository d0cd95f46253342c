#!/usr/bin/env node
// `npm run release:check`: packs both packages with npm's own `npm pack`, installs each alone into an empty folder
// from the registry (the bridge with --ignore-scripts, as an agent machine would; the daemon normally, for
// better-sqlite3), starts the daemon with `roundtable-daemon start` and checks /status, then runs the installed bridge
// against it over stdio, once opening with initialize (2025-11-25) and once on 2026-07-28 (server/discover and the
// per-request envelope): tools/list and a whoami call each time. Exits non-zero with the reason on the first failure.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'roundtable-release-check-'));
const step = (text) => process.stdout.write(`release:check: ${text}\n`);
const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 600_000 });

function installAlone(workspace, extra) {
  const [{ filename, size }] = JSON.parse(npm(['pack', '--json', '--loglevel=error', '--pack-destination', work, '-w', workspace], ROOT));
  step(`${filename}: ${(size / 1024).toFixed(0)} KB`);
  const app = join(work, `${workspace}-app`);
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), '{"name":"empty","private":true}\n');
  npm(['install', '--no-audit', '--no-fund', '--loglevel=error', ...extra, join(work, filename)], app);
  step(`installed ${filename} alone into an empty folder${extra.length ? ` (${extra.join(' ')})` : ''}`);
  return app;
}

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

let daemon;
try {
  const bridgeApp = installAlone('bridge', ['--ignore-scripts']);
  const daemonApp = installAlone('daemon', []);
  const boardDir = join(work, 'board');
  mkdirSync(boardDir);
  const port = await freePort();
  daemon = spawn(join(daemonApp, 'node_modules/.bin/roundtable-daemon'), ['start', '--json'], {
    cwd: boardDir,
    env: { PATH: process.env.PATH, HOME: boardDir, ROUNDTABLE_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  daemon.stdout.on('data', (d) => (stdout += d));
  daemon.stderr.on('data', (d) => (stderr += d));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await fetch(`${base}/status`).catch(() => undefined);
    if (res?.ok) break;
    if (daemon.exitCode !== null || Date.now() > deadline) throw new Error(`the installed daemon did not answer /status: ${stderr.slice(-500)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  step(`roundtable-daemon start answers ${base}/status`);
  const agents = JSON.parse(stdout.split('\n')[0]).agents;
  const worker = agents.find((a) => a.role === 'worker');
  for (const mode of ['legacy', { pin: '2026-07-28' }]) {
    const transport = new StdioClientTransport({
      command: join(bridgeApp, 'node_modules/.bin/roundtable-bridge'),
      args: ['--url', base],
      env: { PATH: process.env.PATH, HOME: bridgeApp, ROUNDTABLE_TOKEN: worker.token },
      stderr: 'inherit',
    });
    const client = new Client({ name: 'release-check', version: '0.0.0' }, { versionNegotiation: { mode } });
    await client.connect(transport);
    const { tools } = await client.listTools();
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    const era = client.getProtocolEra();
    await client.close();
    const me = JSON.parse(result.content[0].text);
    if (me.name !== worker.name) throw new Error(`whoami through the installed bridge answered ${result.content[0].text}`);
    step(`roundtable-bridge (${era}): tools/list has ${tools.length} tools; whoami is ${me.name}`);
  }
  step('passed');
} catch (error) {
  process.stderr.write(`release:check failed: ${error.stack ?? error}\n`);
  process.exitCode = 1;
} finally {
  daemon?.kill('SIGTERM');
  await new Promise((r) => (daemon && daemon.exitCode === null ? daemon.once('exit', r) : r()));
  rmSync(work, { recursive: true, force: true });
}
