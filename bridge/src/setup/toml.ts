// Just enough TOML to add one [mcp_servers.NAME] table to Codex's config.toml and keep every other byte as it was.
// The file is scanned, never re-serialized: other tables stay exactly as written. What the scanner does not know
// (or a file that is not valid TOML) is refused, so a file is never rewritten on a guess.

export class TomlRefused extends Error {}

export type TomlValue = string | TomlValue[] | { [key: string]: TomlValue } | { bare: string };

export interface TomlHeader {
  readonly path: string[];
  readonly array: boolean;
  /** Offset of the start of the header's line. */
  readonly start: number;
  /** Offset just past the end of the last line that belongs to the table (its header or its last key). */
  end: number;
}

export interface TomlKey {
  /** Full path: the table's path, then the dotted key. */
  readonly path: string[];
  /** The header of the table it is in, or undefined at the root. */
  readonly table: TomlHeader | undefined;
  readonly value: TomlValue;
  /** Offset of the start of the key's line. */
  readonly start: number;
  /** Offset just past the end of its value's last line (its newline included). */
  readonly end: number;
}

export interface TomlDocument {
  readonly headers: TomlHeader[];
  readonly keys: TomlKey[];
}

const BARE_KEY = /^[A-Za-z0-9_-]+$/;
const BARE_VALUE =
  /^(true|false|[+-]?(inf|nan)|[+-]?(0x[0-9A-Fa-f_]+|0o[0-7_]+|0b[01_]+|[0-9_]+(\.[0-9_]+)?([eE][+-]?[0-9_]+)?)|\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})?)?|\d{2}:\d{2}(:\d{2}(\.\d+)?)?)$/;
const ESCAPES: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', '"': '"', '\\': '\\' };

class Scanner {
  pos = 0;
  constructor(readonly text: string) {}

  fail(why: string): never {
    const line = this.text.slice(0, this.pos).split('\n').length;
    throw new TomlRefused(`line ${line}: ${why}`);
  }

  peek(ahead = 0): string {
    return this.text[this.pos + ahead] ?? '';
  }

  startsWith(s: string): boolean {
    return this.text.startsWith(s, this.pos);
  }

  spaces(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.pos++;
  }

  /** Spaces, comments and newlines, as inside an array. */
  blank(): void {
    for (;;) {
      this.spaces();
      if (this.peek() === '#') this.comment();
      else if (this.peek() === '\n') this.pos++;
      else if (this.startsWith('\r\n')) this.pos += 2;
      else return;
    }
  }

  comment(): void {
    while (this.pos < this.text.length && this.peek() !== '\n' && !this.startsWith('\r\n')) {
      const code = this.text.charCodeAt(this.pos);
      if ((code < 0x20 && code !== 0x09) || code === 0x7f) this.fail('a control character in a comment');
      this.pos++;
    }
  }

  /** The rest of a line after a header or a value: spaces, an optional comment, then a newline or the end. */
  endOfLine(): void {
    this.spaces();
    if (this.peek() === '#') this.comment();
    if (this.peek() === '\n') this.pos++;
    else if (this.startsWith('\r\n')) this.pos += 2;
    else if (this.pos < this.text.length) this.fail('expected the end of the line');
  }

  key(): string[] {
    const parts = [this.simpleKey()];
    for (;;) {
      this.spaces();
      if (this.peek() !== '.') return parts;
      this.pos++;
      this.spaces();
      parts.push(this.simpleKey());
    }
  }

  simpleKey(): string {
    if (this.peek() === '"') {
      if (this.startsWith('"""')) this.fail('a multi-line string as a key');
      return this.basicString();
    }
    if (this.peek() === "'") {
      if (this.startsWith("'''")) this.fail('a multi-line string as a key');
      return this.literalString();
    }
    const start = this.pos;
    while (/[A-Za-z0-9_-]/.test(this.peek())) this.pos++;
    if (start === this.pos) this.fail('expected a key');
    return this.text.slice(start, this.pos);
  }

  basicString(): string {
    this.pos++;
    let out = '';
    for (;;) {
      const ch = this.peek();
      if (ch === '') this.fail('a string that never ends');
      if (ch === '"') {
        this.pos++;
        return out;
      }
      if (ch === '\n' || ch === '\r') this.fail('a newline inside a one-line string');
      if (ch === '\\') out += this.escape();
      else {
        this.controlCheck();
        out += ch;
        this.pos++;
      }
    }
  }

  multiLineBasicString(): string {
    this.pos += 3;
    if (this.peek() === '\n') this.pos++;
    else if (this.startsWith('\r\n')) this.pos += 2;
    let out = '';
    for (;;) {
      if (this.pos >= this.text.length) this.fail('a multi-line string that never ends');
      if (this.startsWith('"""')) {
        // Up to two quotes may sit just before the closing three.
        let quotes = 3;
        while (quotes < 5 && this.peek(quotes) === '"') quotes++;
        out += '"'.repeat(quotes - 3);
        this.pos += quotes;
        return out;
      }
      const ch = this.peek();
      if (ch === '\\') {
        const rest = /^\\[ \t]*\r?\n/.exec(this.text.slice(this.pos));
        if (rest) {
          this.pos += rest[0].length;
          while (/[ \t\r\n]/.test(this.peek())) this.pos++;
        } else {
          out += this.escape();
        }
      } else {
        if (ch !== '\n' && ch !== '\r') this.controlCheck();
        out += ch;
        this.pos++;
      }
    }
  }

  literalString(): string {
    this.pos++;
    const start = this.pos;
    for (;;) {
      const ch = this.peek();
      if (ch === '') this.fail('a string that never ends');
      if (ch === '\n' || ch === '\r') this.fail('a newline inside a one-line string');
      if (ch === "'") break;
      this.controlCheck();
      this.pos++;
    }
    const out = this.text.slice(start, this.pos);
    this.pos++;
    return out;
  }

  multiLineLiteralString(): string {
    this.pos += 3;
    if (this.peek() === '\n') this.pos++;
    else if (this.startsWith('\r\n')) this.pos += 2;
    const start = this.pos;
    const close = this.text.indexOf("'''", this.pos);
    if (close < 0) this.fail('a multi-line string that never ends');
    let end = close;
    while (end + 3 < this.text.length && this.text[end + 3] === "'" && end - close < 2) end++;
    this.pos = end + 3;
    return this.text.slice(start, end);
  }

  controlCheck(): void {
    const code = this.text.charCodeAt(this.pos);
    if ((code < 0x20 && code !== 0x09) || code === 0x7f) this.fail('a control character in a string');
  }

  escape(): string {
    const next = this.peek(1);
    if (next in ESCAPES) {
      this.pos += 2;
      return ESCAPES[next]!;
    }
    const size = next === 'u' ? 4 : next === 'U' ? 8 : 0;
    const hex = this.text.slice(this.pos + 2, this.pos + 2 + size);
    if (!size || !new RegExp(`^[0-9A-Fa-f]{${size}}$`).test(hex)) this.fail(`an escape sequence the scanner does not know: \\${next}`);
    const code = parseInt(hex, 16);
    if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) this.fail('an escape that is not a Unicode scalar value');
    this.pos += 2 + size;
    return String.fromCodePoint(code);
  }

  value(): TomlValue {
    if (this.startsWith('"""')) return this.multiLineBasicString();
    if (this.startsWith("'''")) return this.multiLineLiteralString();
    if (this.peek() === '"') return this.basicString();
    if (this.peek() === "'") return this.literalString();
    if (this.peek() === '[') return this.array();
    if (this.peek() === '{') return this.inlineTable();
    const start = this.pos;
    while (/[0-9A-Za-z+\-_.:]/.test(this.peek())) this.pos++;
    // A date and a time may be separated by one space.
    if (this.peek() === ' ' && /^\d{4}-\d{2}-\d{2}$/.test(this.text.slice(start, this.pos)) && /\d/.test(this.peek(1))) {
      this.pos++;
      while (/[0-9A-Za-z+\-_.:]/.test(this.peek())) this.pos++;
    }
    const token = this.text.slice(start, this.pos);
    if (!BARE_VALUE.test(token)) this.fail(token ? `a value the scanner does not know: ${token.slice(0, 40)}` : 'expected a value');
    return { bare: token };
  }

  array(): TomlValue[] {
    this.pos++;
    const out: TomlValue[] = [];
    for (;;) {
      this.blank();
      if (this.peek() === ']') {
        this.pos++;
        return out;
      }
      out.push(this.value());
      this.blank();
      if (this.peek() === ',') this.pos++;
      else if (this.peek() !== ']') this.fail('expected "," or "]" in an array');
    }
  }

  inlineTable(): { [key: string]: TomlValue } {
    this.pos++;
    const out: { [key: string]: TomlValue } = {};
    this.spaces();
    if (this.peek() === '}') {
      this.pos++;
      return out;
    }
    for (;;) {
      this.spaces();
      const path = this.key();
      this.spaces();
      if (this.peek() !== '=') this.fail('expected "=" after a key');
      this.pos++;
      this.spaces();
      setPath(out, path, this.value(), () => this.fail(`the key ${path.join('.')} is defined twice in an inline table`));
      this.spaces();
      if (this.peek() === ',') this.pos++;
      else if (this.peek() === '}') {
        this.pos++;
        return out;
      } else this.fail('expected "," or "}" in an inline table');
    }
  }
}

function setPath(target: { [key: string]: TomlValue }, path: string[], value: TomlValue, duplicate: () => never): void {
  let here = target;
  for (const part of path.slice(0, -1)) {
    const next = Object.hasOwn(here, part) ? here[part] : (here[part] = {});
    if (typeof next !== 'object' || Array.isArray(next) || 'bare' in next) duplicate();
    here = next as { [key: string]: TomlValue };
  }
  const last = path[path.length - 1]!;
  if (Object.hasOwn(here, last)) duplicate();
  here[last] = value;
}

/** Scans a whole config.toml; throws TomlRefused naming the line when it is not TOML this scanner knows. */
export function scanToml(text: string): TomlDocument {
  const s = new Scanner(text);
  const headers: TomlHeader[] = [];
  const keys: TomlKey[] = [];
  const tablesSeen = new Set<string>();
  const keysSeen = new Set<string>();
  let table: TomlHeader | undefined;
  for (;;) {
    s.blank();
    if (s.pos >= text.length) break;
    const lineStart = text.lastIndexOf('\n', s.pos - 1) + 1;
    if (s.peek() === '[') {
      const array = s.peek(1) === '[';
      s.pos += array ? 2 : 1;
      s.spaces();
      const path = s.key();
      s.spaces();
      if (!s.startsWith(array ? ']]' : ']')) s.fail('a table header that does not close');
      s.pos += array ? 2 : 1;
      s.endOfLine();
      const id = JSON.stringify(path);
      if (!array && tablesSeen.has(id)) s.fail(`the table [${path.join('.')}] is defined twice`);
      if (keysSeen.has(id)) s.fail(`[${path.join('.')}] is already a key`);
      tablesSeen.add(id);
      table = { path, array, start: lineStart, end: s.pos };
      headers.push(table);
      continue;
    }
    const dotted = s.key();
    s.spaces();
    if (s.peek() !== '=') s.fail('expected "=" after a key');
    s.pos++;
    s.spaces();
    const value = s.value();
    s.endOfLine();
    const path = [...(table?.path ?? []), ...dotted];
    const id = JSON.stringify(path);
    // Keys under an array of tables repeat by design; the scanner does not follow which element they are in.
    if (!table?.array) {
      if (keysSeen.has(id) || tablesSeen.has(id)) s.fail(`the key ${dotted.join('.')} is defined twice`);
      keysSeen.add(id);
    }
    keys.push({ path, table, value, start: lineStart, end: s.pos });
    if (table) table.end = s.pos;
  }
  return { headers, keys };
}

/** A key as written in a header: bare when it can be, else a basic string. */
export function tomlKey(key: string): string {
  return BARE_KEY.test(key) ? key : tomlString(key);
}

export function tomlString(value: string): string {
  return `"${value.replace(/[\\"\u0000-\u001f\u007f]/g, (ch) => {
    const short = Object.entries(ESCAPES).find(([, v]) => v === ch)?.[0];
    return short ? `\\${short}` : `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
  })}"`;
}
