// `roundtable run` and `roundtable start`: the board in the foreground until a signal stops it, and what is said when it does.
import { existsSync } from 'node:fs';
import { checkPortFree } from '../process/port-check.js';
import { startBoard, type ShutdownSummary } from '../process/server.js';
import type { Config } from '../runtime/config.js';
import { log } from '../runtime/log.js';
import { VERSION } from '../runtime/version.js';
import { describeDatabase } from '../store/open.js';
import type { Command } from './command.js';
import { init } from './init.js';

async function run(config: Config): Promise<void> {
  // Handlers go in before listening, so a signal that arrives during start-up still shuts down cleanly.
  let stopRequested: string | undefined;
  let board: Awaited<ReturnType<typeof startBoard>> | undefined;
  const stop = (signal: string) => {
    if (stopRequested) return;
    stopRequested = signal;
    if (board) void shutdown(board, signal, config);
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGHUP', () => board?.reload());
  board = await startBoard(config);
  process.stdout.write(`Roundtable ${VERSION} listening on ${board.url}/mcp (status: ${board.url}/status, web page: ${board.url}/)\n`);
  log.info('board started', { url: board.url, db: describeDatabase(config), agents: config.agentsConfigPath });
  if (stopRequested) await shutdown(board, stopRequested, config);
}

/** After the call deadline (requests in flight end by it), this long for the rest: closing the store and its connections. */
const SHUTDOWN_GRACE_MS = 5_000;

async function shutdown(board: { close(): Promise<ShutdownSummary> }, signal: string, config: Config): Promise<void> {
  log.info('shutting down', { signal });
  // A database that stopped answering must not hold the process: every request in flight ends by its deadline, and
  // the store's connections are cut if they do not close; this is the bound on all of it.
  const boundMs = config.deadlines.callMs + SHUTDOWN_GRACE_MS;
  setTimeout(() => {
    log.error('shutdown did not finish in time; exiting without waiting any longer for the database', { bound_ms: boundMs });
    process.exit(1);
  }, boundMs).unref();
  try {
    const stopped = await board.close();
    // Said only now: the database has closed cleanly, so every write the board acknowledged is in it.
    log.info('stopped', { signal, ...stopped });
    process.stdout.write(`${describeStopped(signal, stopped)}\n`);
    process.exit(0);
  } catch (error) {
    log.error('shutdown failed', { error: String(error) });
    process.stdout.write(`Stopped on ${signal}, but the database did not close cleanly (${(error as Error).message}); run \`roundtable doctor\` before the next start.\n`);
    process.exit(1);
  }
}

/** "Stopped on SIGINT: the HTTP server (0 event streams and 1 parked wait ended), the webhook worker, and the database ..." */
function describeStopped(signal: string, stopped: ShutdownSummary): string {
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  const ended = `${count(stopped.streams, 'event stream', 'event streams')} and ${count(stopped.waits, 'parked wait', 'parked waits')} ended`;
  const finished = stopped.requests > 0 ? `${count(stopped.requests, 'request', 'requests')} finished first, ` : '';
  return `Stopped on ${signal}: the HTTP server (${finished}${ended}), the webhook worker, and the database (${stopped.database}), which closed cleanly. Nothing the board acknowledged was lost.`;
}

/** On PostgreSQL, whether the agents table holds agents already (then `start` writes no agents.json). */
async function agentsTableHolds(config: Config): Promise<boolean> {
  if (!config.databaseUrl) return false;
  const { readAgentsTable } = await import('../agents/table.js');
  return (await readAgentsTable(config.databaseUrl)) !== undefined;
}

export const RUN: Command = {
  name: 'run',
  usage: 'run [--port N] [--host ADDRESS]',
  summary: 'start the board (MCP on /mcp, JSON API on /api/v1, status on /status); --port and --host win over ROUNDTABLE_PORT and ROUNDTABLE_HOST',
  options: ['port', 'host'],
  args: [],
  serving: true,
  async run(config) {
    await checkPortFree(config.host, config.port);
    return run(config);
  },
};

export const START: Command = {
  name: 'start',
  usage: 'start [--port N] [--host ADDRESS] [--json]',
  summary: 'init if agents.json is missing, then run (the port is checked first)',
  options: ['port', 'host', 'json'],
  args: [],
  serving: true,
  async run(config, { values }) {
    // Before agents.json is written: a port that is taken must not cost the only copy of the tokens.
    await checkPortFree(config.host, config.port);
    if (!existsSync(config.agentsConfigPath) && !(await agentsTableHolds(config))) init(config, values['json'] === true);
    return run(config);
  },
};
