// The real agent apps and the Node versions pinned in test/apps/package.json, as scripts/install-apps.sh installs them
// into ROUNDTABLE_APPS_DIR (default .apps/): where each binary is, whether the install matches the pins, and running an
// app headless with a HOME of its own. Without the install the tests that need it are skipped, unless
// ROUNDTABLE_REQUIRE_APPS=1 (.ci/run sets it), which turns the skip into a failure.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './board.js';
import { spawnTracked, stopProcess } from './processes.js';

export const APPS_DIR = process.env['ROUNDTABLE_APPS_DIR'] || join(ROOT, '.apps');
export const REQUIRE_APPS_FLAG = 'ROUNDTABLE_REQUIRE_APPS';

/** The packages pinned in test/apps/package.json: the one place their versions are written. */
export const PINNED: Readonly<Record<string, string>> = (JSON.parse(readFileSync(join(ROOT, 'test/apps/package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies;

export type AppName = 'claude' | 'codex' | 'gemini' | 'opencode';
const PACKAGE_OF: Record<AppName, string> = { claude: '@anthropic-ai/claude-code', codex: '@openai/codex', gemini: '@google/gemini-cli', opencode: 'opencode-ai' };

export const appBin = (app: AppName) => join(APPS_DIR, 'node_modules', '.bin', app);
/** The folder holding the `node` binary of a major version, to put first on PATH. */
export const nodeDir = (major: 22 | 24) => join(APPS_DIR, 'node_modules', `node${major}`, 'bin');
/** The headers of that Node, for building a native addon against it (better-sqlite3) with no download. */
export const nodeHeaders = (major: 22 | 24) => join(APPS_DIR, 'node_modules', `node${major}`, 'node_modules', `node-${process.platform}-${process.arch}`);

function installedVersion(pkg: string): string | undefined {
  const file = join(APPS_DIR, 'node_modules', pkg, 'package.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version : undefined;
}

/** Why the pinned apps (or Node versions) cannot be run here, or undefined when they can. */
export function appsProblem(needed: readonly string[] = Object.keys(PINNED)): string | undefined {
  const fix = 'run scripts/install-apps.sh (.ci/run does)';
  for (const name of needed) {
    const pinned = PINNED[name]!;
    const pkg = pinned.startsWith('npm:') ? pinned.slice(4, pinned.lastIndexOf('@')) : name;
    const want = pinned.startsWith('npm:') ? pinned.slice(pinned.lastIndexOf('@') + 1) : pinned;
    const folder = pinned.startsWith('npm:') ? name : pkg;
    const have = installedVersion(folder);
    if (have === undefined) return `${pkg}@${want} is not installed in ${APPS_DIR}: ${fix}`;
    if (have !== want) return `${APPS_DIR} holds ${pkg}@${have}, not the pinned ${want}: ${fix}`;
  }
  return undefined;
}

export const packageOf = (app: AppName) => PACKAGE_OF[app];

export interface AppRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** Runs an app to its end (headless), killing it past the deadline. */
export async function runApp(options: { app: AppName; args: string[]; env: Record<string, string>; cwd: string; timeoutMs?: number }): Promise<AppRun> {
  const started = performance.now();
  const child = spawnTracked(appBin(options.app), options.args, { env: options.env, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const timeoutMs = options.timeoutMs ?? 180_000;
  const timer = setTimeout(() => void stopProcess(child, 'SIGKILL').catch(() => {}), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stdout, stderr, ms: performance.now() - started };
}
