// The `roundtable` command line: init, run, start.
import { accessSync, constants, existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { addAgent, listAgents, removeAgent, rotateAgent } from './agents-admin.js';
import { ROLES, type Role } from 'roundtable-shared';
import { AgentsFileError } from './agents.js';
import { backupDatabaseFile, BackupError, listBackups, restoreBackup } from './backup.js';
import { DatabaseInUse } from './db-lock.js';
import { runDoctor } from './doctor.js';
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
  roundtable agents list
  roundtable agents add NAME --role worker|leader|peer|observer [--skills a,b] [--json]   print the new token once
  roundtable agents rotate NAME [--json]                                    print the new token once
  roundtable agents remove NAME
      Edit agents.json (hashes only, mode 600, atomic); a running board picks the change up by itself.
  roundtable backup [--list] take an online backup now (or list them)
  roundtable restore FILE    replace the database with a checked backup (the board must be stopped)
  roundtable doctor          check config, database, backups, disk, TLS and the port; say how to fix
  roundtable --version | --help

Every command takes --env FILE: KEY=value lines (such as the systemd unit's EnvironmentFile) read into the
environment first; variables already set win.

Configuration comes from environment variables (see README): ROUNDTABLE_HOST, ROUNDTABLE_PORT,
ROUNDTABLE_DB_PATH, ROUNDTABLE_AGENTS_CONFIG, ROUNDTABLE_NAME, ROUNDTABLE_RATE_LIMIT_PER_MINUTE,
ROUNDTABLE_ALLOWED_HOSTS, ROUNDTABLE_TLS_CERT, ROUNDTABLE_TLS_KEY, ROUNDTABLE_BACKUP_DIR,
ROUNDTABLE_BACKUP_INTERVAL, ROUNDTABLE_BACKUP_KEEP, ROUNDTABLE_BACKUP_MIN_FREE_MB, ROUNDTABLE_TRUST_PROXY,
ROUNDTABLE_LOG_LEVEL.
`;

/** Errors a user can fix; printed as one line, without a stack. */
const EXPECTED_ERRORS = [ConfigError, AgentsFileError, AgentsFileExists, SchemaTooNew, BackupError, DatabaseInUse];

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
  process.on('SIGHUP', () => board?.reload());
  board = await startBoard(config);
  process.stdout.write(`Roundtable ${VERSION} listening on ${board.url}/mcp (status: ${board.url}/status, web page: ${board.url}/)\n`);
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

function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

function agentsCommand(config: Config, args: string[], options: { json: boolean; role: string | undefined; skills: string | undefined }): void {
  const [action, name] = args;
  const path = config.agentsConfigPath;
  const issued = (token: string, agent: string): void =>
    void process.stdout.write(
      options.json
        ? `${JSON.stringify({ name: agent, token })}\n`
        : `New token for ${agent} (shown once; a running board accepts it within seconds):\n  ${token}\n`,
    );
  if (action === 'list' || action === undefined) {
    for (const agent of listAgents(path)) process.stdout.write(`${agent.name.padEnd(16)} ${agent.role.padEnd(7)} ${agent.skills.join(',')}\n`);
    return;
  }
  if (!name) throw new ConfigError(`roundtable agents ${action} needs an agent NAME`);
  switch (action) {
    case 'add': {
      const role = options.role ?? 'worker';
      if (!isRole(role)) throw new ConfigError(`--role must be one of ${ROLES.join(', ')}`);
      const skills = (options.skills ?? '').split(',').map((s) => s.trim()).filter(Boolean);
      return issued(addAgent(path, { name, role, skills }), name);
    }
    case 'rotate':
      return issued(rotateAgent(path, name), name);
    case 'remove':
      removeAgent(path, name);
      process.stdout.write(`Removed ${name}; its token is refused from the next request on.\n`);
      return;
    default:
      throw new ConfigError(`unknown agents action "${action}"; use list, add, rotate or remove`);
  }
}

async function backupCommand(config: Config, list: boolean): Promise<void> {
  if (list) {
    for (const name of listBackups(config.backup.dir)) process.stdout.write(`${name}\n`);
    return;
  }
  const outcome = await backupDatabaseFile(config.dbPath, config.backup);
  if (!outcome.taken) throw new BackupError(`backup skipped: ${outcome.reason}`);
  process.stdout.write(`Backup written and checked: ${outcome.file} (${outcome.bytes} bytes)${outcome.pruned.length ? `; pruned ${outcome.pruned.length} old` : ''}\n`);
}

function restoreCommand(config: Config, file: string | undefined): void {
  if (!file) throw new ConfigError('roundtable restore needs a FILE from `roundtable backup --list`');
  const { restored, keptAside } = restoreBackup(file, { dbPath: config.dbPath, backupDir: config.backup.dir });
  process.stdout.write(`Restored ${config.dbPath} from ${restored}.${keptAside ? ` The previous database is kept as ${keptAside}.` : ''}\n`);
}

/** Reads KEY=value lines (the systemd EnvironmentFile) into the environment; variables already set win. */
function loadEnvFile(path: string): void {
  try {
    // Checked first: Node 20's loadEnvFile exits the process on a missing file instead of throwing.
    accessSync(path, constants.R_OK);
    process.loadEnvFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(`--env ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'not readable by this user' : 'cannot be read'}`);
  }
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      list: { type: 'boolean', default: false },
      role: { type: 'string' },
      skills: { type: 'string' },
      // Not --env-file: Node 20 itself takes that flag from anywhere on the command line (nodejs/node#50993).
      env: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
  if (values.version) return void process.stdout.write(`${VERSION}\n`);
  const command = positionals[0];
  if (values.help || command === undefined || command === 'help') return void process.stdout.write(HELP);
  if (values.env !== undefined) loadEnvFile(values.env);
  const config = loadConfig();
  switch (command) {
    case 'init':
      return init(config, values.json);
    case 'run':
      return run(config);
    case 'start':
      if (!existsSync(config.agentsConfigPath)) init(config, values.json);
      return run(config);
    case 'agents':
      return agentsCommand(config, positionals.slice(1), { json: values.json, role: values.role, skills: values.skills });
    case 'backup':
      return backupCommand(config, values.list);
    case 'restore':
      return restoreCommand(config, positionals[1]);
    case 'doctor':
      process.exitCode = await runDoctor(config);
      return;
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
