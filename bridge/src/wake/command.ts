// The `wake` command: loaded only when it runs, so serving MCP never pays for it.
import { WAIT_CATEGORIES, type WaitCategory } from 'roundtable-shared';
import { BoardClient } from '../board-client.js';
import type { BridgeConfig } from '../config.js';
import { BadConfig } from '../errors.js';
import { log } from '../log.js';
import { tokenLookup } from '../token-lookup.js';
import { VERSION } from '../version.js';
import { Waker } from './wake.js';
import { onStopSignals } from '../platform.js';

const DEFAULT_WATCH: WaitCategory[] = ['tasks', 'messages'];
const DEFAULT_DEBOUNCE_S = 5;

export interface WakeCommandInput {
  readonly config: BridgeConfig;
  readonly exec: string | undefined;
  readonly for: string | undefined;
  readonly debounce: string | undefined;
  /** Accepted and ignored: change cursors ended the re-check window (docs/DECISIONS.md, issue 24). */
  readonly recheck?: string | undefined;
}

export function checkWakeArguments(input: Omit<WakeCommandInput, 'config'>): { command: string; watch: WaitCategory[]; debounceMs: number } {
  if (input.exec === undefined || input.exec.trim() === '') {
    throw new BadConfig("wake: --exec CMD is required, e.g. --exec \"tmux send-keys -t agent 'check the board' Enter\"");
  }
  let watch = DEFAULT_WATCH;
  if (input.for !== undefined) {
    const words = input.for.split(',').map((w) => w.trim());
    const wrong = words.find((w) => !(WAIT_CATEGORIES as readonly string[]).includes(w));
    if (wrong !== undefined || words.length === 0) {
      throw new BadConfig(`--for: "${wrong ?? input.for}" is not one of ${WAIT_CATEGORIES.join(', ')}; give a comma-separated list such as tasks,messages`);
    }
    watch = [...new Set(words)] as WaitCategory[];
  }
  const debounceS = input.debounce === undefined ? DEFAULT_DEBOUNCE_S : Number(input.debounce);
  if (!Number.isFinite(debounceS) || debounceS < 0 || debounceS > 3600) {
    throw new BadConfig(`--debounce: "${input.debounce}" is not a number of seconds from 0 to 3600 (least time between two runs of CMD)`);
  }
  if (input.recheck !== undefined) log.info('--recheck is no longer needed and is ignored: new items wake the agent at once, also while others are pending');
  return { command: input.exec, watch, debounceMs: Math.round(debounceS * 1000) };
}

export async function wakeCommand(input: WakeCommandInput): Promise<number> {
  const { command, watch, debounceMs } = checkWakeArguments(input);
  const client = new BoardClient({ config: input.config, token: tokenLookup(input.config), userAgent: `roundtable-bridge/${VERSION} wake`, watcher: true });
  const waker = new Waker({ client, command, watch, debounceMs });
  const onSignal = (signal: string) => {
    log.info(`${signal}: stopping`);
    waker.stop();
  };
  onStopSignals(onSignal);
  await waker.run();
  return 0;
}
