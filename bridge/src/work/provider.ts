// The `work` record of a submit_result, from the git work tree the bridge runs in (issue 35): added when the app sent
// none; after a claim_task the HEAD it saw is kept, the base for work done on the default branch itself. A task with
// its own worktree (`roundtable-bridge worktree`, branch rt/ID-...) is read there, wherever the bridge was started.
import { submitResult, claimTask } from 'roundtable-shared';
import type { CallArgs, CallProvider } from '../submission/attach.js';
import { log } from '../log.js';
import { ClaimHeads } from './claim-heads.js';

/** git and the record's code are loaded at the first claim or submission, not at the bridge's start. */
const gitCode = () => Promise.all([import('./git.js'), import('./record.js')]);

export interface WorkProviderOptions {
  /** The folder the app launched the bridge in. */
  readonly cwd: string;
  /** The board's URL and project: with the task id, the key of a remembered claim HEAD. */
  readonly board?: string;
  readonly project?: string | undefined;
  /** --no-work or ROUNDTABLE_WORK=off: add nothing, remember nothing. */
  readonly enabled?: boolean;
  /** Where claim HEADs are kept (tests); default: the bridge's state folder. */
  readonly claimHeads?: ClaimHeads;
}

function taskIdOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

export function workProvider(options: WorkProviderOptions): CallProvider {
  if (options.enabled === false) return { name: 'work' };
  const board = options.board ?? '';
  const claimHeads = options.claimHeads ?? new ClaimHeads();
  return {
    name: 'work',
    async before(tool: string, args: CallArgs) {
      if (tool !== submitResult.name || args['work'] !== undefined) return undefined;
      const taskId = taskIdOf(args['task_id']);
      if (taskId === undefined) return undefined;
      const started = performance.now();
      const [, { readWorkRecord }] = await gitCode();
      const record = await readWorkRecord({ cwd: options.cwd, taskId, claimHead: () => claimHeads.get(board, options.project, taskId) });
      if (typeof record === 'string') {
        log.debug('no work record for this submission', { why: record });
        return undefined;
      }
      log.debug('work record attached', { commits: record.commits.length, files: record.files.length, patch_bytes: record.patch_bytes, ms: Math.round(performance.now() - started) });
      return { work: record };
    },
    async after(tool: string, _args: CallArgs, output: Record<string, unknown>) {
      if (tool !== claimTask.name) return;
      const taskId = taskIdOf((output['task'] as { id?: unknown } | undefined)?.id);
      if (taskId === undefined) return;
      const [{ gitLine }] = await gitCode();
      const head = await gitLine(['rev-parse', '--verify', '-q', 'HEAD^{commit}'], { cwd: options.cwd });
      if (head === undefined || head === '') return; // outside a repository: nothing to remember
      await claimHeads.set(board, options.project, taskId, head);
    },
  };
}
