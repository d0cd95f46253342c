// Runs git for the work record, the worktree command and the trailer: node's execFile (never a shell), a deadline,
// a bounded output, no optional locks (a read must not take the index lock an agent's own `git add` needs), and file
// names as they are (core.quotePath=false). The output is bytes: the caller decides how to decode it.
import { execFile } from 'node:child_process';

/** Each git call gets this long before it is killed. */
export const GIT_TIMEOUT_MS = 3_000;
/** The most output one git call may give; past it the call fails (a patch is cut long before this). */
export const GIT_MAX_OUTPUT = 64 * 1024 * 1024;

export class GitFailed extends Error {
  constructor(readonly args: readonly string[], readonly exitCode: number | string | undefined, readonly stderr: string) {
    super(`git ${args[0] ?? ''} failed (${String(exitCode)})`);
  }
}

export interface GitOptions {
  readonly cwd: string;
  readonly timeoutMs?: number;
  readonly maxBuffer?: number;
}

/** git's environment: the caller's, with optional locks off and no pager or prompt for a password. */
function gitEnv(): NodeJS.ProcessEnv {
  return { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', LC_ALL: 'C' };
}

/** git's standard output as bytes; rejects with GitFailed on a non-zero exit, a timeout or too much output. */
export function gitBytes(args: readonly string[], options: GitOptions): Promise<Buffer> {
  const full = ['-c', 'core.quotePath=false', ...args];
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      full,
      {
        cwd: options.cwd,
        env: gitEnv(),
        encoding: 'buffer',
        timeout: options.timeoutMs ?? GIT_TIMEOUT_MS,
        maxBuffer: options.maxBuffer ?? GIT_MAX_OUTPUT,
        windowsHide: true,
      },
      (error, stdout, stderr) => {
        if (error) {
          const code = (error as NodeJS.ErrnoException & { code?: number | string }).code;
          reject(new GitFailed(args, code, stderr.toString('utf8').slice(0, 500)));
        } else resolve(stdout);
      },
    );
  });
}

/** git's standard output as UTF-8 text (invalid bytes become U+FFFD). */
export async function gitText(args: readonly string[], options: GitOptions): Promise<string> {
  return (await gitBytes(args, options)).toString('utf8');
}

/** The output with one trailing newline dropped, or undefined when git fails (e.g. `symbolic-ref -q` on a detached HEAD). */
export async function gitLine(args: readonly string[], options: GitOptions): Promise<string | undefined> {
  try {
    return (await gitText(args, options)).replace(/\n$/, '');
  } catch {
    return undefined;
  }
}
