// The files list of a work record, from `git diff -M --numstat -z` and `git diff -M --name-status -z` between the
// base and the head: pure parsing, so the tests can feed it git's own output.
import { LIMITS, type WorkInput } from 'roundtable-shared';

export type WorkFile = WorkInput['files'][number];
type FileStatus = NonNullable<WorkFile['status']>;

/** git's status letters (`--name-status`), as the record names them; U, X and B have no name and are left out. */
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

export interface NameStatusEntry {
  readonly path: string;
  readonly oldPath?: string;
  readonly status: FileStatus | undefined;
}

/**
 * `--numstat -z`: "added\tremoved\tpath\0", or for a rename or copy "added\tremoved\t\0old\0new\0". A binary file has
 * "-" for both counts.
 */
export function parseNumstat(text: string): NumstatEntry[] {
  const parts = text.split('\0');
  const out: NumstatEntry[] = [];
  for (let i = 0; i < parts.length; i++) {
    const head = parts[i]!;
    if (head === '') continue;
    const first = head.indexOf('\t');
    const second = head.indexOf('\t', first + 1);
    if (first < 0 || second < 0) continue; // not a numstat line: skipped rather than guessed at
    const added = count(head.slice(0, first));
    const removed = count(head.slice(first + 1, second));
    const rest = head.slice(second + 1);
    if (rest === '') {
      const oldPath = parts[++i];
      const path = parts[++i];
      if (oldPath === undefined || path === undefined) break;
      out.push({ path, oldPath, added, removed });
    } else {
      out.push({ path: rest, added, removed });
    }
  }
  return out;
}

function count(field: string): number | null {
  if (field === '-') return null;
  const n = Number(field);
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}

/** `--name-status -z`: "M\0path\0", or for a rename or copy "R100\0old\0new\0". */
export function parseNameStatus(text: string): NameStatusEntry[] {
  const parts = text.split('\0');
  const out: NameStatusEntry[] = [];
  for (let i = 0; i < parts.length; i++) {
    const code = parts[i]!;
    if (code === '') continue;
    const letter = code[0]!;
    const status = STATUS[letter];
    if (letter === 'R' || letter === 'C') {
      const oldPath = parts[++i];
      const path = parts[++i];
      if (oldPath === undefined || path === undefined) break;
      out.push({ path, oldPath, status });
    } else {
      const path = parts[++i];
      if (path === undefined) break;
      out.push({ path, status });
    }
  }
  return out;
}

/**
 * The files list: numstat's counts with name-status's status, matched by (old path, path); git prints both in the
 * same order, but matching by name does not depend on it. At most LIMITS.workFiles entries (the first ones).
 */
export function workFiles(numstat: readonly NumstatEntry[], nameStatus: readonly NameStatusEntry[]): WorkFile[] {
  const statusOf = new Map<string, FileStatus | undefined>();
  for (const entry of nameStatus) statusOf.set(key(entry.oldPath, entry.path), entry.status);
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
