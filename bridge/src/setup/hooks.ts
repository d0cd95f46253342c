// `setup CLIENT --hooks`: the client's command hooks that run `roundtable-bridge hook`, put into its hooks file.
// A hook of ours is found again by what it runs (this client, this event, this board and profile), so a rerun updates
// its command in place; every other hook and every other key of its group stays as it was.
import { HOOK_CLIENTS, type HookClient } from '../hooks/clients.js';
import type { Platform } from '../platform.js';
import { formatLike, isObject, objectAt, parseJsonConfig, ConfigRefused, type JsonObject } from './json-text.js';
import { shellLine, type Launch } from './launch.js';
import { setTomlKeys } from './toml-edit.js';

export interface HookTarget {
  readonly client: HookClient;
  readonly url: string;
  readonly profile: string | undefined;
}

/** The events of the client that get a hook, in the order its docs list them. */
export function hookEvents(client: HookClient): string[] {
  return Object.keys(HOOK_CLIENTS[client]);
}

/** The shell line a hook runs: the bridge's launch with `hook CLIENT EVENT` in front of its options. */
export function hookCommand(launch: Launch, event: string, target: HookTarget, platform: Platform): string {
  // launch.args ends with the bridge's options (--url ...); `hook CLIENT EVENT` goes just before them.
  const at = launch.args.indexOf('--url');
  const args = [...launch.args.slice(0, at), 'hook', target.client, event, ...launch.args.slice(at)];
  return shellLine({ command: launch.command, args }, platform);
}

/** Words of a shell line, with '...' and "..." unquoted: enough to read back a command setup wrote. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const match of line.matchAll(/'((?:[^']|'\\'')*)'|"((?:[^"]|"")*)"|(\S+)/g)) {
    words.push(match[1] !== undefined ? match[1].replace(/'\\''/g, "'") : match[2] !== undefined ? match[2].replace(/""/g, '"') : match[3]!);
  }
  return words;
}

/** Whether a hook command runs our hook for this client, event and account (the same board origin and profile). */
export function isOurHook(command: unknown, event: string, target: HookTarget): boolean {
  if (typeof command !== 'string') return false;
  const words = shellWords(command);
  const at = words.indexOf('hook');
  if (at < 1 || !/roundtable-bridge(\.js|\.cmd|@[^\s/]*)?$/.test(words[at - 1]!)) return false;
  const client = words[at + 1];
  if (client !== target.client && !(target.client === 'gemini-cli' && client === 'gemini')) return false;
  if (words[at + 2] !== event) return false;
  const option = (name: string) => {
    const i = words.indexOf(name, at);
    return i > 0 ? words[i + 1] : undefined;
  };
  return sameOrigin(option('--url'), target.url) && option('--profile') === target.profile;
}

function sameOrigin(a: string | undefined, b: string): boolean {
  try {
    return a !== undefined && new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

export interface HooksEdit {
  readonly text: string | undefined;
  readonly added: string[];
  readonly updated: string[];
}

/**
 * Claude Code's settings.json, Codex's hooks.json and the Gemini CLI's settings.json share one shape:
 * hooks.EVENT is a list of groups, each with its own list of { type: "command", command }.
 */
export function editHooksJson(text: string, commands: ReadonlyMap<string, string>, target: HookTarget): HooksEdit {
  const doc = parseJsonConfig(text);
  const hooks = objectAt(doc, ['hooks']);
  const added: string[] = [];
  const updated: string[] = [];
  for (const [event, command] of commands) {
    const groups = Object.hasOwn(hooks, event) ? hooks[event] : (hooks[event] = []);
    if (!Array.isArray(groups)) throw new ConfigRefused(`"hooks.${event}" is not a list`);
    let found = false;
    for (const group of groups) {
      if (!isObject(group) || !Array.isArray(group['hooks'])) continue;
      for (const hook of group['hooks'] as unknown[]) {
        if (!isObject(hook) || !isOurHook(hook['command'], event, target)) continue;
        found = true;
        if (hook['command'] !== command) {
          hook['command'] = command;
          updated.push(event);
        }
      }
    }
    if (!found) {
      groups.push({ hooks: [{ type: 'command', command }] });
      added.push(event);
    }
  }
  if (!added.length && !updated.length) return { text: undefined, added, updated };
  return { text: formatLike(text, doc), added, updated };
}

/** Codex runs hooks with [features] hooks on (its default now; `codex_hooks`, the old name, is deprecated). */
export function enableCodexHooks(text: string): string | undefined {
  return setTomlKeys(text, ['features'], [{ key: 'hooks', value: () => ({ bare: 'true' }) }]).text;
}
