// Reads a unified diff in git's format (`diff --git`, `@@ -a,b +c,d @@` hunks) into files, hunks and numbered lines.
// The patch is agent-written text: nothing here interprets it beyond splitting lines, and every string it yields is
// shown as text only (dom.ts h). A patch cut at its cap simply ends early: the last file keeps what arrived.

export type DiffLineKind = 'add' | 'del' | 'ctx' | 'note';

export interface DiffLine {
  readonly kind: DiffLineKind;
  /** The line without its +/-/space marker. */
  readonly text: string;
  /** Line numbers on the old and new side; null where the line has none (an added line has no old number). */
  readonly oldNo: number | null;
  readonly newNo: number | null;
}

export interface DiffHunk {
  /** The `@@ -a,b +c,d @@ context` line as given. */
  readonly header: string;
  readonly lines: DiffLine[];
}

export interface DiffFile {
  /** The path before (null for a new file) and after (null for a deleted file). */
  oldPath: string | null;
  newPath: string | null;
  /** Extended header lines git writes between `diff --git` and the hunks (modes, rename from/to, index, Binary). */
  readonly meta: string[];
  binary: boolean;
  readonly hunks: DiffHunk[];
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/** One `diff --git a/X b/Y` header's two paths, when they can be told apart (quoted, or the same name twice). */
function headerPaths(rest: string): { a: string; b: string } | null {
  if (rest.startsWith('"')) {
    const first = quotedEnd(rest);
    if (first < 0) return null;
    const a = unquote(rest.slice(0, first + 1));
    const tail = rest.slice(first + 2);
    const b = tail.startsWith('"') ? unquote(tail) : tail;
    return { a: stripPrefix(a), b: stripPrefix(b) };
  }
  // Unquoted: `a/NAME b/NAME`, where NAME may hold spaces; the two names are equal unless renamed (then the
  // rename from/to lines say them).
  const half = (rest.length - 1) / 2;
  if (Number.isInteger(half) && rest.charAt(half) === ' ') {
    const a = rest.slice(0, half);
    const b = rest.slice(half + 1);
    if (a.slice(2) === b.slice(2)) return { a: stripPrefix(a), b: stripPrefix(b) };
  }
  const space = rest.indexOf(' b/');
  if (space < 0) return null;
  return { a: stripPrefix(rest.slice(0, space)), b: stripPrefix(rest.slice(space + 1)) };
}

function stripPrefix(path: string): string {
  return /^[ab]\//.test(path) ? path.slice(2) : path;
}

function quotedEnd(text: string): number {
  for (let i = 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

const ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };

/** git's C-style quoting of a path with unusual bytes: `"caf\303\251 \"x\".txt"` -> `café "x".txt`. */
export function unquote(text: string): string {
  if (!text.startsWith('"')) return text;
  const end = quotedEnd(text);
  const body = text.slice(1, end < 0 ? undefined : end);
  const bytes: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch !== '\\') {
      for (const b of new TextEncoder().encode(ch)) bytes.push(b);
      continue;
    }
    const next = body[i + 1] ?? '';
    const octal = /^[0-7]{3}/.exec(body.slice(i + 1, i + 4));
    if (octal) {
      bytes.push(parseInt(octal[0], 8) & 0xff);
      i += 3;
    } else {
      bytes.push(ESCAPES[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** A `--- a/X` / `+++ b/X` path: null for /dev/null. */
function sidePath(raw: string): string | null {
  const value = raw.replace(/\t.*$/, '');
  if (value === '/dev/null') return null;
  return stripPrefix(unquote(value));
}

export function parseDiff(patch: string): DiffFile[] {
  const files: DiffFile[] = [];
  let file: DiffFile | null = null;
  let hunk: DiffHunk | null = null;
  let oldNo = 0;
  let newNo = 0;
  const lines = patch.split('\n');
  // A patch ends with a newline: the empty string after it is no line.
  if (lines.at(-1) === '') lines.pop();
  for (const raw of lines) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.startsWith('diff --git ')) {
      const paths = headerPaths(line.slice('diff --git '.length));
      file = { oldPath: paths?.a ?? null, newPath: paths?.b ?? null, meta: [], binary: false, hunks: [] };
      files.push(file);
      hunk = null;
      continue;
    }
    if (!file) continue; // text before the first file (a cover note): not part of any file
    const header = HUNK.exec(line);
    if (header) {
      hunk = { header: line, lines: [] };
      file.hunks.push(hunk);
      oldNo = Number(header[1]);
      newNo = Number(header[2]);
      continue;
    }
    if (!hunk) {
      if (line.startsWith('--- ')) file.oldPath = sidePath(line.slice(4));
      else if (line.startsWith('+++ ')) file.newPath = sidePath(line.slice(4));
      else {
        if (line.startsWith('rename from ') || line.startsWith('copy from ')) file.oldPath = unquote(line.slice(line.indexOf(' from ') + 6));
        else if (line.startsWith('rename to ') || line.startsWith('copy to ')) file.newPath = unquote(line.slice(line.indexOf(' to ') + 4));
        else if (line.startsWith('new file mode')) file.oldPath = null;
        else if (line.startsWith('deleted file mode')) file.newPath = null;
        else if (line.startsWith('Binary files ') || line === 'GIT binary patch') file.binary = true;
        file.meta.push(line);
      }
      continue;
    }
    const marker = line.charAt(0);
    const text = line.slice(1);
    if (marker === '+') hunk.lines.push({ kind: 'add', text, oldNo: null, newNo: newNo++ });
    else if (marker === '-') hunk.lines.push({ kind: 'del', text, oldNo: oldNo++, newNo: null });
    else if (marker === ' ' || line === '') hunk.lines.push({ kind: 'ctx', text, oldNo: oldNo++, newNo: newNo++ });
    else hunk.lines.push({ kind: 'note', text: line, oldNo: null, newNo: null }); // "\ No newline at end of file"
  }
  return files;
}

/** The path a file is known by on the page: its new name, or its old one when it was deleted. */
export function diffPath(file: DiffFile): string {
  return file.newPath ?? file.oldPath ?? '';
}

export function diffLineCount(file: DiffFile): number {
  let n = 0;
  for (const hunk of file.hunks) n += hunk.lines.length + 1;
  return n;
}
