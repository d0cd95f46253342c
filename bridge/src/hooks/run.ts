// `roundtable-bridge hook CLIENT EVENT`: reads the client's event on stdin, asks the board, prints what the event
// accepts, or nothing. It fails open: whatever goes wrong, the agent app is never held up or blocked by it.
import type { BoardClient } from '../board-client.js';
import { log } from '../log.js';
import { contextOutput, hookKind, stopOutput, type HookClient } from './clients.js';
import { digestOf, readBoardFacts } from './facts.js';
import { BadHookInput, parseHookInput } from './input.js';
import { digestLine, sessionStartContext, stopReason } from './sentences.js';
import { HookStateStore, type DigestFacts, type HookState } from './state.js';
import { noteTranscript } from '../usage/transcript-note.js';

export const DEFAULT_MAX_STOP_BLOCKS = 3;

export interface HookRunOptions {
  readonly client: HookClient;
  readonly event: string;
  readonly board: BoardClient;
  readonly boardUrl: string;
  /** Keys the state together with the session id: two agents in one session keep apart. */
  readonly account: string;
  /** The event as read from stdin, or why it could not be read. */
  readonly stdinText: string | Error;
  readonly keepWorking: boolean;
  readonly maxStopBlocks: number;
  readonly store?: HookStateStore;
  /** The bridge's state folder (default: stateDir()), where the transcript's path is noted for usage/. */
  readonly stateDir?: string;
  readonly now?: () => number;
}

/** The JSON to print on stdout, or undefined for none. Never throws. */
export async function runHook(options: HookRunOptions): Promise<Record<string, unknown> | undefined> {
  try {
    return await answer(options);
  } catch (error) {
    // One line, no board text: the error classes of the bridge say what failed and how to fix it.
    const why = error instanceof BadHookInput ? error.message : describe(error);
    log.warn(`hook ${options.client} ${options.event}: nothing done (${why})`);
    return undefined;
  }
}

async function answer(options: HookRunOptions): Promise<Record<string, unknown> | undefined> {
  const kind = hookKind(options.client, options.event);
  if (!kind) throw new Error(`unknown event ${options.event}`);
  if (options.stdinText instanceof Error) throw new BadHookInput(options.stdinText.message);
  const input = parseHookInput(options.stdinText);
  if (input.eventName !== undefined && input.eventName !== options.event) {
    log.warn(`hook ${options.client} ${options.event}: the input says it is ${JSON.stringify(input.eventName.slice(0, 40))}; answering as ${options.event}`);
  }
  if (input.transcriptPath && (options.client === 'claude-code' || options.client === 'codex') && process.env['ROUNDTABLE_USAGE'] !== 'off') {
    // Where the bridge serving this folder finds the session's model use; a failure only leaves it to guess.
    await noteTranscript({ cwd: input.cwd ?? process.cwd(), app: options.client, path: input.transcriptPath, ...(options.stateDir && { dir: options.stateDir }) }).catch(warnState);
  }
  const store = options.store ?? new HookStateStore();
  const now = options.now ?? Date.now;
  const save = (state: HookState) => store.write(options.account, input.sessionId, state);

  if (kind === 'stop' && input.stopHookActive) {
    // The client already continues because of a stop hook: never block again, so the agent cannot loop.
    await save({ ...(await store.read(options.account, input.sessionId)), stopBlocks: 0 }).catch(warnState);
    return undefined;
  }
  const state = await store.read(options.account, input.sessionId);
  if (kind === 'stop' && state.stopBlocks >= options.maxStopBlocks) {
    await save({ ...state, stopBlocks: 0 }).catch(warnState);
    return undefined;
  }

  const facts = await readBoardFacts(options.board, { withIdentity: kind === 'start', since: kind === 'prompt' ? state.cursor : undefined });
  const digest = digestOf(facts);
  const cursor = facts.cursor ?? state.cursor;
  switch (kind) {
    case 'start': {
      await save({ stopBlocks: 0, digest, ...(cursor !== undefined && { cursor }) }).catch(warnState);
      await store.prune().catch(() => undefined);
      return contextOutput(options.event, sessionStartContext(facts, options.boardUrl, now()));
    }
    case 'prompt': {
      // With a cursor, "new since the last prompt" is what the board's event log says concerns the agent after it.
      const changed = facts.news !== undefined ? facts.news > 0 || heldChanged(state.digest, digest) : concernsAgent(state.digest, digest);
      await save({ stopBlocks: 0, digest, ...(cursor !== undefined && { cursor }) }).catch(warnState);
      return changed ? contextOutput(options.event, digestLine(facts, now())) : undefined;
    }
    case 'stop': {
      const reason = stopReason(facts, { keepWorking: options.keepWorking }, now());
      if (!reason) {
        await save({ ...state, stopBlocks: 0 }).catch(warnState);
        return undefined;
      }
      // Blocks only once the count is on disk: without it the limit of blocks in a row could not hold.
      await save({ ...state, stopBlocks: state.stopBlocks + 1 });
      return stopOutput(options.client, reason);
    }
  }
}

/**
 * Whether the digest is worth a line: the claims held changed (one lapsed, or was released by the leader), or a
 * count went up. A count that went down is the agent's own doing (it read, claimed or reviewed) and needs no line.
 */
export function concernsAgent(before: DigestFacts | undefined, now: DigestFacts): boolean {
  if (!before) return now.held.length > 0 || now.unread > 0 || now.claimable > 0 || now.toReview > 0;
  if (heldChanged(before, now)) return true;
  return now.unread > before.unread || now.claimable > before.claimable || now.toReview > before.toReview;
}

/** The claims held changed: one lapsed, or was released by the leader. */
function heldChanged(before: DigestFacts | undefined, now: DigestFacts): boolean {
  if (!before) return now.held.length > 0;
  return before.held.length !== now.held.length || before.held.some((id, i) => id !== now.held[i]);
}

function warnState(error: unknown): void {
  log.warn(`hook state could not be saved (${describe(error)})`);
}

function describe(error: unknown): string {
  const e = error as { message?: string; fix?: string; code?: string };
  if (typeof e?.fix === 'string') return `${e.message}. ${e.fix}`;
  // A board refusal's message is the board's own (no board text); a file system error names its code.
  return String(e?.message ?? error);
}
