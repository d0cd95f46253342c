// The overlap rule as it stood before issue 22 (daemon/src/board/overlap.ts at git 91460d2), kept unchanged below this
// header as the reference the property tests hold the linear rule to: it is what "overlap" meant until then.
//
// The language: a pattern is "/"-separated segments, anchored at the repository root. In a segment, * matches any
// run of characters and ? one character, never a "/". A segment that is exactly ** matches any number of whole
// segments, none included. Every pattern also covers everything under the path it names: src/auth means
// src/auth/** too, so a reservation of a folder by its name holds its files (git may stage src/auth/x.ts).

const GLOBSTAR = '**';

/** The form patterns are compared in: one Unicode normal form, lower case. */
export function foldPath(pattern: string): string {
  return pattern.normalize('NFC').toLowerCase();
}

/** A pattern as segments, with the implicit trailing ** that makes it cover everything under it. */
export function segmentsOf(pattern: string): string[] {
  const segments = foldPath(pattern).split('/');
  if (segments.at(-1) !== GLOBSTAR) segments.push(GLOBSTAR);
  return segments;
}

export function isWildSegment(segment: string): boolean {
  return segment.includes('*') || segment.includes('?');
}

/**
 * The pattern's leading wildcard-free segments, each followed by "/" (src/a/*.ts -> "src/a/"; src/a.ts ->
 * "src/a.ts/"; *.md -> ""). Two patterns can overlap only if one's prefix starts with the other's: the store finds
 * candidates by this key, then this module decides.
 */
export function literalPrefix(pattern: string): string {
  let prefix = '';
  for (const segment of foldPath(pattern).split('/')) {
    if (segment === GLOBSTAR || isWildSegment(segment)) break;
    prefix += `${segment}/`;
  }
  return prefix;
}

/** Every prefix key a candidate may have: the key itself and its ancestors ("src/a/" -> "", "src/", "src/a/"). */
export function prefixAncestors(prefix: string): string[] {
  const keys = [''];
  let at = prefix.indexOf('/');
  while (at !== -1) {
    keys.push(prefix.slice(0, at + 1));
    at = prefix.indexOf('/', at + 1);
  }
  return keys;
}

// Two reservations overlap when some path is held by both: a path one matches is the same as, or under, or over a
// path the other matches. A plain path might be a folder, so src/a.ts and **/*.md overlap (src/a.ts/x.md): the rule
// errs towards a conflict.
export function patternsOverlap(a: string, b: string): boolean {
  if (a === b) return true;
  return intersects(segmentsOf(a), segmentsOf(b), GLOBSTAR, segmentsIntersect);
}

// Whether a reservation holds a file (check_paths, a staged file): the file matches the pattern or lies under a path
// it matches. The file is a file, not a folder, so **/*.md does not hold src/a.ts.
export function holdsPath(pattern: string, path: string): boolean {
  return intersects(segmentsOf(pattern), foldPath(path).split('/'), GLOBSTAR, segmentsIntersect);
}

/** Whether a character glob (* and ?) and another can match one same string. */
export function segmentsIntersect(x: string, y: string): boolean {
  if (x === y) return true;
  if (!isWildSegment(x) && !isWildSegment(y)) return false;
  return intersects([...x], [...y], '*', (c, d) => c === d || c === '?' || d === '?');
}

/**
 * Whether two sequences, each of units and stars (a star matches any run of units, none included), can produce one
 * same sequence: a walk over both at once, memoised on the two positions, so it is O(n*m) for any mix of stars.
 */
function intersects<T>(x: readonly T[], y: readonly T[], star: T, unitsMeet: (a: T, b: T) => boolean): boolean {
  const width = y.length + 1;
  // 0 unknown, 1 yes, 2 no.
  const memo = new Uint8Array((x.length + 1) * width);
  const walk = (i: number, j: number): boolean => {
    const key = i * width + j;
    if (memo[key] !== 0) return memo[key] === 1;
    let meet: boolean;
    if (i === x.length && j === y.length) meet = true;
    else if (i < x.length && x[i] === star) meet = walk(i + 1, j) || (j < y.length && walk(i, j + 1));
    else if (j < y.length && y[j] === star) meet = walk(i, j + 1) || (i < x.length && walk(i + 1, j));
    else if (i === x.length || j === y.length) meet = false;
    else meet = unitsMeet(x[i]!, y[j]!) && walk(i + 1, j + 1);
    memo[key] = meet ? 1 : 2;
    return meet;
  };
  return walk(0, 0);
}
