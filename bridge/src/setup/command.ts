// `roundtable-bridge setup CLIENT`: writes the bridge's entry (and with --hooks the client's command hooks) into its
// config, then starts the entry as the client will and asks whoami through it; --print only shows what it would write.
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseCommandLine } from '../args.js';
import { loadBridgeConfig } from '../config.js';
import { BadConfig } from '../errors.js';
import { log } from '../log.js';
import { shellArg } from '../platform.js';
import { print } from '../terminal.js';
import { PACKAGE_DIR, VERSION } from '../version.js';
import { CLIENT_NAMES, clientNamed, home, type Client, type Places, type Scope } from './clients.js';
import { ConfigRefused, editJsonConfig, editTomlConfig, tomlBlock, type Edit } from './edit.js';
import { CODEX_ENV_VARS } from './environment.js';
import { editHooksJson, enableCodexHooks, hookCommand, hookEvents, type HooksEdit, type HookTarget } from './hooks.js';
import { bridgeLaunch, findInstall, runningBridge, type Launch } from './launch.js';
import { checkAndReport, checkoutNote, npxNote, reportHooks, reportServer, tokenHint } from './report.js';
import { checkWritable, isInside, readConfig, replaceConfig, restoreConfig } from './write.js';

export const SETUP_USAGE = `Usage: roundtable-bridge setup CLIENT --url URL [--project SLUG] [--profile NAME] [--ca FILE] [--scope user|project] [--hooks] [--print] [--no-check]
  CLIENT is one of: ${CLIENT_NAMES.join(', ')} (gemini is taken for gemini-cli)
  Adds a server "roundtable" (or "roundtable-NAME" with --profile) that runs this bridge: the installed
  roundtable-bridge when there is one; run from a checkout, this Node.js and the checkout's bridge script;
  else \`npx -y roundtable-bridge@${VERSION}\`. A rerun changes only the keys setup writes.
  --scope user (the default) writes your own config; project writes the one in the current folder.
  --project SLUG makes the entry (and the hooks) run with --project SLUG: with --scope project, this
  repository's agents land on that project; the server keeps its name, so the repository's entry
  stands in for the user-scope one.
  --hooks also installs the client's command hooks (claude-code, codex, gemini-cli); other hooks are kept.
  --print only shows what would be written. --no-check skips starting the entry to ask whoami through it.
  No token is ever written: run \`roundtable-bridge login\` once instead.`;

type JsonEdit = (text: string) => string | undefined;

interface FilePlan {
  readonly path: string;
  readonly scope: string;
  original: string | undefined;
  text: string | undefined;
}

function entryBlock(client: Client, name: string, launch: Launch, server: ReturnType<typeof codexServer>): string {
  if (client.format === 'toml') return tomlBlock(name, server);
  const { container, owned } = client.place({}, launch);
  let block: Record<string, unknown> = { [name]: owned };
  for (const key of [...container].reverse()) block = { [key]: block };
  return `${JSON.stringify(block, null, 2)}\n`;
}

const codexServer = (launch: Launch) => ({ command: launch.command, args: launch.args, envVars: CODEX_ENV_VARS, required: true });

function editServer(client: Client, text: string, name: string, launch: Launch): Edit {
  if (client.format === 'toml') return editTomlConfig(text, name, codexServer(launch));
  return editJsonConfig(text, name, (doc) => client.place(doc, launch), (entry) => client.isStdio(entry));
}

/** The folder a config must stay inside: the project, or for user scope the home folder (or the file's own folder
 *  when the client's variable puts it elsewhere, e.g. CODEX_HOME). */
function scopeFolder(scope: Scope, file: string, places: Places): string {
  if (scope === 'project') return places.project;
  return isInside(file, home(places)) ? home(places) : dirname(file);
}

export async function runSetup(argv: string[], places: Places = { env: process.env, platform: process.platform, project: process.cwd() }): Promise<number> {
  const { values, positionals } = parseCommandLine(
    argv,
    {
      url: { type: 'string' },
      project: { type: 'string' },
      profile: { type: 'string' },
      ca: { type: 'string' },
      scope: { type: 'string', default: 'user' },
      hooks: { type: 'boolean', default: false },
      print: { type: 'boolean', default: false },
      'no-check': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
    'roundtable-bridge setup --help',
  );
  if (values.help) return print(SETUP_USAGE), 0;
  if (positionals.length !== 1) throw new BadConfig(`setup takes one client name, one of: ${CLIENT_NAMES.join(', ')}`);
  const client = clientNamed(positionals[0]!);
  if (!client) throw new BadConfig(`setup: no client is called ${JSON.stringify(positionals[0]!.slice(0, 40))}; use one of: ${CLIENT_NAMES.join(', ')}`);
  if (values.scope !== 'user' && values.scope !== 'project') throw new BadConfig('--scope: use user or project');
  const scope: Scope = values.scope;
  if (values.hooks && !client.hooks) {
    throw new BadConfig(`--hooks: ${client.label} has no command hook that adds context or keeps the agent working; use \`roundtable-bridge wake\` (docs/CONNECT.md), or leave out --hooks`);
  }
  const config = loadBridgeConfig({ url: values.url, project: values.project, profile: values.profile }, places.env);
  const ca = values.ca === undefined ? undefined : resolve(places.project, values.ca);
  if (ca !== undefined && !existsSync(ca)) throw new BadConfig(`--ca: there is no file ${ca}`);

  const name = values.profile === undefined ? 'roundtable' : `roundtable-${values.profile}`;
  const install = findInstall(runningBridge(PACKAGE_DIR, VERSION, places.platform));
  // The project goes into the entry as its own flag (the URL stays the daemon's), so the launched bridge, the hooks
  // and setup's own check through that entry all go to /p/SLUG.
  const projectArgs = config.project === undefined ? [] : ['--project', config.project];
  const bridgeArgs = ['--url', config.serverUrl, ...projectArgs, ...(values.profile === undefined ? [] : ['--profile', values.profile]), ...(ca === undefined ? [] : ['--ca', ca])];
  const launch = bridgeLaunch(bridgeArgs, install, places.platform);
  const target: HookTarget | undefined = client.hooks && { client: client.hooks.hookClient, url: config.baseUrl, profile: values.profile };
  const hookCommands = new Map(values.hooks && target ? hookEvents(target.client).map((event) => [event, hookCommand(launch, event, target, places.platform)]) : []);

  if (values.print) {
    print(entryBlock(client, name, launch, codexServer(launch)).trimEnd());
    if (hookCommands.size) print(JSON.stringify({ hooks: Object.fromEntries([...hookCommands].map(([event, command]) => [event, [{ hooks: [{ type: 'command', command }] }]])) }, null, 2));
    return 0;
  }

  const file = client.file(scope, places);
  if (file === undefined) throw new BadConfig(`--scope ${scope}: ${client.label} has no ${scope} config; use --scope ${scope === 'user' ? 'project' : 'user'}`);
  const plans = new Map<string, FilePlan>();
  const refuse = (path: string, error: ConfigRefused) => {
    log.error(`${path} was not changed: ${error.message}. Fix the file, or add the entry by hand: roundtable-bridge setup ${client.name} --url ${shellArg(config.serverUrl, places.platform)}${config.project === undefined ? '' : ` --project ${config.project}`}${values.profile === undefined ? '' : ` --profile ${values.profile}`} --print`);
    return 1;
  };
  const plan = (path: string, change: JsonEdit): void => {
    let entry = plans.get(path);
    if (!entry) {
      const original = readConfig(path);
      entry = { path, scope: scopeFolder(scope, path, places), original, text: original };
      plans.set(path, entry);
    }
    entry.text = change(entry.text ?? '') ?? entry.text;
  };

  let server!: Edit;
  let hooksEdit: HooksEdit | undefined;
  let current = file;
  try {
    plan(file, (text) => {
      server = editServer(client, text, name, launch);
      return server.text;
    });
    if (client.hooks && target && hookCommands.size) {
      current = client.hooks.file(scope, places);
      plan(current, (text) => {
        hooksEdit = editHooksJson(text, hookCommands, target);
        return hooksEdit.text;
      });
      if (client.name === 'codex') {
        current = file;
        plan(file, (text) => enableCodexHooks(text));
      }
    }
    for (const p of plans.values()) if (p.text !== p.original) checkWritable((current = p.path), p.scope);
  } catch (error) {
    if (error instanceof ConfigRefused) return refuse(current, error);
    throw error;
  }

  const backups = new Map<string, string | undefined>();
  for (const p of plans.values()) {
    if (p.text === undefined || p.text === p.original) continue;
    try {
      backups.set(p.path, replaceConfig(p.path, p.text, p.scope));
    } catch (error) {
      if (error instanceof ConfigRefused) return refuse(p.path, error);
      throw error;
    }
  }
  reportServer({ client, scope, file, name, server, backup: backups.get(file), written: backups.has(file), block: entryBlock(client, name, launch, codexServer(launch)) });
  if (hooksEdit && client.hooks) reportHooks(client, client.hooks.file(scope, places), hooksEdit, backups);
  if (install.kind === 'npx') print(npxNote(install));
  if (install.kind === 'checkout') print(checkoutNote(launch));
  const notice = client.notice?.(scope, places);
  if (notice) print(notice);
  if (hooksEdit && client.hooks?.afterwards) print(client.hooks.afterwards);

  if (values['no-check']) {
    print(`Restart ${client.label} to load it.${tokenHint(config, places)}`);
    return 0;
  }
  const undo = () => [...backups].map(([path, backup]) => (restoreConfig(path, backup, plans.get(path)!.scope), path));
  return checkAndReport({ client, launch, entry: server.entry, install, scope, places, config, undo });
}
