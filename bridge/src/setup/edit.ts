// Putting one server entry into a client's config text, JSON or TOML: added, replaced, or already there.
// Other entries keep their values; a file that cannot be read back exactly as it was is refused, never rewritten.
import { isDeepStrictEqual } from 'node:util';
import { scanToml, tomlKey, tomlString, TomlRefused, type TomlValue } from './toml.js';

/** The config is malformed, or written in a way this command cannot edit without losing something. */
export class ConfigRefused extends Error {}

export type EditAction = 'added' | 'replaced' | 'unchanged';

export interface Edit {
  readonly action: EditAction;
  /** The new text of the file; undefined when nothing changes. */
  readonly text: string | undefined;
}

type JsonObject = { [key: string]: unknown };

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Where an entry goes in a JSON config, chosen by looking at the document (opencode has two layouts). */
export interface JsonPlacement {
  /** Keys from the top of the document to the object that holds the servers, e.g. ['mcpServers']. */
  readonly container: readonly string[];
  readonly entry: JsonObject;
}

function stripBom(text: string): { bom: string; body: string } {
  return text.startsWith('\uFEFF') ? { bom: '\uFEFF', body: text.slice(1) } : { bom: '', body: text };
}

/** Numbers JSON.parse would round: writing the file back would change them. */
function lossyNumber(body: string): string | undefined {
  const outsideStrings = body.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  for (const token of outsideStrings.match(/-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g) ?? []) {
    const digits = token.replace(/^-/, '').replace(/[eE].*$/, '').replace('.', '').replace(/^0+/, '');
    if (digits.length > 15) return token;
  }
  return undefined;
}

export function parseJsonConfig(text: string): JsonObject {
  const { body } = stripBom(text);
  if (!body.trim()) return {};
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch (error) {
    throw new ConfigRefused(`it is not plain JSON (${(error as Error).message}); comments and trailing commas are not kept by this command`);
  }
  if (!isObject(doc)) throw new ConfigRefused('its top level is not a JSON object');
  const lossy = lossyNumber(body);
  if (lossy) throw new ConfigRefused(`it holds the number ${lossy.slice(0, 40)}, which would not be written back exactly`);
  return doc;
}

export function editJsonConfig(text: string, name: string, place: (doc: JsonObject) => JsonPlacement): Edit {
  const doc = parseJsonConfig(text);
  const { container, entry } = place(doc);
  let holder: JsonObject = doc;
  for (const [i, key] of container.entries()) {
    const next = Object.hasOwn(holder, key) ? holder[key] : undefined;
    if (next === undefined) {
      const created: JsonObject = {};
      holder[key] = created;
      holder = created;
    } else if (isObject(next)) {
      holder = next;
    } else {
      throw new ConfigRefused(`"${container.slice(0, i + 1).join('.')}" is not a JSON object`);
    }
  }
  const existing = Object.hasOwn(holder, name) ? holder[name] : undefined;
  if (isDeepStrictEqual(existing, entry)) return { action: 'unchanged', text: undefined };
  holder[name] = entry;
  const { bom, body } = stripBom(text);
  const indent = /\n([ \t]+)\S/.exec(body)?.[1] ?? '  ';
  const newline = body.includes('\r\n') ? '\r\n' : '\n';
  const json = JSON.stringify(doc, null, indent).replace(/\n/g, newline);
  return { action: existing === undefined ? 'added' : 'replaced', text: `${bom}${json}${newline}` };
}

/** The [mcp_servers.NAME] table as written into config.toml. */
export function tomlBlock(name: string, command: string, args: readonly string[]): string {
  return `[mcp_servers.${tomlKey(name)}]\ncommand = ${tomlString(command)}\nargs = [${args.map(tomlString).join(', ')}]\n`;
}

const startsWith = (path: readonly string[], prefix: readonly string[]) => prefix.every((part, i) => path[i] === part);

export function editTomlConfig(text: string, name: string, command: string, args: readonly string[]): Edit {
  const { bom, body } = stripBom(text);
  let doc;
  try {
    doc = scanToml(body);
  } catch (error) {
    if (error instanceof TomlRefused) throw new ConfigRefused(`it is not TOML this command can edit safely (${error.message})`);
    throw error;
  }
  const ours = ['mcp_servers', name];
  for (const header of doc.headers) {
    if (header.array && startsWith(header.path, ['mcp_servers'])) throw new ConfigRefused(`[[${header.path.join('.')}]] makes mcp_servers an array of tables`);
  }
  for (const key of doc.keys) {
    if (key.path.length === 1 && key.path[0] === 'mcp_servers') throw new ConfigRefused('mcp_servers is written as a value (an inline table), which this command does not edit');
    // Our server written as dotted keys or an inline table elsewhere: it cannot be replaced without rewriting that.
    if (startsWith(key.path, ours) && !(key.table && startsWith(key.table.path, ours))) {
      throw new ConfigRefused(`the server "${name}" is written as dotted keys or an inline table under [mcp_servers]; edit it by hand`);
    }
  }
  const tables = doc.headers.filter((h) => startsWith(h.path, ours));
  const newline = body.includes('\r\n') ? '\r\n' : '\n';
  const block = tomlBlock(name, command, args).replace(/\n/g, newline);
  if (tables.length === 1 && tables[0]!.path.length === 2) {
    const values: Record<string, TomlValue> = {};
    for (const key of doc.keys) if (key.table === tables[0]) values[key.path.slice(2).join('.')] = key.value;
    if (isDeepStrictEqual(values, { command, args: [...args] })) return { action: 'unchanged', text: undefined };
  }
  if (tables.length === 0) {
    const separator = !body.trim() ? '' : body.endsWith(`${newline}${newline}`) ? '' : body.endsWith(newline) ? newline : `${newline}${newline}`;
    return { action: 'added', text: `${bom}${body.trimStart() ? body : ''}${separator}${block}` };
  }
  // Every table of ours (the server and any sub-table such as .env) goes; the new block takes the first one's place.
  let out = '';
  let from = 0;
  for (const [i, table] of tables.entries()) {
    out += body.slice(from, table.start) + (i === 0 ? block : '');
    from = table.end;
  }
  out += body.slice(from);
  return { action: 'replaced', text: `${bom}${out}` };
}
