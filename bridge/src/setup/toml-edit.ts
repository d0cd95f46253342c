// Setting a few keys of one TOML table in place: each key's own line is replaced, a missing key is added at the end
// of its table, a missing table is appended. Every other byte of the file stays as it was written.
import { isDeepStrictEqual } from 'node:util';
import { scanToml, tomlKey, tomlString, TomlRefused, type TomlDocument, type TomlValue } from './toml.js';
import { ConfigRefused } from './json-text.js';

export interface TomlSetting {
  readonly key: string;
  /** The value to write; given the value there now (if any), so a list can be merged rather than replaced. */
  readonly value: (current: TomlValue | undefined) => TomlValue;
}

export interface TomlEdit {
  /** The new text, or undefined when every key already holds its value. */
  readonly text: string | undefined;
  /** Whether the table was there before. */
  readonly tableExisted: boolean;
}

export function scanForEdit(body: string): TomlDocument {
  try {
    return scanToml(body);
  } catch (error) {
    if (error instanceof TomlRefused) throw new ConfigRefused(`it is not TOML this command can edit safely (${error.message})`);
    throw error;
  }
}

/** A value as TOML text: strings quoted, bare words (numbers, booleans, dates) as they were, arrays and inline tables. */
export function tomlValueText(value: TomlValue): string {
  if (typeof value === 'string') return tomlString(value);
  if (Array.isArray(value)) return `[${value.map(tomlValueText).join(', ')}]`;
  if ('bare' in value && typeof value.bare === 'string' && Object.keys(value).length === 1) return value.bare;
  return `{ ${Object.entries(value as Record<string, TomlValue>).map(([k, v]) => `${tomlKey(k)} = ${tomlValueText(v)}`).join(', ')} }`;
}

const startsWith = (path: readonly string[], prefix: readonly string[]) => prefix.every((part, i) => path[i] === part);

/**
 * Sets `settings` in the table at `table` (e.g. ["mcp_servers", "roundtable"]). Keys of the table written elsewhere
 * (dotted keys from a parent table, an inline table) cannot be set in place and are refused.
 */
export function setTomlKeys(text: string, table: readonly string[], settings: readonly TomlSetting[]): TomlEdit {
  const bom = text.startsWith('\uFEFF') ? '\uFEFF' : '';
  const body = text.slice(bom.length);
  const doc = scanForEdit(body);
  const newline = body.includes('\r\n') ? '\r\n' : '\n';
  const name = table.join('.');
  for (const key of doc.keys) {
    if (startsWith(key.path, table) && !(key.table && startsWith(key.table.path, table))) {
      throw new ConfigRefused(`[${name}] is written as dotted keys or an inline table elsewhere in the file; edit it by hand`);
    }
    if (key.path.length < table.length && startsWith(table, key.path)) throw new ConfigRefused(`${key.path.join('.')} is a value, not a table, so [${name}] cannot be added`);
  }
  if (doc.headers.some((h) => h.array && startsWith(table, h.path))) throw new ConfigRefused(`[[${table.slice(0, -1).join('.') || name}]] is an array of tables`);
  const header = doc.headers.find((h) => !h.array && isDeepStrictEqual(h.path, table));
  const lines = (entries: Array<[string, TomlValue]>) => entries.map(([k, v]) => `${tomlKey(k)} = ${tomlValueText(v)}${newline}`).join('');

  if (!header) {
    const entries = settings.map((s): [string, TomlValue] => [s.key, s.value(undefined)]);
    const block = `[${table.map(tomlKey).join('.')}]${newline}${lines(entries)}`;
    // Sub-tables of ours written without the table itself: the table goes just before the first of them.
    const sub = doc.headers.find((h) => startsWith(h.path, table));
    if (sub) return { text: `${bom}${body.slice(0, sub.start)}${block}${newline}${body.slice(sub.start)}`, tableExisted: false };
    const separator = !body.trim() ? '' : body.endsWith(`${newline}${newline}`) ? '' : body.endsWith('\n') ? newline : `${newline}${newline}`;
    return { text: `${bom}${body.trim() ? body : ''}${separator}${block}`, tableExisted: false };
  }

  const splices: Array<{ start: number; end: number; text: string }> = [];
  const missing: Array<[string, TomlValue]> = [];
  for (const setting of settings) {
    const current = doc.keys.find((k) => k.table === header && k.path.length === table.length + 1 && k.path[table.length] === setting.key);
    const wanted = setting.value(current?.value);
    if (!current) missing.push([setting.key, wanted]);
    else if (!isDeepStrictEqual(current.value, wanted)) {
      const ending = body.slice(current.start, current.end).match(/\r?\n$/)?.[0] ?? '';
      splices.push({ start: current.start, end: current.end, text: `${tomlKey(setting.key)} = ${tomlValueText(wanted)}${ending}` });
    }
  }
  if (missing.length) {
    const lead = header.end > 0 && !/\n$/.test(body.slice(0, header.end)) ? newline : '';
    splices.push({ start: header.end, end: header.end, text: `${lead}${lines(missing)}` });
  }
  if (!splices.length) return { text: undefined, tableExisted: true };
  let out = body;
  for (const splice of splices.sort((a, b) => b.start - a.start)) out = out.slice(0, splice.start) + splice.text + out.slice(splice.end);
  return { text: `${bom}${out}`, tableExisted: true };
}
