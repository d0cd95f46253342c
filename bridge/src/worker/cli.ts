// The `roundtable-worker` command: puts an API-only model on the board as a worker.
import { BoardClient } from '../board-client.js';
import { findToken, type FoundToken } from '../credentials.js';
import { BadConfig, BridgeError } from '../errors.js';
import { log, setProgram } from '../log.js';
import { print } from '../terminal.js';
import { VERSION } from '../version.js';
import { loadWorkerConfig } from './config.js';
import { ModelWorker, WorkerStartError } from './worker.js';
import { onStopSignals } from '../platform.js';

setProgram('roundtable-worker');

// Printed without reading any setting, so it works before the environment is set up.
const HELP = `roundtable-worker ${VERSION}: put an API-only model (OpenAI-compatible chat completions) on a Roundtable
board as a worker: it claims tasks it has the skills for, asks the model, and submits the answer.

Usage: roundtable-worker            run until Ctrl+C or SIGTERM
       roundtable-worker --help | --version

Settings, all from the environment (docs/WORKER.md):
  ROUNDTABLE_URL              the board: https://..., or http:// to a loopback host (required)
  ROUNDTABLE_PROFILE          keychain account, as given to \`roundtable-bridge login --profile\`
  ROUNDTABLE_PROJECT          the project on a board that serves several, as given to \`login --project\`
  WORKER_MODEL_BASE_URL       the API, up to before /chat/completions, e.g. https://api.deepseek.com/v1 (required)
  WORKER_MODEL_NAME           the model, e.g. deepseek-chat (required)
  WORKER_API_KEY              the model API's key, sent only in the Authorization header (required, or:)
  WORKER_API_KEY_FILE         a file holding the key, mode 600 or 400 (a systemd credential), if WORKER_API_KEY is unset
  WORKER_POLL_INTERVAL        seconds to pause when work exists that it cannot take now (default 10)
  WORKER_MAX_TASKS_PER_HOUR   model calls per rolling hour, failures included (default 10)
  WORKER_MODEL_TIMEOUT        seconds for one model call (default 120)
  WORKER_COOLDOWN_SECONDS     after a failure, the task is not tried again for this long (default 900)
  WORKER_MAX_FAILURES         failures on a task before it gives up on it (default 3)

The worker's token (a worker's, one process per token) is found as the bridge finds it: ROUNDTABLE_TOKEN,
then the OS keychain (roundtable-bridge login), then ROUNDTABLE_TOKEN_FILE (mode 600).`;

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    print(HELP);
    return 0;
  }
  if (args.includes('--version')) {
    print(VERSION);
    return 0;
  }
  const config = loadWorkerConfig();
  let found: Promise<FoundToken> | undefined;
  const token = async (refresh: boolean) => {
    if (refresh || !found) found = findToken(config.board);
    // With its source, a refused token is reported with the fix for where it came from.
    return await found;
  };
  const client = new BoardClient({ config: config.board, token, userAgent: `roundtable-worker/${VERSION}` });
  const worker = new ModelWorker({ config, client });
  let signals = 0;
  const onSignal = (signal: string) => {
    signals += 1;
    if (signals > 1) process.exit(130);
    log.info(`${signal}: stopping`);
    worker.stop();
  };
  // A second stop signal leaves at once. Windows has no SIGTERM: Ctrl+C, Ctrl+Break or closing the console.
  onStopSignals(onSignal);
  await worker.run();
  log.info('stopped');
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    // BadConfig's fix points at `roundtable-bridge --help`, which does not list the worker's settings; its message names the variable.
    if (error instanceof BadConfig) log.error(error.message);
    else if (error instanceof BridgeError) log.error(`${error.message}. ${error.fix}`);
    else if (error instanceof WorkerStartError) log.error(error.message);
    else log.error(String((error as Error)?.message ?? error));
    process.exit(1);
  },
);
