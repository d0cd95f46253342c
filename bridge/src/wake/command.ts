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
const DEFAULT_RECHECK_S = 15;

export interface WakeCommandInput {
  readonly config: BridgeConfig;
  readonly exec: string | undefined;
  readonly for: string | undefined;
  readonly debounce: string | undefined;
  readonly recheck: string | undefined;
}

export function checkWakeArguments(input: Omit<WakeCommandInput, 'config'>): { command: string; watch: WaitCategory[]; debounceMs: number; recheckMs: number } {
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
  const recheckS = input.recheck === undefined ? DEFAULT_RECHECK_S : Number(input.recheck);
  if (!Number.isFinite(recheckS) || recheckS < 1 || recheckS > 600) {
    throw new BadConfig(`--recheck: "${input.recheck}" is not a number of seconds from 1 to 600 (how often pending work that already woke the agent is looked at again)`);
  }
  return { command: input.exec, watch, debounceMs: Math.round(debounceS * 1000), recheckMs: Math.round(recheckS * 1000) };
}

export async function wakeCommand(input: WakeCommandInput): Promise<number> {
  const { command, watch, debounceMs, recheckMs } = checkWakeArguments(input);
  const client = new BoardClient({ config: input.config, token: tokenLookup(input.config), userAgent: `roundtable-bridge/${VERSION} wake`, watcher: true });
  const waker = new Waker({ client, command, watch, debounceMs, recheckMs });
  const onSignal = (signal: string) => {
    log.info(`${signal}: stopping`);
    waker.stop();
  };
  onStopSignals(onSignal);
  await waker.run();
  return 0;
}
