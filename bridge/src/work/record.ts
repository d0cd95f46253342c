// The work record of a submission, read from git: branch, base, head, dirty, the commits base..HEAD, the files with
// their line counts, and the capped patch. Anything git cannot answer means no record, never a failed call. The git
// calls go in three rounds of parallel calls: where HEAD is and the refs, then the base and the status, then the
// commits and the diff (six calls; one more to find a task's worktree elsewhere).
import { LIMITS, workInputSchema, type WorkInput } from 'roundtable-shared';
import { gitBytes, gitLine, gitText, type GitOptions } from './git.js';
import { splitDiffOutput, workFiles } from './files.js';
import { cutPatch } from './patch.js';
import { isTaskBranch, listWorktrees, readRefs, taskWorktree } from './repository.js';

export interface RecordOptions {
  /** A folder in the work tree. */
  readonly cwd: string;
  /** With a task: the worktree that has its branch (rt/ID-...) checked out is read instead of cwd's, if there is one. */
  readonly taskId?: number;
  /** The HEAD recorded when the claim succeeded: the base when HEAD has not left the default branch. */
  readonly claimHead: () => Promise<string | undefined>;
}

export type WhyNoRecord = 'not a repository' | 'no base' | 'unreadable diff' | 'invalid';

interface Position {
  readonly top: string;
  readonly head: string;
  /** refs/heads/..., or "HEAD" when detached. */
  readonly ref: string;
}

/** The work tree's top folder, HEAD's commit and its ref, in one call; undefined outside a repository. */
async function position(cwd: string): Promise<Position | undefined> {
  const out = await gitLine(['rev-parse', '--show-toplevel', 'HEAD^{commit}', '--symbolic-full-name', 'HEAD', '--'], { cwd });
  const [top, head, ref] = out?.split('\n') ?? [];
  return top && head && ref ? { top, head, ref } : undefined;
}

/** Where the work starts: the merge-base with the default branch, unless that is HEAD itself; then the claim's HEAD. */
async function findBase(head: string, defaultRef: string | undefined, git: GitOptions, claimHead: () => Promise<string | undefined>): Promise<string | undefined> {
  const mergeBase = defaultRef === undefined ? undefined : await gitLine(['merge-base', head, defaultRef], git);
  if (mergeBase !== undefined && mergeBase !== '' && mergeBase !== head) return mergeBase;
  const claimed = await claimHead();
  if (claimed === undefined) return undefined;
  // The claim's commit must still be an ancestor of HEAD (a reset or another repository would make a nonsense range).
  const ancestor = await gitLine(['merge-base', '--is-ancestor', claimed, head], git);
  return ancestor === undefined ? undefined : claimed;
}

/** A subject as the record takes it: at most LIMITS.workCommitSubject characters, never half a surrogate pair. */
function capSubject(subject: string): string {
  if (subject.length <= LIMITS.workCommitSubject) return subject;
  let end = LIMITS.workCommitSubject;
  const last = subject.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return subject.slice(0, end);
}

/** `git log` with NUL between fields and records: id, author time (seconds), subject. Newest LIMITS.workCommits kept. */
async function commits(base: string, head: string, git: GitOptions): Promise<WorkInput['commits']> {
  const out = await gitText(['log', '-z', `--max-count=${LIMITS.workCommits}`, '--format=%H%x00%at%x00%s', `${base}..${head}`, '--'], git);
  const fields = out.split('\0');
  const list: WorkInput['commits'] = [];
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const id = fields[i]!.replace(/^\n/, '');
    const seconds = Number(fields[i + 1]);
    if (!Number.isFinite(seconds)) continue;
    list.push({ id, subject: capSubject(fields[i + 2]!), author_time: new Date(seconds * 1000).toISOString() });
  }
  return list.reverse(); // oldest first
}

/**
 * Where to read: cwd's work tree, or the task's own worktree when another one has its branch checked out. The worktree
 * list is asked for only when a branch of the task exists and is not the one checked out here.
 */
async function locate(options: RecordOptions): Promise<{ at: Position; git: GitOptions; defaultRef: string | undefined } | undefined> {
  const git: GitOptions = { cwd: options.cwd };
  const taskId = options.taskId;
  const [here, refs] = await Promise.all([position(options.cwd), readRefs(git, taskId !== undefined).catch(() => undefined)]);
  if (here === undefined) return undefined;
  const defaultRef = refs?.defaultRef;
  const elsewhere = taskId !== undefined && !isTaskBranch(here.ref, taskId) && refs?.taskBranches.some((ref) => isTaskBranch(ref, taskId));
  if (!elsewhere) return { at: here, git, defaultRef };
  const own = taskWorktree(await listWorktrees(git).catch(() => []), taskId);
  if (own === undefined || own.path === here.top) return { at: here, git, defaultRef };
  const there = await position(own.path);
  return there === undefined ? { at: here, git, defaultRef } : { at: there, git: { cwd: own.path }, defaultRef };
}

/** The record, or why there is none. */
export async function readWorkRecord(options: RecordOptions): Promise<WorkInput | WhyNoRecord> {
  const where = await locate(options);
  if (where === undefined) return 'not a repository';
  const { at, git, defaultRef } = where;
  const [status, base] = await Promise.all([
    gitBytes(['status', '--porcelain', '-z', '--untracked-files=normal'], git),
    findBase(at.head, defaultRef, git, options.claimHead),
  ]);
  if (base === undefined) return 'no base';
  const [list, diff] = await Promise.all([
    commits(base, at.head, git),
    gitBytes(['diff', '-M', '--no-color', '--no-ext-diff', '--no-textconv', '--raw', '--numstat', '-z', '-p', base, at.head, '--'], git),
  ]);
  const parts = splitDiffOutput(diff);
  if (parts === undefined) return 'unreadable diff';
  const cut = cutPatch(parts.patch);
  const record: WorkInput = {
    branch: at.ref.startsWith('refs/heads/') ? at.ref.slice('refs/heads/'.length) : null,
    base,
    head: at.head,
    dirty: status.length > 0,
    commits: list,
    files: workFiles(parts.numstat, parts.raw),
    patch: cut.patch,
    patch_truncated: cut.truncated,
    patch_bytes: cut.bytes,
  };
  // The board would refuse a record it cannot take (a branch name over its cap, a path over 4096 characters): the
  // summary is checked here, without the patch, which is well-formed and within its cap by construction.
  const { patch: _patch, ...summary } = record;
  if (!workInputSchema.safeParse(summary).success) return 'invalid';
  return record;
}
