// Keeping the board's own files out of the git repository they sit in: their names go into that repository's
// info/exclude (never committed, no tracked file touched), and doctor finds a secret-bearing file git would commit.
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Config } from '../runtime/config.js';
import { secretsPathBeside } from '../webhooks/secret-file.js';
import { projectsRoot } from './project-files.js';

const HEADER = '# roundtable: the board\'s own files (database, lock, agents, webhook secrets, backups, other projects); `roundtable doctor` checks them';

/** Every file the board writes beside the user's files, absolute; folders end with a separator. */
export function daemonFiles(config: Config): string[] {
  const files = [resolve(config.agentsConfigPath)];
  if (!config.databaseUrl) {
    const db = resolve(config.dbPath);
    files.push(db, `${db}-wal`, `${db}-shm`, `${db}-journal`, `${db}.lock`, resolve(secretsPathBeside(config.agentsConfigPath)), `${resolve(config.backup.dir)}${sep}`);
    // Every project but default keeps its database and webhook secrets in a folder of its own under this one.
    files.push(`${resolve(projectsRoot(config))}${sep}`);
  }
  return files;
}

/** The files whose being committed would publish a credential or what guards one. */
export function secretBearingFiles(config: Config): Array<{ path: string; what: string }> {
  const files = [{ path: resolve(config.agentsConfigPath), what: 'the agents, their roles and token hashes' }];
  if (!config.databaseUrl) files.push({ path: resolve(secretsPathBeside(config.agentsConfigPath)), what: 'the webhook signing secrets' });
  if (config.tls) files.push({ path: resolve(config.tls.keyPath), what: 'the TLS private key' });
  return files;
}

function git(dir: string, args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5_000 });
}

/** The real path of a file that may not exist yet: its folder's real path and its name. */
function realPath(path: string): string {
  try {
    return join(realpathSync(dirname(path)), basename(path));
  } catch {
    return path;
  }
}

interface WorkTree {
  readonly top: string;
  readonly exclude: string;
}

/** The git work tree holding `dir` and its info/exclude file, or undefined when there is none or git is not installed. */
export function workTreeOf(dir: string): WorkTree | undefined {
  try {
    const [top, excludePath] = git(dir, ['rev-parse', '--show-toplevel', '--git-path', 'info/exclude']).trim().split('\n');
    if (!top || !excludePath) return undefined;
    return { top: realPath(top), exclude: isAbsolute(excludePath) ? excludePath : resolve(dir, excludePath) };
  } catch {
    return undefined;
  }
}

/** A path as an anchored gitignore pattern, its wildcard characters escaped. */
function pattern(top: string, path: string): string | undefined {
  const isFolder = path.endsWith(sep);
  const rel = relative(top, realPath(isFolder ? path.slice(0, -1) : path));
  if (!rel || rel.startsWith('..') || isAbsolute(rel)) return undefined;
  return `/${rel.split(sep).join('/').replace(/[*?[\\]/g, (c) => `\\${c}`)}${isFolder ? '/' : ''}`;
}

/**
 * Adds the board's files to the info/exclude of each repository they sit in (only the lines missing); returns the
 * lines added. Never fails the caller: without git, or outside a work tree, there is nothing to do.
 */
export function excludeDaemonFiles(config: Config): string[] {
  const added: string[] = [];
  const byTree = new Map<string, { tree: WorkTree; patterns: string[] }>();
  // The files share one or two folders: one git call each.
  const trees = new Map<string, WorkTree | undefined>();
  for (const file of daemonFiles(config)) {
    const dir = dirname(file.endsWith(sep) ? file.slice(0, -1) : file);
    if (!trees.has(dir)) trees.set(dir, workTreeOf(dir));
    const tree = trees.get(dir);
    const line = tree && pattern(tree.top, file);
    if (!tree || !line) continue;
    const entry = byTree.get(tree.exclude) ?? { tree, patterns: [] };
    entry.patterns.push(line);
    byTree.set(tree.exclude, entry);
  }
  for (const { tree, patterns } of byTree.values()) {
    try {
      let text = '';
      try {
        text = readFileSync(tree.exclude, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
      const present = new Set(text.split('\n').map((l) => l.trim()));
      const missing = [...new Set(patterns)].filter((p) => !present.has(p));
      if (missing.length === 0) continue;
      mkdirSync(dirname(tree.exclude), { recursive: true });
      const head = present.has(HEADER) ? '' : `${HEADER}\n`;
      appendFileSync(tree.exclude, `${text && !text.endsWith('\n') ? '\n' : ''}${head}${missing.join('\n')}\n`);
      added.push(...missing);
    } catch {
      // A read-only repository: doctor reports what git would commit.
    }
  }
  return added;
}

export type GitExposure = { readonly git: 'missing' } | { readonly git: 'present'; readonly exposed: Array<{ path: string; what: string; tracked: boolean }> };

/** Which secret-bearing files exist inside a git work tree and are tracked or not ignored. */
export function exposedToGit(config: Config, exists: (path: string) => boolean): GitExposure {
  try {
    execFileSync('git', ['--version'], { stdio: 'ignore', timeout: 5_000 });
  } catch {
    return { git: 'missing' };
  }
  const exposed: Array<{ path: string; what: string; tracked: boolean }> = [];
  for (const file of secretBearingFiles(config)) {
    if (!exists(file.path)) continue;
    const dir = dirname(file.path);
    if (!workTreeOf(dir)) continue;
    const tracked = succeeds(dir, ['ls-files', '--error-unmatch', '--', basename(file.path)]);
    // check-ignore answers 0 for an ignored file; a tracked one is never "ignored", and is committed whatever the rules.
    if (tracked || !succeeds(dir, ['check-ignore', '-q', '--', basename(file.path)])) exposed.push({ ...file, tracked });
  }
  return { git: 'present', exposed };
}

function succeeds(dir: string, args: string[]): boolean {
  try {
    git(dir, args);
    return true;
  } catch {
    return false;
  }
}
