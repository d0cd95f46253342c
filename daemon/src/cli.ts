// The `roundtable` command line: init, run, start.
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { AgentsFileError } from './agents.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { AgentsFileExists, describeIssued, initAgentsFile } from './init.js';
import { log } from './log.js';
import { startBoard } from './server.js';
import { SchemaTooNew } from './store/migrate.js';
import { VERSION } from './version.js';

const HELP = `roundtable ${VERSION}: the Roundtable board daemon

Usage:
  roundtable init [--json]   write agents.json with one leader and two workers; print each token once
  roundtable run             start the board (MCP on /mcp, JSON API on /api/v1, status on /status)
  roundtable start           init if agents.json is missing, then run
  roundtable --version | --help

Configuration comes from environment variables (see README): ROUNDTABLE_HOST, ROUNDTABLE_PORT,
ROUNDTABLE_DB_PATH, ROUNDTABLE_AGENTS_CONFIG, ROUNDTABLE_NAME, ROUNDTABLE_RATE_LIMIT_PER_MINUTE,
ROUNDTABLE_ALLOWED_HOSTS, ROUNDTABLE_TLS_CERT, ROUNDTABLE_TLS_KEY.
`;

/** Errors a user can fix; printed as one line, without a stack. */
const EXPECTED_ERRORS = [ConfigError, AgentsFileError, AgentsFileExists, SchemaTooNew];

function init(config: Config, json: boolean): void {
  const issued = initAgentsFile(config.agentsConfigPath);
  process.stdout.write(json ? `${JSON.stringify({ agents: issued })}\n` : describeIssued(config.agentsConfigPath, issued));
}

async function run(config: Config): Promise<void> {
  // Handlers go in before listening, so a signal that arrives during start-up still shuts down cleanly.
  let stopRequested: string | undefined;
  let board: Awaited<ReturnType<typeof startBoard>> | undefined;
  const stop = (signal: string) => {
    if (stopRequested) return;
    stopRequested = signal;
    if (board) void shutdown(board, signal);
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  board = await startBoard(config);
  process.stdout.write(`Roundtable ${VERSION} listening on ${board.url}/mcp (status: ${board.url}/status)\n`);
  log.info('board started', { url: board.url, db: config.dbPath, agents: config.agentsConfigPath });
  if (stopRequested) await shutdown(board, stopRequested);
}

async function shutdown(board: { close(): Promise<void> }, signal: string): Promise<void> {
  log.info('shutting down', { signal });
  try {
    await board.close();
    process.exit(0);
  } catch (error) {
    log.error('shutdown failed', { error: String(error) });
    process.exit(1);
  }
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' }, version: { type: 'boolean', short: 'v' } },
  });
  if (values.version) return void process.stdout.write(`${VERSION}\n`);
  const command = positionals[0];
  if (values.help || command === undefined || command === 'help') return void process.stdout.write(HELP);
  const config = loadConfig();
  switch (command) {
    case 'init':
      return init(config, values.json);
    case 'run':
      return run(config);
    case 'start':
      if (!existsSync(config.agentsConfigPath)) init(config, values.json);
      return run(config);
    default:
      throw new ConfigError(`unknown command "${command}"; run \`roundtable --help\``);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (EXPECTED_ERRORS.some((type) => error instanceof type) || (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    process.stderr.write(`roundtable: ${(error as Error).message}\n`);
  } else if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    process.stderr.write(`roundtable: the port is already in use; set ROUNDTABLE_PORT to a free port or stop the other process\n`);
  } else {
    process.stderr.write(`roundtable: ${(error as Error).stack ?? String(error)}\n`);
  }
  process.exit(1);
});
