// The `roundtable` command line: finds the command the words name (one file each in cli/), checks its options and
// arguments, loads the configuration, runs it, and turns a failure into one line and an exit code.
import { accessSync, constants } from 'node:fs';
import { AgentsFileError } from '../agents/directory.js';
import { PortUnavailable } from '../process/port-check.js';
import { ConfigError, loadConfig, type ConfigFlags } from '../runtime/config.js';
import { DatabaseInUse } from '../runtime/db-lock.js';
import { escapeControls, quoted } from '../runtime/terminal-text.js';
import { VERSION } from '../runtime/version.js';
import { BackupError } from '../store/backup.js';
import { SchemaTooNew } from '../store/migration-files.js';
import { MigrationRefused } from '../store/migration-refused.js';
import { AGENTS_COMMANDS } from './agents.js';
import { nearest, readCommandLine, UsageError, type ParsedLine } from './args.js';
import { BACKUP, RESTORE } from './backup.js';
import { COMMON_OPTIONS, OPTIONS, type Command, type Invocation, type OptionName } from './command.js';
import { DOCTOR } from './doctor.js';
import { AgentsFileExists, INIT } from './init.js';
import { MIGRATE } from './migrate.js';
import { PEOPLE_COMMANDS } from './people.js';
import { APPS_COMMANDS, AppsCommandError } from './apps.js';
import { PROJECT_TRANSFER_COMMANDS, ProjectTransferError } from './project-transfer.js';
import { PROJECTS_COMMANDS } from './projects.js';
import { RUN, START } from './run.js';
import { STATUS } from './status.js';
import { WebhookCommandError } from './webhook-admin.js';
import { WEBHOOKS_COMMANDS } from './webhooks.js';

/** Every command, in the order the help lists them. */
const COMMANDS: Readonly<Record<string, Command>> = Object.fromEntries(
  [INIT, RUN, START, STATUS, ...PROJECTS_COMMANDS, ...PROJECT_TRANSFER_COMMANDS, ...AGENTS_COMMANDS, ...PEOPLE_COMMANDS, ...APPS_COMMANDS, ...WEBHOOKS_COMMANDS, BACKUP, RESTORE, DOCTOR, MIGRATE].map((command) => [
    command.name,
    command,
  ]),
);
/** Commands of two words (`agents add`): the first word names a group, whose bare name means its `list`. */
const GROUPS = new Set(Object.keys(COMMANDS).flatMap((key) => (key.includes(' ') ? [key.split(' ')[0]!] : [])));
function actionsOf(group: string): string[] {
  return Object.keys(COMMANDS)
    .filter((key) => key.startsWith(`${group} `))
    .map((key) => key.slice(group.length + 1));
}

function usageOf(keys: readonly string[]): string {
  const lines = keys.map((key) => `roundtable ${COMMANDS[key]!.usage}`);
  return lines.length === 1 ? `Usage: ${lines[0]}` : `Usage:\n${lines.map((l) => `  ${l}`).join('\n')}`;
}
const ALL_USAGE = usageOf(Object.keys(COMMANDS));
function groupUsage(group: string): string {
  return usageOf(Object.keys(COMMANDS).filter((key) => key.startsWith(`${group} `)));
}

/** The options the words' command takes (every option when the words name no command), for "did you mean". */
function optionsForWords([first, second]: readonly string[]): readonly string[] {
  const key = first !== undefined && GROUPS.has(first) ? `${first} ${second ?? 'list'}` : first;
  const spec = key === undefined ? undefined : COMMANDS[key];
  return spec ? [...spec.options, ...COMMON_OPTIONS] : Object.keys(OPTIONS);
}

/** The usage of the command the words name, or of every command that could be meant. */
function usageForWords([first, second]: readonly string[]): string {
  if (first !== undefined && GROUPS.has(first)) return COMMANDS[`${first} ${second ?? 'list'}`] ? usageOf([`${first} ${second ?? 'list'}`]) : groupUsage(first);
  return first !== undefined && COMMANDS[first] ? usageOf([first]) : ALL_USAGE;
}

const HELP = `roundtable ${VERSION}: the Roundtable board daemon

Usage:
${Object.values(COMMANDS)
  .map((c) => `  roundtable ${c.usage}\n      ${c.summary}`)
  .join('\n')}
  roundtable --version | --help

The agents commands edit agents.json (hashes only, mode 600, atomic, every rule checked first); a running
board picks the change up by itself. With ROUNDTABLE_DATABASE_URL they edit the agents table in PostgreSQL
instead, and every daemon on the board applies the change within a second.

Projects: each is a board of its own at /p/SLUG/ (slug: 1-40 lowercase letters, digits or "-"). The agents,
webhooks, backup and restore commands act on the project given with --project SLUG (default: default). People
sign in once and act in every project granted to them, with the role granted there.

Every command takes --env FILE: KEY=value lines (such as the systemd unit's EnvironmentFile) read into the
environment first; variables already set win.

Exit codes: 0 done; 1 refused or failed (the message says why); 2 the command line is wrong (the message
names the option or argument, then the usage).

Configuration comes from environment variables (see README): ROUNDTABLE_HOST, ROUNDTABLE_PORT,
ROUNDTABLE_DB_PATH, ROUNDTABLE_AGENTS_CONFIG, ROUNDTABLE_NAME, ROUNDTABLE_RATE_LIMIT_PER_MINUTE,
ROUNDTABLE_ALLOWED_HOSTS, ROUNDTABLE_TLS_CERT, ROUNDTABLE_TLS_KEY, ROUNDTABLE_BACKUP_DIR,
ROUNDTABLE_BACKUP_INTERVAL, ROUNDTABLE_BACKUP_KEEP, ROUNDTABLE_BACKUP_MIN_FREE_MB, ROUNDTABLE_TRUST_PROXY,
ROUNDTABLE_MAX_EVENT_STREAMS, ROUNDTABLE_LOG_LEVEL, ROUNDTABLE_LEASE_TTL, ROUNDTABLE_DATABASE_URL,
ROUNDTABLE_PUBLIC_URL, ROUNDTABLE_WEBHOOK_TIMEOUT, ROUNDTABLE_WEBHOOK_RETRY_BASE, ROUNDTABLE_WEBHOOK_MAX_ATTEMPTS,
ROUNDTABLE_OAUTH_REGISTRATION, ROUNDTABLE_OAUTH_ALLOW_LOOPBACK, ROUNDTABLE_OAUTH_ACCESS_TTL, ROUNDTABLE_OAUTH_REFRESH_TTL.
`;

/** Finds the command the words name and checks its arguments and options; every mistake is a UsageError. */
function resolveCommand(line: ParsedLine): Invocation {
  const [first, ...rest] = line.positionals;
  let command = first!;
  if (first !== undefined && GROUPS.has(first)) {
    const action = rest.shift() ?? 'list';
    command = `${first} ${action}`;
    if (!COMMANDS[command]) throw new UsageError(`unknown ${first} subcommand ${quoted(action)}; the known ones are ${actionsOf(first).join(', ')}`, groupUsage(first));
  }
  const spec = COMMANDS[command];
  if (!spec) {
    const names = [...new Set(Object.keys(COMMANDS).map((key) => key.split(' ')[0]!))];
    const near = nearest(String(first), names);
    throw new UsageError(`unknown command ${quoted(String(first))}; ${near ? `did you mean ${near}? ` : ''}the commands are ${names.join(', ')}`, ALL_USAGE);
  }
  const usage = usageOf([command]);
  for (const option of line.given) {
    if (!COMMON_OPTIONS.includes(option.name as OptionName) && !spec.options.includes(option.name as OptionName)) {
      const near = nearest(option.name, [...spec.options, ...COMMON_OPTIONS]);
      throw new UsageError(`${option.rawName} is not an option of roundtable ${command}${near ? `; did you mean --${near}?` : ''}`, usage);
    }
  }
  const missing = spec.args[rest.length];
  if (missing) throw new UsageError(`roundtable ${command} needs ${missing.missing}`, usage);
  if (rest.length > spec.args.length) throw new UsageError(`unexpected argument ${quoted(rest[spec.args.length]!)} after roundtable ${command}${spec.args.length ? ` ${spec.args.map((a) => a.name).join(' ')}` : ''}`, usage);
  const misuse = spec.misuse?.(line.values, rest);
  if (misuse) throw new UsageError(misuse, usage);
  return { command, args: rest, values: line.values };
}

/** Errors a user can fix; printed as one line, without a stack. */
const EXPECTED_ERRORS = [PortUnavailable, WebhookCommandError, ConfigError, AgentsFileError, AgentsFileExists, SchemaTooNew, BackupError, DatabaseInUse, MigrationRefused, ProjectTransferError, AppsCommandError];

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

/** Whether the command running is a long-running one (`run`, `start`). */
let serving = false;

// `roundtable backup --list | head -1`: the reader closed the pipe, which is not an error of ours.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') {
    process.stderr.write(`roundtable: cannot write to stdout (${error.code ?? error.message})\n`);
    process.exit(1);
  }
  if (!serving) process.exit(0);
});

async function main(argv: string[]): Promise<void> {
  const line = readCommandLine(argv, OPTIONS, usageForWords, optionsForWords);
  if (line.values['version']) return void process.stdout.write(`${VERSION}\n`);
  const first = line.positionals[0];
  if (line.values['help'] || first === undefined || first === 'help') return void process.stdout.write(HELP);
  const invocation = resolveCommand(line);
  const { command, values } = invocation;
  const spec = COMMANDS[command]!;
  // Long-running commands keep serving when whoever read their stdout goes away; the others stop quietly.
  serving = spec.serving === true;
  if (values['env'] !== undefined) loadEnvFile(String(values['env']));
  const flags: ConfigFlags = {
    ...(typeof values['port'] === 'string' && { ROUNDTABLE_PORT: { flag: '--port', value: values['port'] } }),
    ...(typeof values['host'] === 'string' && { ROUNDTABLE_HOST: { flag: '--host', value: values['host'] } }),
  };
  const config = loadConfig(process.env, flags);
  return spec.run(config, invocation);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  // Messages may quote what was typed: shown escaped, so no escape sequence in it reaches the terminal (issue 31).
  const say = (text: string) => void process.stderr.write(`roundtable: ${escapeControls(text, { keepLineBreaks: true })}\n`);
  if (error instanceof UsageError) {
    say(error.message);
    process.stderr.write(`${error.usage}\nEvery command and option: roundtable --help\n`);
    process.exit(2);
  }
  if (EXPECTED_ERRORS.some((type) => error instanceof type)) {
    say((error as Error).message);
  } else if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    const { port } = error as NodeJS.ErrnoException & { port?: number };
    say(`port ${port ?? '(unknown)'} is already in use; stop the program holding it, or choose another port: ROUNDTABLE_PORT=N or --port N`);
  } else {
    say((error as Error).stack ?? String(error));
  }
  process.exit(1);
});
