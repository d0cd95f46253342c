// The `roundtable-worker` command: puts an API-only model on the board as a worker.
import { BoardClient } from '../board-client.js';
import { findToken, type FoundToken } from '../credentials.js';
import { BadConfig, BridgeError } from '../errors.js';
import { log, setProgram } from '../log.js';
import { print } from '../terminal.js';
import { VERSION } from '../version.js';
import { loadWorkerConfig } from './config.js';
import { ModelWorker, WorkerStartError } from './worker.js';

setProgram('roundtable-worker');

async function main(): Promise<number> {
  if (process.argv.includes('--version')) {
    print(VERSION);
    return 0;
  }
  const config = loadWorkerConfig();
  let found: Promise<FoundToken> | undefined;
  const token = async (refresh: boolean) => {
    if (refresh || !found) found = findToken(config.board.account);
    return (await found).token;
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
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
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
