// What a reservable path pattern is (repository-relative, "/"-separated, with * and ** placed so that deciding an
// overlap is linear and a lookup never scans), and what a checked path is (a literal file name, every character as is).
import { z } from 'zod';
import { LIMITS } from './limits.js';
import { wellFormedText } from './fields.js';

const GLOBSTAR = '**';

/**
 * Why a path is refused as a pattern's base, or undefined: the rules every pattern, old or new, obeys. Absolute
 * paths, "..", "." and empty segments are refused rather than normalised: a reservation must say plainly which files
 * it means, the same way on every machine. release_paths takes these alone, so a pattern reserved before the
 * grammar below can still be released by its exact text.
 */
export function reservedPatternProblem(pattern: string): string | undefined {
  if (pattern.length === 0) return 'is empty; give a repository-relative path such as src/auth/** or docs/API.md';
  if (pattern.startsWith('/') || /^[A-Za-z]:/.test(pattern)) return 'is absolute; give it relative to the repository root, e.g. src/a.ts';
  if (pattern.includes('\\')) return 'holds a backslash; separate folders with "/"';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(pattern)) return 'holds a control character';
  const segments = pattern.split('/');
  if (segments.some((s) => s === '')) return 'has an empty segment ("//" or a trailing "/"); write src/** for a whole folder';
  if (segments.some((s) => s === '..')) return 'holds ".."; give the path from the repository root without going up';
  if (segments.some((s) => s === '.')) return 'holds "."; give the path from the repository root, e.g. src/a.ts, not ./src/a.ts';
  return undefined;
}

/**
 * Why a pattern is refused, or undefined if it is acceptable: the base rules, then the grammar (docs/SPEC.md, Path
 * reservations). A pattern is folders and a last name, where only the last name may hold one *, at its start or its
 * end; ** may only lead (then one name follows) or end it. So two patterns are compared name by name, once each,
 * and a reservation is found by the names it starts with, never by trying each one.
 */
export function pathPatternProblem(pattern: string): string | undefined {
  const base = reservedPatternProblem(pattern);
  if (base !== undefined) return base;
  if (pattern.includes('?')) return 'holds "?", which patterns do not take; match any name with * (src/*.ts) or reserve the folder (src/**)';
  const segments = pattern.split('/');
  let wildcards = 0;
  for (const s of segments) {
    if (s === GLOBSTAR) wildcards++;
    else for (let at = s.indexOf('*'); at !== -1; at = s.indexOf('*', at + 1)) wildcards++;
  }
  if (wildcards > LIMITS.patternWildcards) {
    return `holds ${wildcards} wildcards; the limit is ${LIMITS.patternWildcards} a pattern (a leading **, one * in the last name, a trailing **)`;
  }
  const leads = segments[0] === GLOBSTAR;
  const ends = segments.length > 1 && segments.at(-1) === GLOBSTAR;
  const core = segments.slice(leads ? 1 : 0, ends ? -1 : undefined);
  if (core.includes(GLOBSTAR)) return 'has ** between two names; ** may only start a pattern (**/*.md: anywhere) or end it (src/**: all of src)';
  if (leads && core.length > 1) return 'names more than one segment after a leading **; give one name (**/*.md, **/package.json) or start from a folder (docs/**)';
  const starred = core.findIndex((s) => s.includes('*'));
  if (starred !== -1 && starred < core.length - 1) return `has a * in segment ${starred + 1}, a folder; only the last name may hold one (src/*.ts): reserve the folder (src/**) instead`;
  const last = core.at(-1) ?? '';
  if (last.includes('*') && !/^\*[^*]*$|^[^*]*\*$/.test(last)) return 'has a * inside a name; a name may hold one *, at its start or its end (*.md, index.*)';
  return undefined;
}

/**
 * Why a path is refused as a checked path (check_paths, a staged file), or undefined. It is literal: *, ?, a
 * backslash, a control character are characters of its name, and a name of ** is a file called "**". What is
 * refused is what names no file inside a repository: empty, absolute, "." or ".." or an empty segment.
 */
export function checkedPathProblem(path: string): string | undefined {
  if (path.length === 0) return 'is empty; give a repository-relative file name such as src/a.ts';
  if (path.startsWith('/')) return 'is absolute; give it relative to the repository root, as git diff --name-only does';
  // Searched in place rather than split: a call checks up to 32,768 characters of these.
  if (path.endsWith('/') || path.includes('//')) return 'has an empty segment ("//" or a trailing "/"); give a file name as git spells it';
  const bounded = `/${path}/`;
  if (bounded.includes('/./') || bounded.includes('/../')) return 'holds a "." or ".." segment; give the path from the repository root, as git spells it';
  return undefined;
}

/** One path or pattern, bounded and checked; `field` names it in every refusal. */
export function pathPattern(field: string, problem: (pattern: string) => string | undefined = pathPatternProblem) {
  return wellFormedText(field, `${field} must be a string (a repository-relative path or pattern)`)
    .max(LIMITS.pathPattern, {
      error: (issue) => `${field} is ${String((issue.input as string).length)} characters; the limit is ${LIMITS.pathPattern}. Reserve a folder pattern such as src/auth/** instead`,
    })
    .superRefine((value, ctx) => {
      const why = problem(value);
      if (why) ctx.addIssue({ code: 'custom', message: `${field} ${why}` });
    });
}

/** One literal path to check; `field` names it in every refusal. */
export function checkedPath(field: string) {
  return wellFormedText(field, `${field} must be a string (a repository-relative file name)`)
    .max(LIMITS.checkedPath, {
      error: (issue) => `${field} is ${String((issue.input as string).length)} characters; the limit is ${LIMITS.checkedPath}, longer than any path a file system allows`,
    })
    .superRefine((value, ctx) => {
      const why = checkedPathProblem(value);
      if (why) ctx.addIssue({ code: 'custom', message: `${field} ${why}` });
    });
}
