// The files list and the patch of a work record, from one `git diff -M --raw --numstat -z -p base head`: git prints
// the raw records (status letters), then the numstat records (line counts), then an empty field, then the patch. One
// git call computes the diff once. Pure parsing, on bytes, so the patch is exactly git's bytes.
import { LIMITS, type WorkInput } from 'roundtable-shared';

export type WorkFile = WorkInput['files'][number];
type FileStatus = NonNullable<WorkFile['status']>;

/** git's status letters, as the record names them; U, X and B have no name and are left out. */
const STATUS: Record<string, FileStatus> = {
  A: 'added',
  M: 'modified',
  D: 'deleted',
  R: 'renamed',
  C: 'copied',
  T: 'type_changed',
};

export interface NumstatEntry {
  readonly path: string;
  readonly oldPath?: string;
  /** null: git printed "-", a binary file. */
  readonly added: number | null;
  readonly removed: number | null;
}

export interface RawEntry {
  readonly path: string;
  readonly oldPath?: string;
  readonly status: FileStatus | undefined;
}

export interface DiffOutput {
  readonly raw: RawEntry[];
  readonly numstat: NumstatEntry[];
  readonly patch: Buffer;
}

/** Reads NUL-ended fields from a buffer, each decoded as UTF-8; `offset` is where the next one starts. */
class Fields {
  offset = 0;
  constructor(private readonly bytes: Buffer) {}

  next(): string | undefined {
    const end = this.bytes.indexOf(0, this.offset);
    if (end < 0) return undefined;
    const text = this.bytes.toString('utf8', this.offset, end);
    this.offset = end + 1;
    return text;
  }

  peekByte(): number | undefined {
    return this.bytes[this.offset];
  }
}

function count(field: string): number | null {
  if (field === '-') return null;
  const n = Number(field);
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}

/**
 * A raw record: ":100644 100644 abc123 def456 M\0path\0", or for a rename or copy ":... R086\0old\0new\0". Raw records
 * come first and each starts with ":" (a path never starts a record, so a file named ":x" is read as the path it is).
 */
function readRaw(fields: Fields): RawEntry[] | undefined {
  const out: RawEntry[] = [];
  while (fields.peekByte() === 0x3a) {
    const header = fields.next();
    if (header === undefined) return undefined;
    const code = header.slice(header.lastIndexOf(' ') + 1);
    const letter = code[0] ?? '';
    const first = fields.next();
    if (first === undefined) return undefined;
    if (letter === 'R' || letter === 'C') {
      const path = fields.next();
      if (path === undefined) return undefined;
      out.push({ path, oldPath: first, status: STATUS[letter] });
    } else {
      out.push({ path: first, status: STATUS[letter] });
    }
  }
  return out;
}

/** Numstat records, up to the empty field before the patch: "added\tremoved\tpath\0", or "a\tr\t\0old\0new\0". */
function readNumstat(fields: Fields): NumstatEntry[] | undefined {
  const out: NumstatEntry[] = [];
  for (;;) {
    const head = fields.next();
    if (head === undefined || head === '') return out; // the end of the output, or the empty field before the patch
    const first = head.indexOf('\t');
    const second = head.indexOf('\t', first + 1);
    if (first < 0 || second < 0) return undefined;
    const added = count(head.slice(0, first));
    const removed = count(head.slice(first + 1, second));
    const rest = head.slice(second + 1);
    if (rest === '') {
      const oldPath = fields.next();
      const path = fields.next();
      if (oldPath === undefined || path === undefined) return undefined;
      out.push({ path, oldPath, added, removed });
    } else {
      out.push({ path: rest, added, removed });
    }
  }
}

/** The three parts of git's output, or undefined when it is not in the shape expected. */
export function splitDiffOutput(bytes: Buffer): DiffOutput | undefined {
  const fields = new Fields(bytes);
  const raw = readRaw(fields);
  if (raw === undefined) return undefined;
  if (raw.length === 0) return { raw, numstat: [], patch: bytes.subarray(0, 0) };
  const numstat = readNumstat(fields);
  // git prints one numstat record per raw record: anything else is not the output this reads.
  if (numstat === undefined || numstat.length !== raw.length) return undefined;
  return { raw, numstat, patch: bytes.subarray(fields.offset) };
}

/**
 * The files list: numstat's counts with the raw record's status, matched by (old path, path). At most
 * LIMITS.workFiles entries (the first ones).
 */
export function workFiles(numstat: readonly NumstatEntry[], raw: readonly RawEntry[]): WorkFile[] {
  const statusOf = new Map<string, FileStatus | undefined>();
  for (const entry of raw) statusOf.set(key(entry.oldPath, entry.path), entry.status);
  return numstat.slice(0, LIMITS.workFiles).map((entry) => {
    const status = statusOf.get(key(entry.oldPath, entry.path));
    const binary = entry.added === null || entry.removed === null;
    return {
      path: entry.path,
      ...(entry.oldPath !== undefined && { old_path: entry.oldPath }),
      ...(status !== undefined && { status }),
      binary,
      added: binary ? 0 : entry.added!,
      removed: binary ? 0 : entry.removed!,
    };
  });
}

const key = (oldPath: string | undefined, path: string) => `${oldPath ?? ''}\0${path}`;
