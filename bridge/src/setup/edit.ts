// Putting the server entry into a client's config text, JSON or TOML. Only the keys setup owns are written: an entry
// of ours that is already there keeps every other key (env, timeouts, ...), and other entries keep their values.
// A file that cannot be read back exactly as it was is refused, never rewritten.
import { isDeepStrictEqual } from 'node:util';
import type { JsonPlacement } from './clients.js';
import { ConfigRefused, formatLike, isObject, objectAt, parseJsonConfig, type JsonObject } from './json-text.js';
import { scanForEdit, setTomlKeys, type TomlSetting } from './toml-edit.js';
import type { TomlValue } from './toml.js';

export { ConfigRefused } from './json-text.js';

/** added: no entry of that name; updated: ours, its owned keys set; replaced: something else of that name, replaced whole. */
export type EditAction = 'added' | 'updated' | 'replaced' | 'unchanged';

export interface Edit {
  readonly action: EditAction;
  /** The new text of the file; undefined when nothing changes. */
  readonly text: string | undefined;
  /** Keys of the existing entry that setup kept as they were. */
  readonly kept: readonly string[];
  /** The entry as it is after the edit (for the check and the message). */
  readonly entry: JsonObject;
}

/** Existing keys first in their order, with owned values set; owned keys that were missing follow. */
function merge(existing: JsonObject, owned: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(existing)) out[key] = Object.hasOwn(owned, key) ? owned[key] : existing[key];
  for (const key of Object.keys(owned)) if (!Object.hasOwn(out, key)) out[key] = owned[key];
  return out;
}

export function editJsonConfig(text: string, name: string, place: (doc: JsonObject) => JsonPlacement, isStdio: (entry: JsonObject) => boolean): Edit {
  const doc = parseJsonConfig(text);
  const { container, owned } = place(doc);
  const holder = objectAt(doc, container);
  const existing = Object.hasOwn(holder, name) ? holder[name] : undefined;
  const ours = isObject(existing) && isStdio(existing);
  const entry = ours ? merge(existing, owned) : owned;
  if (isDeepStrictEqual(existing, entry)) return { action: 'unchanged', text: undefined, kept: ours ? keptKeys(existing, owned) : [], entry };
  holder[name] = entry;
  const action: EditAction = existing === undefined ? 'added' : ours ? 'updated' : 'replaced';
  return { action, text: formatLike(text, doc), kept: ours ? keptKeys(existing, owned) : [], entry };
}

const keptKeys = (existing: JsonObject, owned: JsonObject) => Object.keys(existing).filter((key) => !Object.hasOwn(owned, key));

export interface TomlServer {
  readonly command: string;
  readonly args: readonly string[];
  /** Names Codex copies from its environment; merged with the ones already listed. */
  readonly envVars: readonly string[];
  /** Codex waits for the server at start instead of starting the first turn without its tools. */
  readonly required: boolean;
}

const envVarName = (item: TomlValue) => (typeof item === 'string' ? item : !Array.isArray(item) && typeof (item as Record<string, TomlValue>)['name'] === 'string' ? ((item as Record<string, TomlValue>)['name'] as string) : undefined);

/** The keys setup owns in [mcp_servers.NAME]; env_vars keeps the names already listed and adds ours. */
function serverSettings(server: TomlServer): TomlSetting[] {
  return [
    { key: 'command', value: () => server.command },
    { key: 'args', value: () => [...server.args] },
    {
      key: 'env_vars',
      value: (current) => {
        const listed = Array.isArray(current) ? current : [];
        const names = new Set(listed.map(envVarName));
        return [...listed, ...server.envVars.filter((n) => !names.has(n))];
      },
    },
    { key: 'required', value: () => ({ bare: String(server.required) }) },
  ];
}

const OWNED_TOML_KEYS = new Set(['command', 'args', 'env_vars', 'required']);

/** The [mcp_servers.NAME] table as written into a fresh config.toml. */
export function tomlBlock(name: string, server: TomlServer): string {
  return setTomlKeys('', ['mcp_servers', name], serverSettings(server)).text!;
}

export function editTomlConfig(text: string, name: string, server: TomlServer): Edit {
  const body = text.replace(/^\uFEFF/, '');
  const doc = scanForEdit(body);
  for (const header of doc.headers) {
    if (header.array && header.path[0] === 'mcp_servers') throw new ConfigRefused(`[[${header.path.join('.')}]] makes mcp_servers an array of tables`);
  }
  if (doc.keys.some((key) => key.path.length === 1 && key.path[0] === 'mcp_servers')) {
    throw new ConfigRefused('mcp_servers is written as a value (an inline table), which this command does not edit');
  }
  const table = ['mcp_servers', name];
  const before = doc.keys.filter((key) => key.path.length > table.length && table.every((part, i) => key.path[i] === part));
  const edit = setTomlKeys(text, table, serverSettings(server));
  const kept = [...new Set(before.map((key) => key.path.slice(2).join('.')).filter((key) => !OWNED_TOML_KEYS.has(key.split('.')[0]!)))];
  const entry = tomlEntry(edit.text ?? text, table);
  if (edit.text === undefined) return { action: 'unchanged', text: undefined, kept, entry };
  return { action: edit.tableExisted ? 'updated' : 'added', text: edit.text, kept, entry };
}

/** The table's keys as plain values: strings, arrays, and a sub-table such as env as an object. */
function tomlEntry(text: string, table: readonly string[]): JsonObject {
  const doc = scanForEdit(text.replace(/^\uFEFF/, ''));
  const out: JsonObject = {};
  for (const key of doc.keys) {
    if (key.path.length <= table.length || !table.every((part, i) => key.path[i] === part)) continue;
    let here = out;
    const rest = key.path.slice(table.length);
    for (const part of rest.slice(0, -1)) here = (isObject(here[part]) ? here[part] : (here[part] = {})) as JsonObject;
    here[rest[rest.length - 1]!] = plain(key.value);
  }
  return out;
}

function plain(value: TomlValue): unknown {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(plain);
  if ('bare' in value && typeof value.bare === 'string') return value.bare;
  return Object.fromEntries(Object.entries(value as Record<string, TomlValue>).map(([k, v]) => [k, plain(v)]));
}
