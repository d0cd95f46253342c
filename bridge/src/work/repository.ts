// What the work record and the worktree command ask a repository: its default branch, its worktrees, and which of
// them belongs to a task (branch rt/ID-...).
import { gitText, type GitOptions } from './git.js';

export interface RefFacts {
  /** The default branch, as a ref: origin/HEAD's target, else refs/heads/main, else refs/heads/master. */
  readonly defaultRef: string | undefined;
  /** The task branches (refs/heads/rt/...), when asked for. */
  readonly taskBranches: readonly string[];
}

/** The default branch and, with `withTaskBranches`, the rt/ branches: one for-each-ref answers both. */
export async function readRefs(options: GitOptions, withTaskBranches = false): Promise<RefFacts> {
  const patterns = ['refs/remotes/origin/HEAD', 'refs/heads/main', 'refs/heads/master', ...(withTaskBranches ? ['refs/heads/rt/'] : [])];
  const out = await gitText(['for-each-ref', '--format=%(refname)%00%(symref)', ...patterns], options);
  const refs = new Map<string, string>();
  for (const line of out.split('\n')) {
    const [name, target] = line.split('\0');
    if (name) refs.set(name, target ?? '');
  }
  const originHead = refs.get('refs/remotes/origin/HEAD');
  const defaultRef = originHead ? originHead : refs.has('refs/heads/main') ? 'refs/heads/main' : refs.has('refs/heads/master') ? 'refs/heads/master' : undefined;
  return { defaultRef, taskBranches: [...refs.keys()].filter((name) => name.startsWith('refs/heads/rt/')) };
}

/** The default branch, as a ref; undefined when none exists. */
export async function defaultBranchRef(options: GitOptions): Promise<string | undefined> {
  return (await readRefs(options)).defaultRef;
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
