// Reading a JSON config so that writing it back loses nothing, and writing it back in the file's own layout.
// JSON.parse keeps the last of two equal keys and rounds long numbers: a file where either would lose something is
// refused, naming what, rather than rewritten.

/** The config is malformed, or written in a way this command cannot edit without losing something. */
export class ConfigRefused extends Error {}

export type JsonObject = { [key: string]: unknown };

export const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

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

const STRING = /"(?:[^"\\]|\\.)*"/y;
const COLON = /\s*:/y;

/** The path of the first key that appears twice in one object of a valid JSON text, e.g. ["mcpServers", "other"]. */
export function duplicateKey(body: string): string[] | undefined {
  // One frame per open object or array: the keys seen so far (objects only) and the key it sits under.
  const stack: Array<{ keys: Set<string> | undefined; under: string; last: string }> = [];
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === '"') {
      STRING.lastIndex = i;
      const literal = STRING.exec(body)![0];
      i += literal.length - 1;
      const top = stack[stack.length - 1];
      COLON.lastIndex = i + 1;
      if (!top?.keys || !COLON.test(body)) continue;
      const key = JSON.parse(literal) as string;
      if (top.keys.has(key)) return [...stack.slice(1).map((frame) => frame.under), key];
      top.keys.add(key);
      top.last = key;
    } else if (ch === '{' || ch === '[') {
      const parent = stack[stack.length - 1];
      stack.push({ keys: ch === '{' ? new Set() : undefined, under: parent?.keys ? parent.last : '[]', last: '' });
    } else if (ch === '}' || ch === ']') {
      stack.pop();
    }
  }
  return undefined;
}

/** A key path as the refusal names it: JSON strings, so a control character in a key cannot reach the terminal. */
const keyPath = (path: string[]) => path.map((key) => JSON.stringify(key.slice(0, 60))).join('.');

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
  const twice = duplicateKey(body);
  if (twice) throw new ConfigRefused(`the key ${keyPath(twice)} appears twice in one object, and only one of them would be kept; remove the one you do not want`);
  const lossy = lossyNumber(body);
  if (lossy) throw new ConfigRefused(`it holds the number ${lossy.slice(0, 40)}, which would not be written back exactly`);
  return doc;
}

/** `doc` as JSON in the layout of `original`: its indentation, line ends and byte-order mark. */
export function formatLike(original: string, doc: JsonObject): string {
  const { bom, body } = stripBom(original);
  const indent = /\n([ \t]+)\S/.exec(body)?.[1] ?? '  ';
  const newline = body.includes('\r\n') ? '\r\n' : '\n';
  const json = JSON.stringify(doc, null, indent).replace(/\n/g, newline);
  return `${bom}${json}${newline}`;
}

/** The object at `path` in `doc`, created where missing; refused where something else is in the way. */
export function objectAt(doc: JsonObject, path: readonly string[]): JsonObject {
  let holder = doc;
  for (const [i, key] of path.entries()) {
    const next = Object.hasOwn(holder, key) ? holder[key] : undefined;
    if (next === undefined) {
      const created: JsonObject = {};
      holder[key] = created;
      holder = created;
    } else if (isObject(next)) {
      holder = next;
    } else {
      throw new ConfigRefused(`"${path.slice(0, i + 1).join('.')}" is not a JSON object`);
    }
  }
  return holder;
}
