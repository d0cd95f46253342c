// The `roundtable-bridge` command: serve MCP over stdio (the default), login, logout, status, hook, wake, setup, guard,
// worktree, trailer.
import { parseCommandLine } from './args.js';
import { BoardClient, BoardRefusal } from './board-client.js';
import { loadBridgeConfig, parseToolsets, workEnabled, type BridgeConfig } from './config.js';
import { findToken, noTokenLine, type FoundToken } from './credentials.js';
import { BadConfig, BridgeError, DaemonUnreachable, KeychainTimeout } from './errors.js';
import { deleteTokenFromKeychain, KEYCHAIN_SERVICE, storeTokenInKeychain } from './keychain.js';
import { log, setVerbose } from './log.js';
import { AudienceCache, audienceOf } from './tool-audience.js';
import { print, promptHidden, readAllStdin } from './terminal.js';
import { VERSION } from './version.js';

const HELP = `roundtable-bridge ${VERSION}: connect an MCP client to a Roundtable board over stdio

Usage:
  roundtable-bridge --url URL [--project SLUG] [--profile NAME] [--ca FILE] [--timeout S] [--toolsets LIST] [--no-work]
      Serve the board's tools over stdio (what an agent app launches).
  roundtable-bridge login --url URL [--project SLUG] [--profile NAME] [--token-stdin]
      Check a token against the board and store it in the OS keychain.
  roundtable-bridge logout --url URL [--project SLUG] [--profile NAME]
      Remove the stored token.
  roundtable-bridge status --url URL [--project SLUG] [--profile NAME]
      Show the board, the agent, where the token comes from, and the round-trip time.
  roundtable-bridge hook CLIENT EVENT --url URL [--project SLUG] [--profile NAME] [--keep-working] [--max-blocks N]
      Answer an agent app's command hook (event JSON on stdin): claude-code SessionStart|UserPromptSubmit|Stop,
      codex SessionStart|UserPromptSubmit|Stop, gemini-cli SessionStart|BeforeAgent|AfterAgent (docs/CONNECT.md).
  roundtable-bridge wake --exec CMD --url URL [--project SLUG] [--profile NAME] [--for tasks,messages,reviews] [--debounce S]
      Run CMD (a command line of yours, e.g. tmux send-keys) when new work or messages wait for the agent.
  roundtable-bridge setup CLIENT --url URL [--project SLUG] [--profile NAME] [--scope user|project] [--hooks] [--print] [--no-check]
      Add the bridge (and with --hooks the client's hooks) to an MCP client's config, then ask whoami through it
      as the client will run it (setup --help lists the clients). Never writes a token.
  roundtable-bridge guard --url URL [--project SLUG] [--profile NAME] [--scope NAME] [--strict]
      Git pre-commit check: refuse the commit if a staged file is held exclusively by another agent
      (check_paths). If the board cannot be reached it warns and lets the commit through; --strict refuses.
  roundtable-bridge guard --install --url URL [--project SLUG] [--profile NAME] [--scope NAME] [--strict]
      Make that check this repository's pre-commit hook, and add a prepare-commit-msg hook that puts a
      Roundtable-Task: ID trailer on commits made on a task branch (rt/ID-...) or while you hold exactly one claim
      (\`roundtable-bridge trailer MSGFILE\` does it); existing hooks are kept and run first.
  roundtable-bridge worktree TASK [--dir PATH] --url URL [--project SLUG] [--profile NAME]
      For a task you hold: make a git worktree on a new branch rt/ID-short-title from the default branch, in
      <parent>/<repo>.worktrees/ (or --dir, or ROUNDTABLE_WORKTREE_DIR), and print its path. Again: the same path.
  roundtable-bridge worktree --remove TASK --url URL [--project SLUG] [--profile NAME]
      Once the task is done or cancelled: remove its worktree; the branch is kept.

Options:
  --url URL        the board, https:// (http:// only to a loopback host); or set ROUNDTABLE_URL
  --project SLUG   the project on a board that serves several (its requests go to /p/SLUG/...); or set
                   ROUNDTABLE_PROJECT, or give the URL as https://host/p/SLUG; each project has its own login
  --profile NAME   keychain account to use instead of the board's origin (several agents on one machine)
  --ca FILE        PEM file of a private CA that signed the board's certificate (or NODE_EXTRA_CA_CERTS)
  --timeout S      seconds to wait for the board per call (default 30)
  --toolsets LIST  list only these toolsets' tools, from tasks, room, presence, reservations (whoami always)
  --no-work        serving: send no git work (branch, commits, diff) with submit_result; or ROUNDTABLE_WORK=off
  --token-stdin    login: read the token from standard input instead of a hidden prompt
  --scope NAME     guard: the reservation scope (repository name) to check; default: the default scope
  --strict         guard: refuse the commit when the board cannot be asked
  --install        guard: install as the repository's pre-commit hook
  --verbose        debug lines on stderr
  --keep-working   hook, stop event: also keep the agent working while tasks it may claim wait
  --max-blocks N   hook, stop event: stop blocks in a row before a stop is let through (default 3)
  --exec CMD       wake: the command to run; it gets ids and counts in ROUNDTABLE_WAKE_* variables
  --for LIST       wake: what wakes the agent, from tasks, messages, reviews (default tasks,messages)
  --debounce S     wake: least seconds between two runs of CMD (default 5)

The token is read, in order, from ROUNDTABLE_TOKEN, the OS keychain (service "${KEYCHAIN_SERVICE}"),
then ROUNDTABLE_TOKEN_FILE (a file of mode 600). It is never taken from the command line.
`;

function clientFor(config: BridgeConfig, token: (refresh: boolean) => Promise<string | FoundToken>): BoardClient {
  return new BoardClient({ config, token, userAgent: `roundtable-bridge/${VERSION}` });
}

async function serve(config: BridgeConfig, toolsets: ReturnType<typeof parseToolsets>, work: boolean): Promise<void> {
  let found: Promise<FoundToken> | undefined;
  // Looked up again after a 401 (a `login` may have stored a new token) and after a failure.
  const token = async (refresh: boolean) => {
    if (refresh || !found) found = findToken(config);
    try {
      return await found;
    } catch (error) {
      found = undefined;
      throw error;
    }
  };
  const audienceCache = new AudienceCache({ baseUrl: config.baseUrl, account: config.account });
  // The MCP server (the SDK's server side, the tool list) is loaded only to serve: hooks, which run at the end of every
  // turn, and the other commands never pay for it.
  const { serveBridge } = await import('./serve.js');
  const { CallAttachments, lazyProvider } = await import('./submission/attach.js');
  const cwd = process.cwd();
  // The providers (git, the apps' files, the state folder's hashing) load at the first call, not before tools/list.
  const attachments = new CallAttachments([
    lazyProvider('work', async () => (await import('./work/provider.js')).workProvider({ cwd, board: config.baseUrl, project: config.project, enabled: work })),
    lazyProvider('usage', async () => (await import('./usage/provider.js')).usageProvider({ cwd })),
  ]);
  await serveBridge({ client: clientFor(config, token), version: VERSION, toolsets, audienceCache, attachments });
  log.debug('serving over stdio', { board: config.baseUrl });
  // Looked up once in the background after start, so tools/list is not held up by the keychain, and a bridge
  // with no token says so in its log at once instead of at the first tool call.
  const first = findToken(config);
  found ??= first;
  first.catch((error: unknown) => {
    log.warn(noTokenLine(error, config));
    // A stuck Secret Service would hold the bridge up again if asked at once, so the first tool call gets this
    // answer; any other failure is quick to look up afresh, and a `login` meanwhile is then seen.
    if (found === first && !(error instanceof KeychainTimeout)) found = undefined;
  });
}

async function login(config: BridgeConfig, tokenFromStdin: boolean): Promise<number> {
  const token = (tokenFromStdin ? await readAllStdin() : await promptHidden(`Token for ${config.baseUrl}: `)).trim();
  if (!token) throw new BadConfig('no token was given');
  const client = clientFor(config, async () => token);
  let me: Record<string, unknown>;
  try {
    me = await client.callTool('whoami', {});
  } catch (error) {
    if (error instanceof BoardRefusal && error.body.error.code === 'unauthorized') {
      print(`That token is not valid for ${config.baseUrl}; nothing was stored. Check it with the board owner.`);
      return 1;
    }
    if (error instanceof BoardRefusal && error.body.error.code === 'forbidden' && config.project !== undefined) {
      // whoami is refused by no rule: the token is another project's (board-client.ts says which and what to do).
      print(`${error.body.error.message}. Nothing was stored.`);
      return 1;
    }
    throw error;
  }
  await storeTokenInKeychain(config.account, token);
  // The next start lists this agent's tools from its first tools/list.
  const audience = audienceOf(me);
  if (audience) new AudienceCache({ baseUrl: config.baseUrl, account: config.account }).write(audience);
  print(`Logged in to ${config.baseUrl} as ${String(me['name'])} (${String(me['role'])}).`);
  print(`The token is in the OS keychain (service "${KEYCHAIN_SERVICE}", account "${config.account}").`);
  return 0;
}

async function logout(config: BridgeConfig): Promise<number> {
  const removed = await deleteTokenFromKeychain(config.account);
  print(removed ? `Removed the token for ${config.account} from the keychain.` : `No token was stored for ${config.account}.`);
  return 0;
}

async function status(config: BridgeConfig): Promise<number> {
  print(`board:    ${config.baseUrl}`);
  if (config.project !== undefined) print(`project:  ${config.project}`);
  print(`bridge:   roundtable-bridge ${VERSION}, node ${process.version}`);
  let ok = true;
  let found: FoundToken | undefined;
  try {
    found = await findToken(config);
    print(`token:    from ${found.source}${found.source === 'keychain' ? ` (account "${config.account}")` : ''}`);
  } catch (error) {
    ok = false;
    print(`token:    none usable: ${describe(error)}`);
  }
  const client = clientFor(config, async () => found ?? '');
  let reachable = false;
  try {
    const started = performance.now();
    const board = await client.status();
    const rtt = performance.now() - started;
    reachable = true;
    // The unprefixed /status is the daemon's default project's: with another project its board name would mislead.
    const named = config.project === undefined ? `${String(board['board'])} ` : '';
    print(`daemon:   reachable, ${rtt.toFixed(1)} ms round trip; ${named}version ${String(board['version'])}`);
  } catch (error) {
    ok = false;
    if (error instanceof DaemonUnreachable) {
      print(`daemon:   nothing answers at ${error.url} (${error.reason}). Check that the board's daemon is running (on its machine: \`roundtable run\`, or \`systemctl status roundtable\`) and that the URL is right (--url or ROUNDTABLE_URL)`);
    } else {
      print(`daemon:   not reachable: ${describe(error)}`);
    }
  }
  if (found && reachable) {
    try {
      const me = await client.callTool('whoami', {});
      print(`agent:    ${String(me['name'])} (${String(me['role'])})${(me['skills'] as string[]).length ? `, skills: ${(me['skills'] as string[]).join(', ')}` : ''}`);
    } catch (error) {
      ok = false;
      print(`agent:    ${describe(error)}`);
    }
  } else if (found) {
    print('agent:    not checked: the board did not answer');
  }
  return ok ? 0 : 1;
}

async function guard(config: BridgeConfig, options: { strict: boolean; install: boolean; scope: string | undefined; profile: string | undefined }): Promise<number> {
  if (options.scope !== undefined && (options.scope === '' || options.scope.length > 100)) throw new BadConfig('--scope: give a repository name of 1-100 characters');
  // Loaded here only, like hook and wake: serving MCP never loads the guard.
  const { installGuard, runGuard } = await import('./guard.js');
  if (options.install) {
    const trailerArgs = [
      '--url',
      config.serverUrl,
      ...(config.project !== undefined ? ['--project', config.project] : []),
      ...(options.profile !== undefined ? ['--profile', options.profile] : []),
      ...(config.caFile !== undefined ? ['--ca', config.caFile] : []),
    ];
    const guardArgs = [...trailerArgs, ...(options.scope !== undefined ? ['--scope', options.scope] : []), ...(options.strict ? ['--strict'] : [])];
    const done = await installGuard({ guardArgs, trailerArgs });
    print(`Installed the Roundtable guard as ${done.hook}.`);
    if (done.chained) print(`The pre-commit hook that was there is kept as ${done.chained} and runs first.`);
    if (done.trailerHook) print(`Installed the Roundtable-Task trailer as ${done.trailerHook}.`);
    if (done.trailerChained) print(`The prepare-commit-msg hook that was there is kept as ${done.trailerChained} and runs first.`);
    return 0;
  }
  const token = async () => findToken(config);
  return runGuard({ client: clientFor(config, token), baseUrl: config.baseUrl, scope: options.scope, strict: options.strict, say: (line) => process.stderr.write(`${line}\n`) });
}

async function worktree(config: BridgeConfig, options: { task: string | undefined; remove: boolean; dir: string | undefined }): Promise<number> {
  const { worktreeCommand } = await import('./work/worktree.js');
  return worktreeCommand({
    client: clientFor(config, async () => findToken(config)),
    task: options.task,
    remove: options.remove,
    dir: options.dir ?? process.env['ROUNDTABLE_WORKTREE_DIR'],
    cwd: process.cwd(),
    // The path is the repository's folder (the person's own) joined with the title's slug: printed as it is, so a
    // script can cd to it (a Windows path keeps its backslashes).
    print: (line) => print(line),
    say: (line) => process.stderr.write(`${line}\n`),
  });
}

async function trailer(config: BridgeConfig, messageFile: string | undefined): Promise<number> {
  const { trailerCommand } = await import('./work/trailer.js');
  // No waiting to reconnect: a commit should not sit on a board that does not answer.
  const client = () => new BoardClient({ config, token: async () => findToken(config), userAgent: `roundtable-bridge/${VERSION}`, reconnectDelaysMs: [] });
  return trailerCommand({ client, messageFile, cwd: process.cwd() });
}

function describe(error: unknown): string {
  if (error instanceof BridgeError) return `${error.message}. ${error.fix}`;
  if (error instanceof BoardRefusal) return error.body.error.message;
  return String((error as Error)?.message ?? error);
}

async function main(argv: string[]): Promise<number | undefined> {
  // Loaded only when asked for, with its own options; serving never pays for it.
  if (argv[0] === 'setup') return (await import('./setup/command.js')).runSetup(argv.slice(1));
  const { values, positionals } = parseCommandLine(argv, {
    url: { type: 'string' },
    project: { type: 'string' },
    profile: { type: 'string' },
    ca: { type: 'string' },
    timeout: { type: 'string' },
    toolsets: { type: 'string' },
    'token-stdin': { type: 'boolean', default: false },
    'keep-working': { type: 'boolean', default: false },
    'max-blocks': { type: 'string' },
    exec: { type: 'string' },
    for: { type: 'string' },
    debounce: { type: 'string' },
    recheck: { type: 'string' },
    scope: { type: 'string' },
    strict: { type: 'boolean', default: false },
    install: { type: 'boolean', default: false },
    'no-work': { type: 'boolean', default: false },
    dir: { type: 'string' },
    remove: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean', short: 'v' },
  });
  if (values.version) return print(VERSION), 0;
  if (values.help) return print(HELP), 0;
  setVerbose(values.verbose);
  const command = positionals[0] ?? 'serve';
  // A hook runs at the end of every turn: unless told otherwise it gives the board 5 s, not the usual 30. A commit
  // should not sit for long on a board that does not answer either: the guard waits 10 s.
  const defaultTimeout = command === 'hook' ? '5' : command === 'guard' ? '10' : command === 'trailer' ? '3' : undefined;
  const timeout = values.timeout ?? (process.env['ROUNDTABLE_TIMEOUT'] === undefined ? defaultTimeout : undefined);
  const config = loadBridgeConfig({ url: values.url, project: values.project, profile: values.profile, ca: values.ca, timeout });
  switch (command) {
    case 'serve':
      await serve(config, parseToolsets(values.toolsets), workEnabled(values['no-work']));
      return undefined;
    case 'login':
      return login(config, values['token-stdin']);
    case 'logout':
      return logout(config);
    case 'status':
      return status(config);
    case 'hook': {
      // Loaded here only: the MCP server's start-up never loads the hook or wake modules.
      const { hookCommand } = await import('./hooks/command.js');
      return hookCommand({ config, client: positionals[1], event: positionals[2], keepWorking: values['keep-working'], maxBlocks: values['max-blocks'] });
    }
    case 'wake': {
      const { wakeCommand } = await import('./wake/command.js');
      return wakeCommand({ config, exec: values.exec, for: values.for, debounce: values.debounce, recheck: values.recheck });
    }
    case 'guard':
      return guard(config, { strict: values.strict, install: values.install, scope: values.scope, profile: values.profile });
    case 'worktree':
      return worktree(config, { task: positionals[1], remove: values.remove, dir: values.dir });
    case 'trailer':
      return trailer(config, positionals[1]);
    default:
      throw new BadConfig(`unknown command "${command}"`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exit(code);
  },
  (error: unknown) => {
    const code = (error as { code?: string }).code;
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      log.error(`${(error as Error).message}; run \`roundtable-bridge --help\``);
    } else {
      log.error(describe(error));
    }
    process.exit(1);
  },
);
