// `roundtable-bridge setup CLIENT`: writes the bridge's entry into an MCP client's config, or with --print shows it.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadBridgeConfig } from '../config.js';
import { loginCommand } from '../credentials.js';
import { BadConfig } from '../errors.js';
import { log } from '../log.js';
import { shellArg } from '../platform.js';
import { print } from '../terminal.js';
import { bridgeLaunch, CLIENT_NAMES, CLIENTS, type Client, type Launch, type Places, type Scope } from './clients.js';
import { ConfigRefused, editJsonConfig, editTomlConfig, tomlBlock, type Edit } from './edit.js';
import { readConfig, replaceConfig } from './write.js';

export const SETUP_USAGE = `Usage: roundtable-bridge setup CLIENT --url URL [--profile NAME] [--ca FILE] [--scope user|project] [--print]
  CLIENT is one of: ${CLIENT_NAMES.join(', ')}
  Adds a server "roundtable" (or "roundtable-NAME" with --profile) that runs \`npx -y roundtable-bridge --url URL\`.
  --scope user (the default) writes your own config; project writes the one in the current folder.
  --print only shows the entry. No token is ever written: run \`roundtable-bridge login\` once instead.`;

function entryBlock(client: Client, name: string, launch: Launch): string {
  if (client.format === 'toml') return tomlBlock(name, launch.command, launch.args);
  const { container, entry } = client.place({}, launch);
  let block: Record<string, unknown> = { [name]: entry };
  for (const key of [...container].reverse()) block = { [key]: block };
  return `${JSON.stringify(block, null, 2)}\n`;
}

function edit(client: Client, text: string, name: string, launch: Launch): Edit {
  if (client.format === 'toml') return editTomlConfig(text, name, launch.command, launch.args);
  return editJsonConfig(text, name, (doc) => client.place(doc, launch));
}

export async function runSetup(argv: string[], places: Places = { env: process.env, platform: process.platform, project: process.cwd() }): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      profile: { type: 'string' },
      ca: { type: 'string' },
      scope: { type: 'string', default: 'user' },
      print: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return print(SETUP_USAGE), 0;
  if (positionals.length !== 1) throw new BadConfig(`setup takes one client name, one of: ${CLIENT_NAMES.join(', ')}`);
  const client = CLIENTS.find((c) => c.name === positionals[0]);
  if (!client) throw new BadConfig(`setup: no client is called "${positionals[0]!.slice(0, 40)}"; use one of: ${CLIENT_NAMES.join(', ')}`);
  if (values.scope !== 'user' && values.scope !== 'project') throw new BadConfig('--scope: use user or project');
  const scope: Scope = values.scope;
  const config = loadBridgeConfig({ url: values.url, profile: values.profile }, places.env);
  const ca = values.ca === undefined ? undefined : resolve(places.project, values.ca);
  if (ca !== undefined && !existsSync(ca)) throw new BadConfig(`--ca: there is no file ${ca}`);

  const name = values.profile === undefined ? 'roundtable' : `roundtable-${values.profile}`;
  const launch: Launch = bridgeLaunch(
    ['--url', config.baseUrl, ...(values.profile === undefined ? [] : ['--profile', values.profile]), ...(ca === undefined ? [] : ['--ca', ca])],
    places.platform,
  );
  const block = entryBlock(client, name, launch);
  if (values.print) return print(block.trimEnd()), 0;

  const file = client.file(scope, places);
  if (file === undefined) throw new BadConfig(`--scope ${scope}: ${client.label} has no ${scope} config; use --scope ${scope === 'user' ? 'project' : 'user'}`);
  const where = `${client.label} (${scope} scope): ${file}`;
  let result: Edit;
  try {
    result = edit(client, readConfig(file) ?? '', name, launch);
  } catch (error) {
    if (!(error instanceof ConfigRefused)) throw error;
    log.error(`${where} was not changed: ${error.message}. Fix the file, or add the entry by hand: roundtable-bridge setup ${client.name} --url ${shellArg(config.baseUrl, places.platform)} --print`);
    return 1;
  }
  if (result.action === 'unchanged' || result.text === undefined) {
    print(`${where}\nThe server "${name}" is already there as setup writes it; nothing changed.`);
    return 0;
  }
  const backup = replaceConfig(file, result.text);
  print(`${where}\n${result.action === 'added' ? 'Added' : 'Replaced'} the server "${name}"; other servers are untouched.${backup ? ` Backup: ${backup}` : ' (new file)'}`);
  print(block.trimEnd());
  print(`Restart ${client.label} to load it. No token was written: if this agent has none stored yet, run \`${loginCommand(config, places.platform)}\`.`);
  return 0;
}
