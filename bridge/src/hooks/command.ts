// The `hook` command: loaded only when it runs, so serving MCP never pays for it.
import { BoardClient } from '../board-client.js';
import type { BridgeConfig } from '../config.js';
import { BadConfig } from '../errors.js';
import { print } from '../terminal.js';
import { tokenLookup } from '../token-lookup.js';
import { VERSION } from '../version.js';
import { HOOK_CLIENTS, hookClientNamed, hookKind, type HookClient } from './clients.js';
import { readHookStdin } from './input.js';
import { DEFAULT_MAX_STOP_BLOCKS, runHook } from './run.js';

/** A hook must not hold its agent app up while the board is down: one quick reconnect, then fail open. */
const HOOK_RECONNECT_DELAYS_MS = [100];

export interface HookCommandInput {
  readonly config: BridgeConfig;
  readonly client: string | undefined;
  readonly event: string | undefined;
  readonly keepWorking: boolean;
  readonly maxBlocks: string | undefined;
}

/** Checks the command line; a wrong one is an error (exit 1) the user sees, not a silent hook. */
export function checkHookArguments(input: Pick<HookCommandInput, 'client' | 'event' | 'maxBlocks'>): { client: HookClient; maxStopBlocks: number } {
  const clients = Object.keys(HOOK_CLIENTS).join(', ');
  if (!input.client) throw new BadConfig(`hook: name the client and the event, e.g. \`roundtable-bridge hook claude-code Stop\` (clients: ${clients})`);
  const client = hookClientNamed(input.client);
  if (!client) throw new BadConfig(`hook: unknown client "${input.client}"; use one of ${clients}`);
  const events = Object.keys(HOOK_CLIENTS[client]).join(', ');
  if (!input.event || !hookKind(client, input.event)) {
    throw new BadConfig(`hook ${client}: ${input.event ? `unknown event "${input.event}"` : 'no event given'}; use one of ${events}`);
  }
  const maxStopBlocks = input.maxBlocks === undefined ? DEFAULT_MAX_STOP_BLOCKS : Number(input.maxBlocks);
  if (!Number.isInteger(maxStopBlocks) || maxStopBlocks < 0 || maxStopBlocks > 100) {
    throw new BadConfig(`--max-blocks: "${input.maxBlocks}" is not a whole number from 0 to 100 (stop blocks in a row; 0 never blocks)`);
  }
  return { client, maxStopBlocks };
}

export async function hookCommand(input: HookCommandInput): Promise<number> {
  const { client, maxStopBlocks } = checkHookArguments(input);
  const board = new BoardClient({
    config: input.config,
    token: tokenLookup(input.config),
    userAgent: `roundtable-bridge/${VERSION} hook`,
    reconnectDelaysMs: HOOK_RECONNECT_DELAYS_MS,
  });
  const stdinText = await readHookStdin().catch((error: unknown) => error as Error);
  const output = await runHook({
    client,
    event: input.event!,
    board,
    boardUrl: input.config.baseUrl,
    account: input.config.account,
    stdinText,
    keepWorking: input.keepWorking,
    maxStopBlocks,
  });
  if (output) print(JSON.stringify(output));
  return 0;
}
