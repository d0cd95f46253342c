// What setup says after it wrote: each file and what changed in it, what the client still needs, and the check's
// answer. Fixed words, paths, key names and the agent's name and role; never a value from the config.
import type { BridgeConfig } from '../config.js';
import { loginCommand } from '../credentials.js';
import { print } from '../terminal.js';
import { checkEntry } from './check.js';
import { home, type Client, type Places, type Scope } from './clients.js';
import type { Edit } from './edit.js';
import { describeRule, serverEnvironment } from './environment.js';
import type { HooksEdit } from './hooks.js';
import { isObject, type JsonObject } from './json-text.js';
import type { BridgeInstall, Launch } from './launch.js';

/** How long the check waits for whoami: npx may first have to fetch the package. */
const CHECK_TIMEOUT_MS = { installed: 20_000, checkout: 20_000, npx: 90_000 };

/** The entry's own variables, as the client would add them to the server's environment. */
export function entryEnvironment(entry: JsonObject): { env: Record<string, string>; envVars: string[] } {
  const table = isObject(entry['env']) ? entry['env'] : isObject(entry['environment']) ? entry['environment'] : {};
  const env = Object.fromEntries(Object.entries(table).filter((pair): pair is [string, string] => typeof pair[1] === 'string'));
  const listed = Array.isArray(entry['env_vars']) ? (entry['env_vars'] as unknown[]) : [];
  const envVars = listed.map((item) => (typeof item === 'string' ? item : isObject(item) && typeof item['name'] === 'string' ? item['name'] : '')).filter(Boolean);
  return { env, envVars };
}

export function reportServer(r: { client: Client; scope: Scope; file: string; name: string; server: Edit; backup: string | undefined; written: boolean; block: string }): void {
  const where = `${r.client.label} (${r.scope} scope): ${r.file}`;
  if (r.server.action === 'unchanged') {
    print(`${where}\nThe server "${r.name}" is already there as setup writes it; nothing changed.`);
  } else {
    const done = { added: 'Added the server', updated: 'Updated the keys setup writes in the server', replaced: 'Replaced the server (it was not a local command)', unchanged: '' }[r.server.action];
    const backup = r.backup ? ` Backup: ${r.backup}` : r.written ? ' (new file)' : '';
    print(`${where}\n${done} "${r.name}"; other servers are untouched.${backup}`);
    print(r.block.trimEnd());
  }
  if (r.server.kept.length) print(`Kept the entry's own keys as they were: ${r.server.kept.join(', ')}.`);
  const env = entryEnvironment(r.server.entry).env;
  if (Object.hasOwn(env, 'ROUNDTABLE_TOKEN')) {
    print(`Warning: the entry's env sets ROUNDTABLE_TOKEN, so a token is kept in ${r.file} in plain text. Remove it and store the token with \`roundtable-bridge login\`.`);
  }
}

export function reportHooks(client: Client, file: string, edit: HooksEdit, backups: Map<string, string | undefined>): void {
  if (!edit.added.length && !edit.updated.length) return print(`Hooks: ${file}: the Roundtable hooks are already there; nothing changed.`);
  const parts = [edit.added.length ? `added ${edit.added.join(', ')}` : '', edit.updated.length ? `updated ${edit.updated.join(', ')}` : ''].filter(Boolean);
  const backup = backups.get(file);
  print(`Hooks (${client.label}): ${file}: ${parts.join('; ')}; other hooks are untouched.${backup ? ` Backup: ${backup}` : ''}`);
}

export function npxNote(install: Extract<BridgeInstall, { kind: 'npx' }>): string {
  return `The entry starts the bridge through npx, pinned to ${install.version}: npm adds about half a second to every start, and npm exec does not pass on SIGINT at once. \`npm install -g roundtable-bridge@${install.version}\` and running setup again writes the installed bin instead.`;
}

/** The tarball way, for a bridge that is not on the registry: what `npm run pack:bridge` makes in a checkout. */
export const INSTALL_FROM_CHECKOUT = 'in a checkout of Roundtable run `npm run pack:bridge`, then `npm install -g dist/roundtable-bridge-*.tgz`';

export function checkoutNote(launch: Launch): string {
  return `The entry runs this checkout's bridge, which is no npm install: ${launch.command} ${launch.args[0]} (the Node.js that ran setup, by its full path, since an app's PATH may not have it). After a \`git pull\`, \`npm run build\` updates what it runs; moving the folder or removing that Node.js breaks it (run setup again). To install the bridge instead, ${INSTALL_FROM_CHECKOUT}, and run setup again with the installed roundtable-bridge.`;
}

export function tokenHint(config: BridgeConfig, places: Places): string {
  return ` No token was written: if this agent has none stored yet, run \`${loginCommand(config, places.platform)}\`.`;
}

export async function checkAndReport(c: {
  client: Client;
  launch: Launch;
  entry: JsonObject;
  install: BridgeInstall;
  scope: Scope;
  places: Places;
  config: BridgeConfig;
  /** Puts back every file setup wrote as it was before, and answers their paths. */
  undo: () => string[];
}): Promise<number> {
  const env = serverEnvironment(c.client.env, c.places.env, entryEnvironment(c.entry), c.places.platform);
  const result = await checkEntry({
    launch: c.launch,
    env,
    cwd: c.scope === 'project' ? c.places.project : home(c.places),
    timeoutMs: CHECK_TIMEOUT_MS[c.install.kind],
  });
  const how = `started the entry as ${c.client.label} will (with ${describeRule(c.client.env)})`;
  if (result.ok) {
    print(`Checked: ${how}, and the board answered whoami through it: ${result.name} (${result.role}), in ${Math.round(result.ms)} ms.`);
    print(`Restart ${c.client.label} to load it.`);
    return 0;
  }
  print(`Check failed: ${how}, but ${result.why}.`);
  if (result.notOnRegistry && c.install.kind === 'npx') {
    // An entry naming a package the registry does not have can never start, and would run whatever is published
    // under that name first: nothing of it is kept.
    const restored = c.undo();
    print(`roundtable-bridge@${c.install.version} is not on the npm registry, so the entry \`npx -y roundtable-bridge@${c.install.version}\` cannot start. ${restored.length ? `Left ${restored.join(' and ')} as it was` : 'Nothing was written'}.`);
    print(`Instead, ${INSTALL_FROM_CHECKOUT}, and run \`roundtable-bridge setup ${c.client.name}\` again with the same options: it then names the installed bin.`);
    return 1;
  }
  print(`The entry is written; ${c.client.label} will meet the same failure until it is fixed.${tokenHint(c.config, c.places)} Then run setup again to check.`);
  return 1;
}
