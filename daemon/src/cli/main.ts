// The `roundtable` command line: init, run, start, agents, webhooks, backup, restore, doctor.
import { accessSync, constants, existsSync } from 'node:fs';
import { addAgent, agentsFileTarget, importAgents, listAgents, removeAgent, rotateAgent, setAgent, type AgentsTarget } from '../agents/editing.js';
import { ROLES, type Role } from 'roundtable-shared';
import { AgentsFileError } from '../agents/directory.js';
import { nearest, readCommandLine, UsageError, type OptionSpec, type ParsedLine } from './args.js';
import { escapeControls, quoted } from '../runtime/terminal-text.js';
import { backupDatabaseFile, BackupError, listBackups, restoreBackup } from '../store/backup.js';
import { DatabaseInUse, daemonUsing } from '../runtime/db-lock.js';
import { runDoctor } from '../doctor/index.js';
import { ConfigError, loadConfig, type Config, type ConfigFlags } from '../runtime/config.js';
import { AgentsFileExists, describeIssued, initAgentsFile, pageAddress } from './init.js';
import { excludeDaemonFiles } from '../process/git-exclude.js';
import { log } from '../runtime/log.js';
import { checkPortFree, PortUnavailable } from '../process/port-check.js';
import { startBoard, type ShutdownSummary } from '../process/server.js';
import { statusCommand } from './status.js';
import { SchemaTooNew } from '../store/migration-files.js';
import { VERSION } from '../runtime/version.js';
import { describeDatabase } from '../store/open.js';
import { MigrationRefused } from '../store/migration-refused.js';
import { addWebhook, describeWebhookHealth, openWebhookAdmin, queueTest, shownUrl, WebhookCommandError } from './webhooks.js';
import { WEBHOOK_EVENTS } from '../store/webhook-events.js';
import { WEBHOOK_FORMATS } from '../store/webhooks-port.js';

const OPTIONS = {
  json: { type: 'boolean' },
  list: { type: 'boolean' },
  role: { type: 'string', example: 'worker' },
  skills: { type: 'string', example: 'python,sql' },
  toolsets: { type: 'string', example: 'tasks,room' },
  // Not --env-file: Node 20 itself takes that flag from anywhere on the command line (nodejs/node#50993).
  env: { type: 'string', example: '/etc/roundtable/roundtable.env' },
  to: { type: 'string', example: 'postgres://roundtable@db.internal/roundtable' },
  events: { type: 'string', example: 'submitted,help_request' },
  format: { type: 'string', example: 'slack' },
  'allow-http-loopback': { type: 'boolean' },
  'allow-private': { type: 'boolean' },
  port: { type: 'string', example: '9000' },
  host: { type: 'string', example: '0.0.0.0' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const satisfies Record<string, OptionSpec>;
type OptionName = keyof typeof OPTIONS;
/** Taken by every command. */
const COMMON_OPTIONS: readonly OptionName[] = ['env', 'help', 'version'];

interface CommandSpec {
  /** The words after `roundtable`, as shown in the usage. */
  readonly usage: string;
  readonly summary: string;
  readonly options: readonly OptionName[];
  /** Positional arguments after the command's words, each required, with how a message names it. */
  readonly args: ReadonlyArray<{ readonly name: string; readonly missing: string }>;
}

const AGENT_NAME = [{ name: 'NAME', missing: 'an agent NAME (`roundtable agents list` shows them)' }];
const ROLE_CHOICES = ROLES.join('|');

const COMMANDS: Readonly<Record<string, CommandSpec>> = {
  init: { usage: 'init [--json]', summary: 'write agents.json with an owner (you), one leader and two workers; print each token once', options: ['json'], args: [] },
  run: {
    usage: 'run [--port N] [--host ADDRESS]',
    summary: 'start the board (MCP on /mcp, JSON API on /api/v1, status on /status); --port and --host win over ROUNDTABLE_PORT and ROUNDTABLE_HOST',
    options: ['port', 'host'],
    args: [],
  },
  start: { usage: 'start [--port N] [--host ADDRESS] [--json]', summary: 'init if agents.json is missing, then run (the port is checked first)', options: ['port', 'host', 'json'], args: [] },
  status: { usage: 'status [--json]', summary: "whether a board runs on this folder's database: its address, version, uptime, agents active, tasks by state", options: ['json'], args: [] },
  'agents list': { usage: 'agents list', summary: 'name, role and skills of every agent', options: [], args: [] },
  'agents add': {
    usage: `agents add NAME [--role ${ROLE_CHOICES}] [--skills a,b] [--toolsets tasks,room] [--json]`,
    summary: 'a new agent (role worker unless given); print its token once',
    options: ['role', 'skills', 'toolsets', 'json'],
    args: AGENT_NAME,
  },
  'agents set': {
    usage: `agents set NAME [--role ${ROLE_CHOICES}] [--skills a,b] [--toolsets tasks,room]`,
    summary: "change an agent's role, skills and/or toolsets (--skills '' for none, --toolsets '' for all); its token stays",
    options: ['role', 'skills', 'toolsets'],
    args: AGENT_NAME,
  },
  'agents rotate': { usage: 'agents rotate NAME [--json]', summary: 'a new token for the agent, printed once; the old one stops working', options: ['json'], args: AGENT_NAME },
  'agents remove': { usage: 'agents remove NAME', summary: 'its token stops working; its claimed tasks go back to open', options: [], args: AGENT_NAME },
  'agents import': {
    usage: 'agents import FILE',
    summary: 'PostgreSQL only: move an agents.json into the empty agents table (refused once it holds agents)',
    options: [],
    args: [{ name: 'FILE', missing: 'the agents.json FILE to move into the database' }],
  },
  'webhooks list': { usage: 'webhooks list [--json]', summary: 'id, events, format and origin of every webhook (never its secret)', options: ['json'], args: [] },
  'webhooks add': {
    usage: `webhooks add URL --events ${WEBHOOK_EVENTS.join(',')} [--format ${WEBHOOK_FORMATS.join('|')}] [--allow-http-loopback] [--allow-private] [--json]`,
    summary: 'a webhook for these events (https only; http and loopback only with --allow-http-loopback); print its signing secret once',
    options: ['events', 'format', 'allow-http-loopback', 'allow-private', 'json'],
    args: [{ name: 'URL', missing: 'the receiver URL, such as https://hooks.slack.com/services/...' }],
  },
  'webhooks remove': { usage: 'webhooks remove ID', summary: 'the webhook, its secret and its undelivered deliveries', options: [], args: [{ name: 'ID', missing: 'a webhook ID (`roundtable webhooks list` shows them)' }] },
  'webhooks test': { usage: 'webhooks test ID', summary: 'queue a signed test delivery to the webhook (a running board sends it)', options: [], args: [{ name: 'ID', missing: 'a webhook ID (`roundtable webhooks list` shows them)' }] },
  'webhooks status': { usage: 'webhooks status [--json]', summary: "each webhook's last attempt (time, outcome, reason) and next retry, the counts, and the dead-letter list", options: ['json'], args: [] },
  backup: { usage: 'backup [--list]', summary: 'take an online backup now (or list them)', options: ['list'], args: [] },
  restore: {
    usage: 'restore FILE',
    summary: 'replace the database with a checked backup (the board must be stopped)',
    options: [],
    args: [{ name: 'FILE', missing: 'a FILE from `roundtable backup --list`' }],
  },
  doctor: { usage: 'doctor', summary: 'check config, database, backups, disk, TLS and the port; say how to fix', options: [], args: [] },
  migrate: {
    usage: 'migrate --to postgres://USER@HOST/DB',
    summary: 'copy the SQLite board (audit log included) into an empty PostgreSQL database and check the counts (the board must be stopped)',
    options: ['to'],
    args: [],
  },
};
const AGENT_ACTIONS = Object.keys(COMMANDS)
  .filter((key) => key.startsWith('agents '))
  .map((key) => key.slice('agents '.length));

function usageOf(keys: readonly string[]): string {
  const lines = keys.map((key) => `roundtable ${COMMANDS[key]!.usage}`);
  return lines.length === 1 ? `Usage: ${lines[0]}` : `Usage:\n${lines.map((l) => `  ${l}`).join('\n')}`;
}
const ALL_USAGE = usageOf(Object.keys(COMMANDS));
const AGENTS_USAGE = usageOf(Object.keys(COMMANDS).filter((key) => key.startsWith('agents ')));
const WEBHOOKS_USAGE = usageOf(Object.keys(COMMANDS).filter((key) => key.startsWith('webhooks ')));

/** The options the words' command takes (every option when the words name no command), for "did you mean". */
function optionsForWords([first, second]: readonly string[]): readonly string[] {
  const key = first === 'agents' || first === 'webhooks' ? `${first} ${second ?? 'list'}` : first;
  const spec = key === undefined ? undefined : COMMANDS[key];
  return spec ? [...spec.options, ...COMMON_OPTIONS] : Object.keys(OPTIONS);
}

/** The usage of the command the words name, or of every command that could be meant. */
function usageForWords([first, second]: readonly string[]): string {
  if (first === 'agents') return COMMANDS[`agents ${second ?? 'list'}`] ? usageOf([`agents ${second ?? 'list'}`]) : AGENTS_USAGE;
  if (first === 'webhooks') return COMMANDS[`webhooks ${second ?? 'list'}`] ? usageOf([`webhooks ${second ?? 'list'}`]) : WEBHOOKS_USAGE;
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

Every command takes --env FILE: KEY=value lines (such as the systemd unit's EnvironmentFile) read into the
environment first; variables already set win.

Exit codes: 0 done; 1 refused or failed (the message says why); 2 the command line is wrong (the message
names the option or argument, then the usage).

Configuration comes from environment variables (see README): ROUNDTABLE_HOST, ROUNDTABLE_PORT,
ROUNDTABLE_DB_PATH, ROUNDTABLE_AGENTS_CONFIG, ROUNDTABLE_NAME, ROUNDTABLE_RATE_LIMIT_PER_MINUTE,
ROUNDTABLE_ALLOWED_HOSTS, ROUNDTABLE_TLS_CERT, ROUNDTABLE_TLS_KEY, ROUNDTABLE_BACKUP_DIR,
ROUNDTABLE_BACKUP_INTERVAL, ROUNDTABLE_BACKUP_KEEP, ROUNDTABLE_BACKUP_MIN_FREE_MB, ROUNDTABLE_TRUST_PROXY,
ROUNDTABLE_MAX_EVENT_STREAMS, ROUNDTABLE_LOG_LEVEL, ROUNDTABLE_LEASE_TTL, ROUNDTABLE_DATABASE_URL,
ROUNDTABLE_PUBLIC_URL, ROUNDTABLE_WEBHOOK_TIMEOUT, ROUNDTABLE_WEBHOOK_RETRY_BASE, ROUNDTABLE_WEBHOOK_MAX_ATTEMPTS.
`;

interface Invocation {
  /** A key of COMMANDS. */
  readonly command: string;
  readonly args: string[];
  readonly values: ParsedLine['values'];
}

/** Finds the command the words name and checks its arguments and options; every mistake is a UsageError. */
function resolveCommand(line: ParsedLine): Invocation {
  const [first, ...rest] = line.positionals;
  let command = first!;
  if (first === 'agents') {
    const action = rest.shift() ?? 'list';
    command = `agents ${action}`;
    if (!COMMANDS[command]) throw new UsageError(`unknown agents subcommand ${quoted(action)}; the known ones are ${AGENT_ACTIONS.join(', ')}`, AGENTS_USAGE);
  }
  if (first === 'webhooks') {
    const action = rest.shift() ?? 'list';
    command = `webhooks ${action}`;
    if (!COMMANDS[command]) throw new UsageError(`unknown webhooks subcommand ${quoted(action)}; the known ones are list, add, remove, test, status`, WEBHOOKS_USAGE);
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
  if (line.values['role'] !== undefined && !isRole(String(line.values['role']))) {
    throw new UsageError(`--role must be one of ${ROLES.join(', ')} (got ${quoted(String(line.values['role']))})`, usage);
  }
  if (command === 'migrate' && (typeof line.values['to'] !== 'string' || !/^postgres(ql)?:\/\/\S+$/.test(line.values['to']))) {
    throw new UsageError('roundtable migrate needs --to with a PostgreSQL URL such as postgres://roundtable@db.internal/roundtable', usage);
  }
  if (command === 'webhooks add' && typeof line.values['events'] !== 'string') {
    throw new UsageError(`roundtable webhooks add needs --events, a list of ${WEBHOOK_EVENTS.join(', ')}`, usage);
  }
  if (command === 'agents set' && line.values['role'] === undefined && line.values['skills'] === undefined && line.values['toolsets'] === undefined) {
    throw new UsageError('roundtable agents set needs --role, --skills, --toolsets, or several of them', usage);
  }
  return { command, args: rest, values: line.values };
}

/** Errors a user can fix; printed as one line, without a stack. */
const EXPECTED_ERRORS = [PortUnavailable, WebhookCommandError, ConfigError, AgentsFileError, AgentsFileExists, SchemaTooNew, BackupError, DatabaseInUse, MigrationRefused];

function init(config: Config, json: boolean): void {
  const issued = initAgentsFile(config.agentsConfigPath);
  excludeDaemonFiles(config);
  const page = pageAddress(config);
  process.stdout.write(json ? `${JSON.stringify({ agents: issued, ...(page !== undefined && { page }) })}\n` : describeIssued(config.agentsConfigPath, issued, page));
}

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

function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

function splitSkills(text: string): string[] {
  return [...new Set(text.split(',').map((s) => s.trim()).filter(Boolean))];
}

function describeSkills(skills: readonly string[]): string {
  return skills.length ? skills.join(',') : '(none)';
}

/** agents.json on SQLite; the agents table when the board is on PostgreSQL. */
async function agentsTarget(config: Config): Promise<AgentsTarget> {
  if (!config.databaseUrl) return agentsFileTarget(config.agentsConfigPath);
  const { openAgentsTable } = await import('../agents/table.js');
  return openAgentsTable(config.databaseUrl);
}

/** On PostgreSQL, whether the agents table holds agents already (then `start` writes no agents.json). */
async function agentsTableHolds(config: Config): Promise<boolean> {
  if (!config.databaseUrl) return false;
  const { readAgentsTable } = await import('../agents/table.js');
  return (await readAgentsTable(config.databaseUrl)) !== undefined;
}

async function agentsCommand(config: Config, invocation: Invocation): Promise<void> {
  if (invocation.command === 'agents import' && !config.databaseUrl) {
    throw new AgentsFileError(
      'agents import moves agents.json into a PostgreSQL board; set ROUNDTABLE_DATABASE_URL to it (a SQLite board reads agents.json where it is)',
    );
  }
  const target = await agentsTarget(config);
  try {
    await agentsAction(target, invocation, config.databaseUrl ? 'every daemon on the board applies it within a second' : 'a running board applies it within seconds');
  } finally {
    await target.close();
  }
}

async function agentsAction(path: AgentsTarget, { command, args, values }: Invocation, applies: string): Promise<void> {
  const [name] = args;
  const json = values['json'] === true;
  const role = values['role'] as Role | undefined;
  const skills = values['skills'] === undefined ? undefined : splitSkills(String(values['skills']));
  // --toolsets '' lifts the narrowing: the agent lists every tool its role may use.
  const toolsetList = values['toolsets'] === undefined ? undefined : splitSkills(String(values['toolsets']));
  const toolsets = toolsetList === undefined ? undefined : toolsetList.length ? toolsetList : null;
  const issued = (token: string, agent: string): void =>
    void process.stdout.write(
      json ? `${JSON.stringify({ name: agent, token })}\n` : `New token for ${agent} (shown once; ${applies}):\n  ${token}\n`,
    );
  switch (command) {
    case 'agents list':
      for (const agent of await listAgents(path)) process.stdout.write(`${agent.name.padEnd(16)} ${agent.role.padEnd(7)} ${agent.skills.join(',')}\n`);
      return;
    case 'agents add':
      return issued(await addAgent(path, { name: name!, role: role ?? 'worker', skills: skills ?? [], ...(toolsets && { toolsets }) }), name!);
    case 'agents set': {
      const change = await setAgent(path, name!, { ...(role && { role }), ...(skills && { skills }), ...(toolsets !== undefined && { toolsets }) });
      const parts = [
        change.role && `role ${change.role.from} -> ${change.role.to}`,
        change.skills && `skills ${describeSkills(change.skills.from)} -> ${describeSkills(change.skills.to)}`,
        change.toolsets && `toolsets ${change.toolsets.from?.join(',') ?? '(all)'} -> ${change.toolsets.to?.join(',') ?? '(all)'}`,
      ].filter(Boolean);
      process.stdout.write(
        parts.length
          ? `Changed ${name}: ${parts.join('; ')}. ${applies[0]!.toUpperCase()}${applies.slice(1)}; the token is unchanged.\n`
          : `${name} already has that role, those skills and those toolsets; nothing written.\n`,
      );
      return;
    }
    case 'agents rotate':
      return issued(await rotateAgent(path, name!), name!);
    case 'agents remove':
      await removeAgent(path, name!);
      process.stdout.write(`Removed ${name}; its token is refused from the next request on, and its claimed tasks go back to open.\n`);
      return;
    case 'agents import': {
      await importAgents(path, name!);
      const count = (await listAgents(path)).length;
      process.stdout.write(`Moved ${count} agent(s) from ${escapeControls(name!)} into the agents table (tokens as hashes only); ${applies}. Edit agents with \`roundtable agents ...\` from now on; the file is no longer read, so keep it only as a backup, or delete it.\n`);
      return;
    }
  }
}

async function webhooksCommand(config: Config, { command, args, values }: Invocation): Promise<void> {
  const admin = await openWebhookAdmin(config);
  const json = values['json'] === true;
  const applies = config.databaseUrl ? 'every daemon on the board uses it from its next delivery' : 'a running board uses it from its next delivery';
  try {
    switch (command) {
      case 'webhooks list': {
        const hooks = (await admin.listWebhooks()).map((h) => ({ ...h, url: shownUrl(h.url) }));
        if (json) return void process.stdout.write(`${JSON.stringify({ webhooks: hooks })}\n`);
        if (hooks.length === 0) return void process.stdout.write('No webhooks. Add one with `roundtable webhooks add URL --events submitted`.\n');
        for (const h of hooks) process.stdout.write(`${h.id}  ${h.format.padEnd(7)}  ${h.url}  events=${h.events.join(',')}${h.allowLoopback ? '  loopback allowed' : ''}${h.allowPrivate ? '  private allowed' : ''}\n`);
        return;
      }
      case 'webhooks add': {
        const { webhook, secret } = await addWebhook(admin, {
          url: args[0]!,
          events: String(values['events']),
          format: typeof values['format'] === 'string' ? values['format'] : undefined,
          allowHttpLoopback: values['allow-http-loopback'] === true,
          allowPrivate: values['allow-private'] === true,
        });
        // webhook-secrets.json may be new: kept out of the repository the board sits in, like its other files.
        excludeDaemonFiles(config);
        if (json) return void process.stdout.write(`${JSON.stringify({ id: webhook.id, secret })}\n`);
        process.stdout.write(`Added webhook ${webhook.id} (${webhook.format}, events ${webhook.events.join(',')}); ${applies}.\nIts signing secret (shown once; verify the webhook-signature header with it):\n  ${secret}\n`);
        return;
      }
      case 'webhooks remove':
        if (!(await admin.removeWebhook(args[0]!))) throw new WebhookCommandError(`no webhook has the id ${quoted(args[0]!)}; \`roundtable webhooks list\` shows them`);
        process.stdout.write(`Removed webhook ${args[0]} with its secret and its undelivered deliveries.\n`);
        return;
      case 'webhooks test': {
        const id = await queueTest(admin, args[0]!);
        process.stdout.write(`Queued test delivery ${id}; a running board sends it within a second or two (\`roundtable webhooks status\` shows how its attempt ended).\n`);
        return;
      }
      case 'webhooks status': {
        const status = await admin.status(50);
        if (json) return void process.stdout.write(`${JSON.stringify({ ...status, webhooks: status.webhooks.map((h) => ({ ...h, url: shownUrl(h.url) })) })}\n`);
        process.stdout.write(`Pending: ${status.pending}  Delivered (last 24 h): ${status.delivered}  Dead-lettered: ${status.deadTotal}\n`);
        for (const h of status.webhooks) process.stdout.write(`${describeWebhookHealth(h)}\n`);
        for (const d of status.dead) process.stdout.write(`  dead ${d.id}  webhook=${d.webhookId}  event=${d.event}  attempts=${d.attempts}  last_error=${d.lastError ?? '-'}  at=${d.createdAt}\n`);
        return;
      }
    }
  } finally {
    await admin.close();
  }
}

/** On PostgreSQL, backups are PostgreSQL's own: the board does not wrap pg_dump (docs/DECISIONS.md, issue 16). */
const POSTGRES_BACKUPS =
  "the board is on PostgreSQL (ROUNDTABLE_DATABASE_URL): back it up and restore it with PostgreSQL's own tools, e.g. `pg_dump --format=custom --file=board.dump DBNAME` and `pg_restore`, or base backups with WAL archiving (docs/DEPLOY.md)";

async function backupCommand(config: Config, list: boolean): Promise<void> {
  if (config.databaseUrl) throw new BackupError(POSTGRES_BACKUPS);
  if (list) {
    for (const name of listBackups(config.backup.dir)) process.stdout.write(`${name}\n`);
    return;
  }
  const outcome = await backupDatabaseFile(config.dbPath, config.backup);
  if (!outcome.taken) throw new BackupError(`backup skipped: ${outcome.reason}`);
  process.stdout.write(`Backup written and checked: ${outcome.file} (${outcome.bytes} bytes)${outcome.pruned.length ? `; pruned ${outcome.pruned.length} old` : ''}\n`);
}

/** Copies the SQLite board at ROUNDTABLE_DB_PATH into an empty PostgreSQL database; the URL is never printed. */
async function migrateCommand(config: Config, to: string): Promise<void> {
  if (!existsSync(config.dbPath)) throw new MigrationRefused(`no SQLite board at ${config.dbPath}; set ROUNDTABLE_DB_PATH to the board to copy`);
  const pid = daemonUsing(config.dbPath);
  if (pid !== undefined) throw new MigrationRefused(`a roundtable daemon (pid ${pid}) is using ${config.dbPath}; stop it first, so that no write is left behind`);
  const [{ SqliteStore }, { copyBoard }] = await Promise.all([import('../store/sqlite/index.js'), import('../store/postgres/copy-board.js')]);
  const store = new SqliteStore({ path: config.dbPath });
  try {
    const { rows } = await copyBoard(store.db, to);
    const target = describeDatabase({ ...config, databaseUrl: to });
    process.stdout.write(`Copied ${config.dbPath} into ${target}; every table has as many rows on both sides:\n`);
    for (const [table, count] of Object.entries(rows)) process.stdout.write(`  ${table.padEnd(18)} ${count}\n`);
    process.stdout.write('Start the daemons with ROUNDTABLE_DATABASE_URL set to that database; keep the SQLite file as a backup.\n');
  } finally {
    await store.close();
  }
}

function restoreCommand(config: Config, file: string): void {
  if (config.databaseUrl) throw new BackupError(POSTGRES_BACKUPS);
  const { restored, keptAside } = restoreBackup(file, { dbPath: config.dbPath, backupDir: config.backup.dir });
  process.stdout.write(`Restored ${config.dbPath} from ${escapeControls(restored)}.${keptAside ? ` The previous database is kept as ${keptAside}.` : ''}\n`);
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

/** Long-running commands keep serving when whoever read their stdout goes away; the others stop quietly. */
const SERVING_COMMANDS = new Set(['run', 'start']);
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
  const { command, args, values } = invocation;
  serving = SERVING_COMMANDS.has(command);
  if (values['env'] !== undefined) loadEnvFile(String(values['env']));
  const flags: ConfigFlags = {
    ...(typeof values['port'] === 'string' && { ROUNDTABLE_PORT: { flag: '--port', value: values['port'] } }),
    ...(typeof values['host'] === 'string' && { ROUNDTABLE_HOST: { flag: '--host', value: values['host'] } }),
  };
  const config = loadConfig(process.env, flags);
  switch (command) {
    case 'init':
      return init(config, values['json'] === true);
    case 'run':
      await checkPortFree(config.host, config.port);
      return run(config);
    case 'start':
      // Before agents.json is written: a port that is taken must not cost the only copy of the tokens.
      await checkPortFree(config.host, config.port);
      if (!existsSync(config.agentsConfigPath) && !(await agentsTableHolds(config))) init(config, values['json'] === true);
      return run(config);
    case 'status':
      process.exitCode = await statusCommand(config, values['json'] === true);
      return;
    case 'backup':
      return backupCommand(config, values['list'] === true);
    case 'restore':
      return restoreCommand(config, args[0]!);
    case 'doctor':
      process.exitCode = await runDoctor(config);
      return;
    case 'migrate':
      return migrateCommand(config, String(values['to']));
    default:
      if (command.startsWith('webhooks ')) return webhooksCommand(config, invocation);
      return agentsCommand(config, invocation);
  }
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
