// The work record of a submission, read from git: branch, base, head, dirty, the commits base..HEAD, the files with
// their line counts, and the capped patch. Anything git cannot answer means no record, never a failed call.
import { LIMITS, workInputSchema, type WorkInput } from 'roundtable-shared';
import { gitBytes, gitLine, gitText, type GitOptions } from './git.js';
import { parseNameStatus, parseNumstat, workFiles } from './files.js';
import { cutPatch } from './patch.js';
import { defaultBranchRef } from './repository.js';

export interface RecordOptions {
  /** A folder in the work tree. */
  readonly cwd: string;
  /** The HEAD recorded when the claim succeeded: the base when HEAD has not left the default branch. */
  readonly claimHead: () => Promise<string | undefined>;
}

export type WhyNoRecord = 'not a repository' | 'no base' | 'invalid';

/** Where the work starts: the merge-base with the default branch, unless that is HEAD itself; then the claim's HEAD. */
async function findBase(head: string, git: GitOptions, claimHead: () => Promise<string | undefined>): Promise<string | undefined> {
  const defaultRef = await defaultBranchRef(git).catch(() => undefined);
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

/** The record, or why there is none. */
export async function readWorkRecord(options: RecordOptions): Promise<WorkInput | WhyNoRecord> {
  const git: GitOptions = { cwd: options.cwd };
  const head = await gitLine(['rev-parse', '--verify', '-q', 'HEAD^{commit}'], git);
  if (head === undefined || head === '') return 'not a repository';
  const [branchRef, status, base] = await Promise.all([
    gitLine(['symbolic-ref', '-q', 'HEAD'], git),
    gitBytes(['status', '--porcelain', '-z', '--untracked-files=normal'], git),
    findBase(head, git, options.claimHead),
  ]);
  if (base === undefined) return 'no base';
  const range = [base, head];
  const diff = ['diff', '-M', '--no-color', '--no-ext-diff', '--no-textconv'];
  const [list, numstat, nameStatus, patch] = await Promise.all([
    commits(base, head, git),
    gitText([...diff, '--numstat', '-z', ...range, '--'], git),
    gitText([...diff, '--name-status', '-z', ...range, '--'], git),
    gitBytes([...diff, ...range, '--'], git),
  ]);
  const cut = cutPatch(patch);
  const record: WorkInput = {
    branch: branchRef?.startsWith('refs/heads/') ? branchRef.slice('refs/heads/'.length) : null,
    base,
    head,
    dirty: status.length > 0,
    commits: list,
    files: workFiles(parseNumstat(numstat), parseNameStatus(nameStatus)),
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
