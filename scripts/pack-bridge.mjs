#!/usr/bin/env node
// Packs roundtable-bridge as a self-contained tarball: shared/ is bundled inside it, because npm does not
// bundle a workspace package from a symlink. Usage: node scripts/pack-bridge.mjs [DEST_DIR]; prints the tarball path.
// DEST_DIR defaults to dist/ at the repository root, which git ignores, so no tarball lands among the sources.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(new URL('..', import.meta.url).pathname);
const dest = resolve(process.argv[2] ?? join(root, 'dist'));
const staging = mkdtempSync(join(tmpdir(), 'roundtable-bridge-pack-'));
try {
  for (const entry of ['package.json', 'bin', 'dist']) cpSync(join(root, 'bridge', entry), join(staging, entry), { recursive: true });
  const shared = join(staging, 'node_modules', 'roundtable-shared');
  mkdirSync(shared, { recursive: true });
  cpSync(join(root, 'shared', 'package.json'), join(shared, 'package.json'));
  cpSync(join(root, 'shared', 'dist'), join(shared, 'dist'), { recursive: true, filter: (src) => !src.endsWith('.map') });
  const bridgeDeps = JSON.parse(readFileSync(join(root, 'bridge', 'package.json'), 'utf8')).bundleDependencies ?? [];
  if (!bridgeDeps.includes('roundtable-shared')) throw new Error('bridge/package.json must list roundtable-shared in bundleDependencies');
  mkdirSync(dest, { recursive: true });
  const out = execFileSync('npm', ['pack', '--silent', '--pack-destination', dest], { cwd: staging, encoding: 'utf8' }).trim().split('\n').pop();
  process.stdout.write(`${join(dest, out)}\n`);
} finally {
  rmSync(staging, { recursive: true, force: true });
}
