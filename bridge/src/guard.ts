// `roundtable-bridge guard`: a git pre-commit check that refuses a commit touching files another agent holds
// exclusively on the board (check_paths), and `--install`, which makes it the repository's pre-commit hook.
import { execFile } from 'node:child_process';
import { chmod, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { promisify } from 'node:util';
import { checkedPathProblem, LIMITS } from 'roundtable-shared';
import { BoardRefusal, type BoardClient } from './board-client.js';
import { BadConfig, BridgeError } from './errors.js';
import { currentPlatform, type Platform } from './platform.js';
import { escapeForTerminal } from './terminal.js';

const execFileAsync = promisify(execFile);

/** The marker by which --install knows its own hook, so installing twice never chains the guard to itself. */
const MARKER = '# roundtable-bridge guard';
/** Where --install keeps a pre-commit hook that was there before; the guard's hook runs it first. */
export const CHAINED_HOOK = 'pre-commit.before-roundtable';

export interface GuardOptions {
  readonly client: BoardClient;
  readonly baseUrl: string;
  readonly scope: string | undefined;
  /** A board that cannot be asked refuses the commit instead of letting it through. */
  readonly strict: boolean;
  readonly cwd?: string;
  /** Where the lines for the committer go (stderr). */
  readonly say: (line: string) => void;
}

interface Holder {
  readonly agent: string;
  readonly task_id: number;
}

async function git(args: string[], cwd: string | undefined): Promise<string> {
  try {
    return (await execFileAsync('git', args, { cwd, maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (error) {
    const detail = String((error as { stderr?: string }).stderr ?? (error as Error).message).trim().split('\n')[0];
    throw new BadConfig(`git ${args[0]} failed (${detail}); run the guard inside a git repository`);
  }
}

/** The staged file names, as git spells them (renames as their two names, deletions included). */
export async function stagedFiles(cwd?: string): Promise<string[]> {
  const out = await git(['diff', '--cached', '--name-only', '--no-renames', '-z'], cwd);
  return out.split('\0').filter((name) => name !== '');
}

/** Why the board cannot check a staged name, or undefined: it takes every name git gives as a literal file name. */
function uncheckable(name: string): string | undefined {
  if (name.length > LIMITS.checkedPath) return `longer than ${LIMITS.checkedPath} characters`;
  return checkedPathProblem(name);
}

/** The names in calls of at most LIMITS.checkPaths names and LIMITS.checkPathsChars characters each. */
function batches(names: readonly string[]): string[][] {
  const out: string[][] = [];
  let batch: string[] = [];
  let chars = 0;
  for (const name of names) {
    if (batch.length === LIMITS.checkPaths || (batch.length > 0 && chars + name.length > LIMITS.checkPathsChars)) {
      out.push(batch);
      batch = [];
      chars = 0;
    }
    batch.push(name);
    chars += name.length;
  }
  if (batch.length > 0) out.push(batch);
  return out;
}

/**
 * Runs the check; returns the exit code. Every staged name is checked as the literal file name it is (a name with
 * *, ** or a control character included: issue 22). Only fixed words, paths from git, agent names and task ids are
 * printed, and every line is escaped for the terminal first, so no name can move the cursor or recolour the screen.
 */
export async function runGuard(options: GuardOptions): Promise<number> {
  const say = (line: string) => options.say(escapeForTerminal(line));
  const staged = await stagedFiles(options.cwd);
  // git never stages such a name; were one there, --strict lets nothing unchecked through.
  const refused = staged.filter((name) => uncheckable(name) !== undefined);
  if (refused.length > 0) {
    const which = `${refused.length} staged name${refused.length === 1 ? '' : 's'} the board cannot check as a file name (${uncheckable(refused[0]!)})`;
    if (options.strict) {
      say(`roundtable guard: commit refused (--strict): ${which}`);
      return 1;
    }
    say(`roundtable guard: warning: ${which}, skipped`);
  }
  const checkable = staged.filter((name) => uncheckable(name) === undefined);
  if (checkable.length === 0) return 0;
  const held = new Map<string, Holder[]>();
  try {
    for (const batch of batches(checkable)) {
      const answer = await options.client.callTool('check_paths', { paths: batch, ...(options.scope !== undefined && { scope: options.scope }) });
      for (const entry of answer['paths'] as Array<{ path: string; held: boolean; holders: Holder[] }>) {
        if (entry.held) held.set(entry.path, entry.holders);
      }
    }
  } catch (error) {
    const why = error instanceof BridgeError ? error.message : error instanceof BoardRefusal ? `the board refused: ${error.body.error.code}` : 'unexpected error';
    if (options.strict) {
      say(`roundtable guard: commit refused (--strict): the staged files could not be checked with the board at ${options.baseUrl} (${why})`);
      return 1;
    }
    say(`roundtable guard: warning: the staged files could not be checked with the board at ${options.baseUrl} (${why}); commit allowed`);
    return 0;
  }
  if (held.size === 0) return 0;
  say(`roundtable guard: commit refused: ${held.size} staged file${held.size === 1 ? ' is' : 's are'} held exclusively by another agent:`);
  for (const [path, holders] of held) {
    say(`  ${path}: held by ${[...new Set(holders.map((h) => `${h.agent} (task ${h.task_id})`))].join(', ')}`);
  }
  say('Ask the holder to release_paths, or wait until its claim ends; unstage those files to commit the rest.');
  return 1;
}

export interface InstallOptions {
  /** The arguments the hook passes to `roundtable-bridge guard` (--url, --profile, --ca, --scope, --strict). */
  readonly guardArgs: readonly string[];
  /** The arguments the prepare-commit-msg hook passes to `roundtable-bridge trailer` (--url, --project, --profile, --ca). */
  readonly trailerArgs?: readonly string[];
  readonly cwd?: string;
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Where --install keeps a hook that was there before, for a hook name: the guard's hook runs it first. */
export const chainedHook = (name: string) => `${name}.before-roundtable`;

/** The command words as the hook's sh takes them: on Windows forward slashes in paths (see guardHookScript). */
function hookWords(command: readonly string[], platform: Platform): string {
  const words = platform === 'win32' ? command.map((word) => (isWindowsPath(word) ? word.replace(/\\/g, '/') : word)) : command;
  return words.map(quote).join(' ');
}

/**
 * The pre-commit hook's text. Git runs hooks with sh on every system (Git for Windows with its own sh), so the
 * script is POSIX sh everywhere; on Windows the paths of node and the bridge are written with forward slashes,
 * which that sh and Windows both take, where a backslash path would depend on how the sh maps it.
 */
export function guardHookScript(command: readonly string[], platform: Platform = currentPlatform()): string {
  return [
    '#!/bin/sh',
    `${MARKER}: refuses a commit touching files another agent holds exclusively on the Roundtable board.`,
    `# Installed by \`roundtable-bridge guard --install\`. A pre-commit hook that was here before is kept as ${CHAINED_HOOK} and runs first.`,
    'hooks=$(dirname "$0")',
    `if [ -x "$hooks/${CHAINED_HOOK}" ]; then "$hooks/${CHAINED_HOOK}" "$@" || exit $?; fi`,
    `exec ${hookWords(command, platform)}`,
    '',
  ].join('\n');
}

/**
 * The prepare-commit-msg hook's text: adds the Roundtable-Task trailer (`roundtable-bridge trailer`). It never stops a
 * commit itself: whatever the trailer command does, the hook ends 0; a hook that was there before runs first and may.
 */
export function trailerHookScript(command: readonly string[], platform: Platform = currentPlatform()): string {
  const chained = chainedHook('prepare-commit-msg');
  return [
    '#!/bin/sh',
    `${MARKER}: adds a Roundtable-Task trailer to a commit made on a task branch (rt/ID-...) or while the agent holds one claim.`,
    `# Installed by \`roundtable-bridge guard --install\`. A prepare-commit-msg hook that was here before is kept as ${chained} and runs first.`,
    'hooks=$(dirname "$0")',
    `if [ -x "$hooks/${chained}" ]; then "$hooks/${chained}" "$@" || exit $?; fi`,
    `${hookWords(command, platform)} "$@" || true`,
    'exit 0',
    '',
  ].join('\n');
}

/** C:\..., or \\server\share\...: a Windows path, not an argument such as a URL. */
const isWindowsPath = (word: string) => /^[A-Za-z]:[\\/]|^\\\\/.test(word);

/** Writes one hook; a hook already there (not ours) is kept beside it and run first. Returns the kept hook's path. */
async function installHook(hooks: string, name: string, script: string): Promise<string | undefined> {
  const hook = join(hooks, name);
  const chained = join(hooks, chainedHook(name));
  const existing = await readFile(hook, 'utf8').catch(() => undefined);
  const chainedExists = await stat(chained).then(() => true, () => false);
  const foreign = existing !== undefined && !existing.includes(MARKER);
  if (foreign) {
    if (chainedExists) {
      throw new BadConfig(`${chained} already exists, so the ${name} hook there cannot be kept beside it; merge or remove one of them, then run --install again`);
    }
    await rename(hook, chained);
  }
  await writeFile(hook, script, { mode: 0o755 });
  await chmod(hook, 0o755);
  return foreign || chainedExists ? chained : undefined;
}

/**
 * Writes the pre-commit hook (the guard) and, given trailerArgs, the prepare-commit-msg hook (the trailer); hooks
 * already there (not ours) are kept beside them and run first. Returns what it did.
 */
export async function installGuard(options: InstallOptions): Promise<{ hook: string; chained: string | undefined; trailerHook?: string; trailerChained?: string | undefined }> {
  const cwd = options.cwd ?? process.cwd();
  const raw = (await git(['rev-parse', '--git-path', 'hooks'], cwd)).trim();
  const hooks = isAbsolute(raw) ? raw : join(cwd, raw);
  await mkdir(hooks, { recursive: true });
  const bridge = realpathSync(process.argv[1]!);
  const chained = await installHook(hooks, 'pre-commit', guardHookScript([process.execPath, bridge, 'guard', ...options.guardArgs]));
  if (options.trailerArgs === undefined) return { hook: join(hooks, 'pre-commit'), chained };
  const trailerChained = await installHook(hooks, 'prepare-commit-msg', trailerHookScript([process.execPath, bridge, 'trailer', ...options.trailerArgs]));
  return { hook: join(hooks, 'pre-commit'), chained, trailerHook: join(hooks, 'prepare-commit-msg'), trailerChained };
}
