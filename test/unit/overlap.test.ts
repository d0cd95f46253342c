// The overlap rule for path patterns (docs/SPEC.md, Path reservations): the examples, the property that the linear
// rule decides as the general glob walk before issue 22 did on every pattern the grammar accepts, and the refusals.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LIMITS, pathPatternProblem, reservedPatternProblem } from 'roundtable-shared';
import { holdsPath, literalPrefix, patternsOverlap, shapeOf } from '../../daemon/src/board/overlap.js';
import * as before from '../reference/overlap-before.js';
import { file, literalName, pattern } from '../helpers/patterns.js';

describe('two patterns overlap when some path could match both', () => {
  it.each([
    ['src/**', 'src/a.ts', true],
    ['src/a/**', 'src/b/**', false],
    ['*.md', 'docs/x.md', false], // anchored at the root, and * never crosses a "/": reserve **/*.md for every folder
    ['src/a.ts', 'src/a.ts', true],
    ['src/auth', 'src/auth/login.ts', true], // a path covers everything under it
    ['src/auth/login.ts', 'src/auth', true],
    ['src/a.ts', 'src/b.ts', false],
    ['src/a', 'src/ab', false],
    ['*.md', 'README.md', true],
    ['**/*.md', 'docs/x.md', true],
    ['**/*.md', 'README.md', true],
    ['**', 'anything/at/all', true],
    ['src/*.ts', 'src/*.js', false],
    ['src/a*', 'src/*b.ts', true], // src/ab.ts matches both
    ['src/a*', 'src/b*', false],
    ['src/ab*', 'src/a*', true],
    ['src/*x.ts', 'src/*.ts', true],
    ['src/*', 'src/a/b/c.ts', true],
    ['bridge/**', 'daemon/**', false],
    ['**/*.md', 'src/a.ts', true], // src/a.ts may be a folder holding x.md: erring towards a conflict
    ['Docs/API.md', 'docs/api.md', true], // one file on macOS and Windows
    ['docs/*.md', 'docs/api/x.ts', false],
  ])('%s and %s: %s', (a, b, expected) => {
    expect(pathPatternProblem(a)).toBeUndefined();
    expect(pathPatternProblem(b)).toBeUndefined();
    expect(patternsOverlap(a, b)).toBe(expected);
    expect(patternsOverlap(b, a)).toBe(expected);
    expect(before.patternsOverlap(a, b)).toBe(expected);
  });

  it('a reservation holds a checked file when the file matches it or lies under what it matches; the file is never a folder', () => {
    expect(holdsPath('src/**', 'src/a.ts')).toBe(true);
    expect(holdsPath('src/auth', 'src/auth/login.ts')).toBe(true);
    expect(holdsPath('src/a.ts', 'src/a.ts')).toBe(true);
    expect(holdsPath('SRC/A.ts', 'src/a.ts')).toBe(true);
    expect(holdsPath('**/*.md', 'docs/x.md')).toBe(true);
    expect(holdsPath('**/*.md', 'src/a.ts')).toBe(false);
    expect(holdsPath('*.md', 'docs/x.md')).toBe(false);
    expect(holdsPath('src/auth/login.ts', 'src/auth')).toBe(false);
    expect(holdsPath('src/a/**', 'src/b/x.ts')).toBe(false);
    expect(holdsPath('src/*.ts', 'src/a.ts/inside')).toBe(true);
  });

  it('a checked path is literal: a * or ** in it is a character of a name, not a wildcard (issue 22)', () => {
    expect(holdsPath('src/a.ts', 'src/*.ts')).toBe(false); // before: "*.ts" was read as a pattern and met a.ts
    expect(before.holdsPath('src/a.ts', 'src/*.ts')).toBe(true);
    expect(holdsPath('src/held/**', '**')).toBe(false); // a file called ** at the root
    expect(before.holdsPath('src/held/**', '**')).toBe(true);
    expect(holdsPath('src/held/**', 'src/held/**')).toBe(true); // a file called ** in src/held
    expect(holdsPath('*', '**')).toBe(true); // * is any name at the root, ** among them
    expect(holdsPath('src/*.ts', 'src/*.ts')).toBe(true);
    // A stored pattern the grammar refuses (reserved before it) holds what its leading folders hold: here all of it.
    expect(holdsPath('src/**/a?b', 'src/x/other')).toBe(true);
    expect(holdsPath('src/**/a?b', 'docs/a?b')).toBe(false);
    expect(holdsPath('src/**', 'src/a\\b\u0085c.ts')).toBe(true);
  });

  it('keeps the literal prefix the prefix column has always held', () => {
    expect(literalPrefix('src/a/*.ts')).toBe('src/a/');
    expect(literalPrefix('src/a.ts')).toBe('src/a.ts/');
    expect(literalPrefix('**/x')).toBe('');
  });
});

describe('the linear rule decides as the general glob walk did (fast-check)', () => {
  it('every generated pattern is one the grammar accepts', () => {
    fc.assert(fc.property(pattern, (p) => pathPatternProblem(p) === undefined));
  });

  it('overlap: the same answer as before issue 22, for any two patterns of the grammar', () => {
    fc.assert(
      fc.property(pattern, pattern, (a, b) => {
        expect(patternsOverlap(a, b)).toBe(before.patternsOverlap(a, b));
      }),
      { numRuns: 20_000 },
    );
  });

  it('holding a file: the same answer as before, for any pattern of the grammar and any file without wildcard characters', () => {
    fc.assert(
      fc.property(pattern, file, (p, f) => {
        expect(holdsPath(p, f)).toBe(before.holdsPath(p, f));
      }),
      { numRuns: 20_000 },
    );
  });

  it('a pattern the grammar refuses (one reserved before it) is read as a superset: it overlaps whatever it overlapped', () => {
    const legacy = fc
      .tuple(fc.array(literalName, { maxLength: 2 }), fc.constantFrom('a?b', '*a*', 'a*b', '?'), fc.array(fc.oneof(literalName, fc.constant('**')), { maxLength: 2 }))
      .map(([head, wild, tail]) => [...head, wild, ...tail].join('/'));
    fc.assert(
      fc.property(legacy, pattern, file, (old, other, f) => {
        expect(pathPatternProblem(old)).toBeDefined();
        expect(reservedPatternProblem(old)).toBeUndefined();
        if (before.patternsOverlap(old, other)) expect(patternsOverlap(old, other)).toBe(true);
        if (before.holdsPath(old, f)) expect(holdsPath(old, f)).toBe(true);
      }),
      { numRuns: 5_000 },
    );
    expect(shapeOf('src/*/index.ts')).toEqual({ anchored: true, folders: ['src'], name: undefined });
    expect(shapeOf('*b*b*d')).toEqual({ anchored: false, name: undefined });
  });
});

describe('patterns that are refused', () => {
  it.each([
    ['/etc/passwd', /absolute/],
    ['C:/x', /absolute/],
    ['src/../secrets', /"\.\."/],
    ['./src/a.ts', /"\."/],
    ['src//a.ts', /empty segment/],
    ['src/', /empty segment/],
    ['src\\a.ts', /backslash/],
    ['', /empty/],
    ['src/a\u009bb', /control character/],
    ['src/?.ts', /holds "\?"/],
    ['*a*b*', /holds 3 wildcards|inside a name/],
    [`${'*b'.repeat(147)}xd`, new RegExp(`holds 147 wildcards; the limit is ${LIMITS.patternWildcards} a pattern`)],
    ['docs/**/api.md', /\*\* between two names/],
    ['**/src/index.ts', /more than one segment after a leading \*\*/],
    ['src/*/index.ts', /a \* in segment 2, a folder/],
    ['src/a*b.ts', /a \* inside a name/],
    ['src/**x', /a \* inside a name/],
  ])('%s', (refused, problem) => {
    expect(pathPatternProblem(refused)).toMatch(problem);
  });

  it.each(['src/**', 'docs/API.md', '[id].tsx', 'a b/c.ts', '**/*.md', '*', '**', '**/**', 'src/index.*', 'src/*.test.ts/**', '**/package.json/**'])('%s is accepted', (accepted) => {
    expect(pathPatternProblem(accepted)).toBeUndefined();
  });
});
