// Packs a workspace with npm's own `npm pack -w NAME` and lays the tarball out as an install would, outside the repository.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT } from './board.js';

export interface PackedFile {
  path: string;
  size: number;
}

/** `npm pack --dry-run --json -w NAME`: what npm would put in the tarball. */
export function packList(workspace: string): PackedFile[] {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '-w', workspace], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
  return (JSON.parse(out) as Array<{ files: PackedFile[] }>)[0]!.files;
}

export interface Installed {
  /** The folder with node_modules/, as an empty app folder after `npm install TARBALL`. */
  readonly app: string;
  /** node_modules/NAME: the package as the tarball holds it. */
  readonly dir: string;
  readonly tarball: string;
  readonly pkg: { name: string; version: string; bin: Record<string, string>; dependencies?: Record<string, string>; [key: string]: unknown };
}

/**
 * Packs the workspace (its prepack builds the bundle) and extracts the tarball into a fresh app folder's node_modules.
 * Each of the package's declared dependencies is linked from the repository's node_modules, the stand-in for the
 * registry install CI does not wait for; nothing else is there, so an undeclared import fails as it would for a user.
 */
export function packAndInstall(workspace: string): Installed {
  const work = mkdtempSync(join(tmpdir(), `roundtable-${workspace}-pack-`));
  const out = execFileSync('npm', ['pack', '--json', '--loglevel=error', '--pack-destination', work, '-w', workspace], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 180_000 });
  const tarball = join(work, (JSON.parse(out) as Array<{ filename: string }>)[0]!.filename);
  const app = join(work, 'app');
  const modules = join(app, 'node_modules');
  const pkgJson = JSON.parse(execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' })) as Installed['pkg'];
  const dir = join(modules, pkgJson.name);
  mkdirSync(dir, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1']);
  for (const dep of Object.keys(pkgJson.dependencies ?? {})) {
    mkdirSync(dirname(join(modules, dep)), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', dep), join(modules, dep), 'dir');
  }
  return { app, dir, tarball, pkg: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) };
}

/** `npm pack -w NAME` into a fresh folder (its prepack builds the bundle); the tarball's path. */
export function packWorkspace(workspace: string): string {
  const work = mkdtempSync(join(tmpdir(), `roundtable-${workspace}-tgz-`));
  const out = execFileSync('npm', ['pack', '--json', '--loglevel=error', '--pack-destination', work, '-w', workspace], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 180_000 });
  return join(work, (JSON.parse(out) as Array<{ filename: string }>)[0]!.filename);
}

/**
 * Installs a tarball as a user would: `npm install -g --prefix PREFIX` (bins in PREFIX/bin) or into a project folder
 * (bins in node_modules/.bin). Its dependencies come from npm's cache when there (the repository's `npm ci` put
 * them there), else from the registry. Returns the folder of the installed bins.
 */
export function npmInstall(tarball: string, options: { global: boolean; into: string; npm?: string; env?: NodeJS.ProcessEnv }): string {
  mkdirSync(options.into, { recursive: true });
  const args = ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...(options.global ? ['-g', '--prefix', options.into] : ['--prefix', options.into]), tarball];
  execFileSync(options.npm ?? 'npm', args, { cwd: options.into, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000, env: options.env ?? process.env });
  return options.global ? join(options.into, 'bin') : join(options.into, 'node_modules', '.bin');
}
