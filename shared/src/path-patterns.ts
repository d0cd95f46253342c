// What a reservable path pattern is: repository-relative, "/"-separated, with * ? and ** as its only wildcards.
import { z } from 'zod';
import { LIMITS } from './limits.js';
import { wellFormedText } from './fields.js';

/**
 * Why a pattern is refused, or undefined if it is acceptable. Absolute paths, "..", "." and empty segments are
 * refused rather than normalised: a reservation must say plainly which files it means, the same way on every machine.
 */
export function pathPatternProblem(pattern: string): string | undefined {
  if (pattern.length === 0) return 'is empty; give a repository-relative path such as src/auth/** or docs/API.md';
  if (pattern.startsWith('/') || /^[A-Za-z]:/.test(pattern)) return 'is absolute; give it relative to the repository root, e.g. src/a.ts';
  if (pattern.includes('\\')) return 'holds a backslash; separate folders with "/"';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(pattern)) return 'holds a control character';
  const segments = pattern.split('/');
  if (segments.some((s) => s === '')) return 'has an empty segment ("//" or a trailing "/"); write src/** for a whole folder';
  if (segments.some((s) => s === '..')) return 'holds ".."; give the path from the repository root without going up';
  if (segments.some((s) => s === '.')) return 'holds "."; give the path from the repository root, e.g. src/a.ts, not ./src/a.ts';
  return undefined;
}

/** One path or pattern, bounded and checked; `field` names it in every refusal. */
export function pathPattern(field: string) {
  return wellFormedText(field, `${field} must be a string (a repository-relative path or pattern)`)
    .max(LIMITS.pathPattern, {
      error: (issue) => `${field} is ${String((issue.input as string).length)} characters; the limit is ${LIMITS.pathPattern}. Reserve a folder pattern such as src/auth/** instead`,
    })
    .superRefine((value, ctx) => {
      const problem = pathPatternProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: `${field} ${problem}` });
    });
}
