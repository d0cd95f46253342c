// `roundtable-bridge worktree TASK`: a git worktree and a branch rt/ID-slug for a task this agent holds, made from the
// default branch in a folder beside the repository; its path is all that goes to stdout. `--remove` takes the worktree
// away (the branch stays) once the task is done or cancelled. The title is agent text: only its slug reaches git or
// the terminal.
import { basename, dirname, join, resolve } from 'node:path';
import { FINAL_STATUSES, LIMITS, type TaskStatus } from 'roundtable-shared';
import type { BoardClient } from '../board-client.js';
import { BadConfig } from '../errors.js';
import { escapeForTerminal } from '../terminal.js';
import { GitFailed, gitText, type GitOptions } from './git.js';
import { defaultBranchRef, isTaskBranch, listWorktrees, taskWorktree } from './repository.js';
import { taskBranch, taskFolder } from './slug.js';

export interface WorktreeCommandOptions {
  readonly client: BoardClient;
  /** The TASK argument as given. */
  readonly task: string | undefined;
  readonly remove: boolean;
  /** --dir, else ROUNDTABLE_WORKTREE_DIR: the folder the task worktrees go in. */
  readonly dir: string | undefined;
  readonly cwd: string;
  /** The path, and nothing else (stdout). */
  readonly print: (line: string) => void;
  /** Lines for the person (stderr). */
  readonly say: (line: string) => void;
}

/** Exit codes: 0 done, 1 failed, 2 refused (the task is not this agent's, or not final for --remove). */
const REFUSED = 2;

function parseTaskId(raw: string | undefined): number {
  const id = raw !== undefined && /^[1-9][0-9]{0,9}$/.test(raw) ? Number(raw) : NaN;
  if (!(id <= LIMITS.maxId)) throw new BadConfig('worktree: give the task id, a whole number, e.g. `roundtable-bridge worktree 12`');
  return id;
}

interface TaskFacts {
  readonly status: TaskStatus;
  readonly assignee: string | null;
  readonly title: string;
}

async function taskFacts(client: BoardClient, taskId: number): Promise<TaskFacts> {
  const answer = await client.callTool('get_task', { task_id: taskId, messages_limit: 1, history_limit: 1 });
  const task = answer['task'] as { status: TaskStatus; assignee: string | null; title: string };
  return { status: task.status, assignee: task.assignee, title: String(task.title) };
}

/** The folder the task worktrees go in: the option, else <parent>/<repo>.worktrees beside the main worktree. */
function worktreesFolder(dir: string | undefined, cwd: string, mainPath: string): string {
  if (dir !== undefined && dir !== '') return resolve(cwd, dir);
  return join(dirname(mainPath), `${basename(mainPath)}.worktrees`);
}

/** An existing branch of the task (rt/ID or rt/ID-...), e.g. kept after an earlier --remove. */
async function existingTaskBranch(taskId: number, git: GitOptions): Promise<string | undefined> {
  const refs = (await gitText(['for-each-ref', '--format=%(refname)', 'refs/heads/rt/'], git)).split('\n');
  const found = refs.find((ref) => ref !== '' && isTaskBranch(ref, taskId));
  return found?.slice('refs/heads/'.length);
}

function gitReason(error: unknown): string {
  if (error instanceof GitFailed) return escapeForTerminal(error.stderr.trim().split('\n')[0] ?? '');
  throw error;
}

export async function worktreeCommand(options: WorktreeCommandOptions): Promise<number> {
  const taskId = parseTaskId(options.task);
  const git: GitOptions = { cwd: options.cwd, timeoutMs: 30_000 };
  let worktrees;
  try {
    worktrees = await listWorktrees(git);
  } catch (error) {
    options.say(`roundtable worktree: not inside a git repository (${gitReason(error)}); run it in the repository the task is about`);
    return 1;
  }
  const main = worktrees[0];
  if (main === undefined) throw new BadConfig('worktree: git listed no worktree for this repository');
  const me = String((await options.client.callTool('whoami', {}))['name']);
  const task = await taskFacts(options.client, taskId);
  const existing = taskWorktree(worktrees, taskId);
  if (options.remove) {
    if (!FINAL_STATUSES.includes(task.status)) {
      options.say(`roundtable worktree: refused: task ${taskId} is ${task.status}; its worktree is removed only once the task is done or cancelled`);
      return REFUSED;
    }
    if (!existing) {
      options.say(`roundtable worktree: no worktree has task ${taskId}'s branch checked out; nothing to remove`);
      return 1;
    }
    try {
      await gitText(['worktree', 'remove', existing.path], git);
    } catch (error) {
      options.say(`roundtable worktree: git did not remove ${escapeForTerminal(existing.path)} (${gitReason(error)}); commit or discard its changes first`);
      return 1;
    }
    const branch = existing.branch?.slice('refs/heads/'.length) ?? '';
    options.say(`roundtable worktree: removed ${escapeForTerminal(existing.path)}; the branch ${escapeForTerminal(branch)} is kept`);
    return 0;
  }
  if (task.status !== 'claimed' || task.assignee !== me) {
    options.say(`roundtable worktree: refused: you (${escapeForTerminal(me)}) do not hold task ${taskId} (it is ${task.status}); claim it first with claim_task`);
    return REFUSED;
  }
  if (existing) {
    options.print(existing.path);
    return 0;
  }
  const folder = worktreesFolder(options.dir, options.cwd, main.path);
  try {
    const kept = await existingTaskBranch(taskId, git);
    if (kept !== undefined) {
      // A kept branch may have been named by hand: its name becomes the folder's only when it is a slug of ours.
      const suffix = kept.slice('rt/'.length);
      const path = join(folder, /^[0-9]+(?:-[a-z0-9-]*)?$/.test(suffix) ? suffix : taskFolder(taskId, task.title));
      await gitText(['worktree', 'add', '--quiet', path, kept], git);
      options.print(path);
      return 0;
    }
    const start = await defaultBranchRef(git);
    if (start === undefined) {
      options.say('roundtable worktree: this repository has no default branch (origin/HEAD, main or master) to start the task branch from');
      return 1;
    }
    const path = join(folder, taskFolder(taskId, task.title));
    await gitText(['worktree', 'add', '--quiet', '--no-track', '-b', taskBranch(taskId, task.title), path, start], git);
    options.print(path);
    return 0;
  } catch (error) {
    options.say(`roundtable worktree: git could not make the worktree (${gitReason(error)})`);
    return 1;
  }
}
