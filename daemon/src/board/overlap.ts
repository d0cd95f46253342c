// When two path patterns overlap and when a pattern holds a file: pure, exact for the grammar shared/path-patterns.ts
// accepts, and linear in the lengths (each name is compared once). docs/SPEC.md (Path reservations) states the rule.
//
// A pattern covers what it names and everything under it (src/auth is src/auth/**), so two patterns share a path
// exactly when their heads agree name by name as far as the shorter goes: the head is the folders and the last name
// of an anchored pattern, and nothing for one that starts with ** (it reaches everywhere; the name after it narrows
// the files it holds, not the paths it overlaps, since a plain name might be a folder). This is what the general glob
// walk used before issue 22 decided, in O(n*m) with backtracking; test/unit/overlap.test.ts holds the two equal.
import { pathPatternProblem } from 'roundtable-shared';

const GLOBSTAR = '**';

/** The form patterns and paths are compared in: one Unicode normal form, lower case. */
export function foldPath(pattern: string): string {
  return pattern.normalize('NFC').toLowerCase();
}

/** One name of a pattern: a literal name, or * alone, or a literal start or end with * for the rest. */
export type NamePattern =
  | { readonly kind: 'literal'; readonly text: string }
  | { readonly kind: 'any' }
  | { readonly kind: 'prefix'; readonly text: string }
  | { readonly kind: 'suffix'; readonly text: string };

/**
 * A pattern, folded and parsed. Anchored: folders from the root, then possibly a wildcard name (src/*.ts has folders
 * [src] and name *.ts; src/a.ts has folders [src, a.ts]). Anywhere: ** alone, or **\/name (name in any folder).
 */
export type PathShape =
  | { readonly anchored: true; readonly folders: readonly string[]; readonly name: NamePattern | undefined }
  | { readonly anchored: false; readonly name: NamePattern | undefined };

export function namePatternOf(name: string): NamePattern {
  if (!name.includes('*')) return { kind: 'literal', text: name };
  if (name === '*') return { kind: 'any' };
  return name.startsWith('*') ? { kind: 'suffix', text: name.slice(1) } : { kind: 'prefix', text: name.slice(0, -1) };
}

/**
 * The shape of a pattern, and whether the grammar refuses it. One it refuses (reserved before it, a row from an older
 * version) is taken as the folders it starts with and everything under them, a superset of what it names: the board
 * then errs towards a conflict, as docs/SPEC.md allows, and never compares the old, slow way.
 */
export function parsePattern(pattern: string): { readonly shape: PathShape; readonly legacy: boolean } {
  const segments = foldPath(pattern).split('/');
  if (pathPatternProblem(pattern) !== undefined) {
    const wild = segments.findIndex((s) => s.includes('*') || s.includes('?'));
    const folders = wild === -1 ? segments : segments.slice(0, wild);
    return { shape: folders.length === 0 ? { anchored: false, name: undefined } : { anchored: true, folders, name: undefined }, legacy: true };
  }
  return { shape: shapeOfSegments(segments), legacy: false };
}

export function shapeOf(pattern: string): PathShape {
  return parsePattern(pattern).shape;
}

function shapeOfSegments(segments: string[]): PathShape {
  const leads = segments[0] === GLOBSTAR;
  const core = segments.slice(leads ? 1 : 0, segments.length > 1 && segments.at(-1) === GLOBSTAR ? -1 : undefined);
  if (leads) return { anchored: false, name: core[0] === undefined ? undefined : namePatternOf(core[0]) };
  const last = core.at(-1)!;
  if (!last.includes('*')) return { anchored: true, folders: core, name: undefined };
  return { anchored: true, folders: core.slice(0, -1), name: namePatternOf(last) };
}

/** Whether a name pattern matches a (folded) name. */
export function nameMatches(pattern: NamePattern, name: string): boolean {
  switch (pattern.kind) {
    case 'literal':
      return name === pattern.text;
    case 'any':
      return true;
    case 'prefix':
      return name.startsWith(pattern.text);
    case 'suffix':
      return name.endsWith(pattern.text);
  }
}

/** Whether two name patterns match one same name: a * at the start and one at the end always do (AB matches A* and *B). */
export function namesMeet(a: NamePattern, b: NamePattern): boolean {
  if (a.kind === 'literal') return nameMatches(b, a.text);
  if (b.kind === 'literal') return nameMatches(a, b.text);
  if (a.kind === 'any' || b.kind === 'any' || a.kind !== b.kind) return true;
  if (a.kind === 'prefix') return a.text.startsWith(b.text) || b.text.startsWith(a.text);
  return a.text.endsWith(b.text) || b.text.endsWith(a.text);
}

// Two reservations overlap when some path is held by both: a path one matches is the same as, or under, or over a
// path the other matches. A plain path might be a folder, so src/a.ts and **/*.md overlap (src/a.ts/x.md): the rule
// errs towards a conflict.
export function shapesOverlap(a: PathShape, b: PathShape): boolean {
  if (!a.anchored || !b.anchored) return true;
  const length = Math.min(a.folders.length + (a.name ? 1 : 0), b.folders.length + (b.name ? 1 : 0));
  // The heads name by name, without building them (a page may compare thousands).
  for (let i = 0; i < length; i++) {
    const x = i < a.folders.length ? a.folders[i]! : a.name!;
    const y = i < b.folders.length ? b.folders[i]! : b.name!;
    const meet = typeof x === 'string' ? (typeof y === 'string' ? x === y : nameMatches(y, x)) : typeof y === 'string' ? nameMatches(x, y) : namesMeet(x, y);
    if (!meet) return false;
  }
  return true;
}

export function patternsOverlap(a: string, b: string): boolean {
  return shapesOverlap(shapeOf(a), shapeOf(b));
}

/** A checked path as the names it is compared by: folded, split, every character literal. */
export function pathNames(path: string): string[] {
  return foldPath(path).split('/');
}

// Whether a reservation holds a file (check_paths, a staged file): the file matches the pattern or lies under a path
// it matches. The file is a file, not a folder, so **/*.md does not hold src/a.ts; and it is literal, so a file
// called ** is held only by what holds that name.
export function shapeHolds(shape: PathShape, names: readonly string[]): boolean {
  if (!shape.anchored) return shape.name === undefined || names.some((n) => nameMatches(shape.name!, n));
  const { folders, name } = shape;
  if (names.length < folders.length + (name ? 1 : 0)) return false;
  for (let i = 0; i < folders.length; i++) if (names[i] !== folders[i]) return false;
  return name === undefined || nameMatches(name, names[folders.length]!);
}

export function holdsPath(pattern: string, path: string): boolean {
  return shapeHolds(shapeOf(pattern), pathNames(path));
}

/**
 * The pattern's leading wildcard-free segments, each followed by "/" (src/a/*.ts -> "src/a/"; src/a.ts ->
 * "src/a.ts/"; *.md -> ""): the key each row keeps in the prefix column, which migrations before issue 22 read.
 */
export function literalPrefix(pattern: string): string {
  let prefix = '';
  for (const segment of foldPath(pattern).split('/')) {
    if (segment === GLOBSTAR || segment.includes('*') || segment.includes('?')) break;
    prefix += `${segment}/`;
  }
  return prefix;
}
