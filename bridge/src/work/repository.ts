// What the work record and the worktree command ask a repository: its default branch, its worktrees, and which of
// them belongs to a task (branch rt/ID-...).
import { gitText, type GitOptions } from './git.js';

/**
 * The default branch, as a ref: origin/HEAD's target (refs/remotes/origin/main), else refs/heads/main, else
 * refs/heads/master; undefined when none exists. One for-each-ref answers all three.
 */
export async function defaultBranchRef(options: GitOptions): Promise<string | undefined> {
  const out = await gitText(
    ['for-each-ref', '--format=%(refname)%00%(symref)', 'refs/remotes/origin/HEAD', 'refs/heads/main', 'refs/heads/master'],
    options,
  );
  const refs = new Map<string, string>();
  for (const line of out.split('\n')) {
    const [name, target] = line.split('\0');
    if (name) refs.set(name, target ?? '');
  }
  const originHead = refs.get('refs/remotes/origin/HEAD');
  if (originHead) return originHead;
  if (refs.has('refs/heads/main')) return 'refs/heads/main';
  if (refs.has('refs/heads/master')) return 'refs/heads/master';
  return undefined;
}

export interface Worktree {
  readonly path: string;
  readonly head: string | undefined;
  /** refs/heads/..., or undefined when detached. */
  readonly branch: string | undefined;
  readonly bare: boolean;
}

/** `git worktree list --porcelain -z`: records of "key value" fields, each ended by NUL, records by an empty field. */
export function parseWorktreeList(text: string): Worktree[] {
  const out: Worktree[] = [];
  let current: { path?: string; head?: string; branch?: string; bare?: boolean } = {};
  const flush = () => {
    if (current.path !== undefined) out.push({ path: current.path, head: current.head, branch: current.branch, bare: current.bare ?? false });
    current = {};
  };
  for (const field of text.split('\0')) {
    if (field === '') {
      flush();
      continue;
    }
    const space = field.indexOf(' ');
    const name = space < 0 ? field : field.slice(0, space);
    const value = space < 0 ? '' : field.slice(space + 1);
    if (name === 'worktree') current.path = value;
    else if (name === 'HEAD') current.head = value;
    else if (name === 'branch') current.branch = value;
    else if (name === 'bare') current.bare = true;
  }
  flush();
  return out;
}

export async function listWorktrees(options: GitOptions): Promise<Worktree[]> {
  return parseWorktreeList(await gitText(['worktree', 'list', '--porcelain', '-z'], options));
}

/** Whether a branch (a full ref or a short name) is a task's: rt/ID or rt/ID-anything. */
export function isTaskBranch(branch: string, taskId: number): boolean {
  const short = branch.startsWith('refs/heads/') ? branch.slice('refs/heads/'.length) : branch;
  return short === `rt/${taskId}` || short.startsWith(`rt/${taskId}-`);
}

/** The task id a branch names (rt/ID-...), or undefined. */
export function taskOfBranch(branch: string): number | undefined {
  const short = branch.startsWith('refs/heads/') ? branch.slice('refs/heads/'.length) : branch;
  const match = /^rt\/([1-9][0-9]{0,9})(?:-|$)/.exec(short);
  if (!match) return undefined;
  const id = Number(match[1]);
  return id <= 2_147_483_647 ? id : undefined;
}

/** The worktree that has the task's branch checked out, if any. */
export function taskWorktree(worktrees: readonly Worktree[], taskId: number): Worktree | undefined {
  return worktrees.find((w) => w.branch !== undefined && isTaskBranch(w.branch, taskId));
}
