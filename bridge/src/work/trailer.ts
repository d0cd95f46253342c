// `roundtable-bridge trailer MSGFILE [SOURCE [SHA]]`, run by the prepare-commit-msg hook that `guard --install` writes:
// adds `Roundtable-Task: ID` to the commit message when the branch is a task's (rt/ID-...), or else when the agent
// holds exactly one claim on the board. It never stops a commit: a board that does not answer in time means no trailer.
import type { BoardClient } from '../board-client.js';
import { log } from '../log.js';
import { gitLine, gitText } from './git.js';
import { taskOfBranch } from './repository.js';

export const TRAILER_KEY = 'Roundtable-Task';
/** The most the board is given to say which claim the agent holds; a commit should not wait on it. */
export const TRAILER_BOARD_DEADLINE_MS = 3_000;

export interface TrailerOptions {
  /** Asked only when the branch names no task; absent: no board (no token), so only the branch counts. */
  readonly client: (() => BoardClient) | undefined;
  readonly messageFile: string | undefined;
  readonly cwd: string;
}

/** The one task this agent holds a claim on, or undefined (none, several, or the board did not answer in time). */
async function soleClaim(client: BoardClient): Promise<number | undefined> {
  const options = { timeoutMs: TRAILER_BOARD_DEADLINE_MS };
  const me = await client.callTool('whoami', {}, options);
  const answer = await client.callTool('list_tasks', { status: 'claimed', assignee: String(me['name']), limit: 2 }, options);
  const tasks = answer['tasks'] as Array<{ id: number }>;
  return tasks.length === 1 && Number.isSafeInteger(tasks[0]!.id) ? tasks[0]!.id : undefined;
}

/** The task for this commit: the branch's, else the sole claim's. */
async function taskForCommit(options: TrailerOptions): Promise<number | undefined> {
  const branch = await gitLine(['symbolic-ref', '-q', 'HEAD'], { cwd: options.cwd });
  const fromBranch = branch === undefined ? undefined : taskOfBranch(branch);
  if (fromBranch !== undefined) return fromBranch;
  if (!options.client) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), TRAILER_BOARD_DEADLINE_MS + 500)));
  try {
    return await Promise.race([soleClaim(options.client()), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Always 0: the trailer is a help, not a check. */
export async function trailerCommand(options: TrailerOptions): Promise<number> {
  if (options.messageFile === undefined || options.messageFile === '') return 0;
  try {
    const taskId = await taskForCommit(options);
    if (taskId === undefined) return 0;
    await gitText(
      ['interpret-trailers', '--in-place', '--if-exists', 'addIfDifferent', '--trailer', `${TRAILER_KEY}: ${taskId}`, options.messageFile],
      { cwd: options.cwd },
    );
  } catch (error) {
    log.debug('no Roundtable-Task trailer', { error: String((error as Error)?.message ?? error) });
  }
  return 0;
}
