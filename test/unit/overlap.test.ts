// The overlap rule for path patterns (docs/SPEC.md, Path reservations), and which patterns are refused.
import { describe, expect, it } from 'vitest';
import { pathPatternProblem } from 'roundtable-shared';
import { holdsPath, literalPrefix, patternsOverlap, prefixAncestors, segmentsIntersect } from '../../daemon/src/board/overlap.js';

describe('two patterns overlap when some path could match both', () => {
  it.each([
    // The three cases issue 12 names.
    ['src/**', 'src/a.ts', true],
    ['src/a/**', 'src/b/**', false],
    ['*.md', 'docs/x.md', false], // anchored at the root, and * never crosses a "/": reserve **/*.md for every folder
    // The same folder or file, and what is under it.
    ['src/a.ts', 'src/a.ts', true],
    ['src/auth', 'src/auth/login.ts', true], // a path covers everything under it
    ['src/auth/login.ts', 'src/auth', true],
    ['src/a.ts', 'src/b.ts', false],
    ['src/a', 'src/ab', false],
    ['*.md', 'README.md', true],
    ['**/*.md', 'docs/x.md', true],
    ['**/*.md', 'README.md', true],
    ['**', 'anything/at/all', true],
    ['docs/**/api.md', 'docs/a/b/c/api.md', true],
    ['docs/**/api.md', 'docs/a/b/c/other.md', true], // docs/**/api.md covers docs/x/api.md/... and so docs/**: it stays inside docs
    ['docs/**/api.md', 'src/api.md', false],
    ['src/*/index.ts', 'src/auth/index.ts', true],
    ['src/*/index.ts', 'src/auth/deep/index.ts', false],
    ['src/*.ts', 'src/*.js', false],
    ['src/a*.ts', 'src/*b.ts', true], // src/ab.ts matches both
    ['src/a*', 'src/b*', false],
    ['src/?.ts', 'src/ab.ts', false],
    ['src/?.ts', 'src/a.ts', true],
    ['src/**/test/*.ts', 'src/x/**', true],
    ['bridge/**', 'daemon/**', false],
    ['a/**/b', 'a/c', true], // a/c/b is in both (a/c covers everything under it)
    ['**/*.md', 'src/a.ts', true], // src/a.ts may be a folder holding x.md: erring towards a conflict
    ['Docs/API.md', 'docs/api.md', true], // one file on macOS and Windows
  ])('%s and %s: %s', (a, b, expected) => {
    expect(patternsOverlap(a, b)).toBe(expected);
    expect(patternsOverlap(b, a)).toBe(expected);
  });

  it('two overlapping patterns always share a literal prefix line: one key starts with the other', () => {
    const pairs: Array<[string, string]> = [
      ['src/**', 'src/a.ts'],
      ['src/*/x.ts', 'src/a/x.ts'],
      ['*.md', 'README.md'],
      ['src/auth', 'src/auth/login.ts'],
    ];
    for (const [a, b] of pairs) {
      const [ka, kb] = [literalPrefix(a), literalPrefix(b)];
      expect(ka.startsWith(kb) || kb.startsWith(ka), `${a} / ${b}`).toBe(true);
    }
    expect(literalPrefix('src/a/*.ts')).toBe('src/a/');
    expect(literalPrefix('src/a.ts')).toBe('src/a.ts/');
    expect(literalPrefix('**/x')).toBe('');
    expect(prefixAncestors('src/a/')).toEqual(['', 'src/', 'src/a/']);
    expect(prefixAncestors('')).toEqual(['']);
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
  });

  it('globs within one folder name meet exactly when one name matches both', () => {
    expect(segmentsIntersect('*', 'a')).toBe(true);
    expect(segmentsIntersect('a*c', 'ab*')).toBe(true);
    expect(segmentsIntersect('*x*', '*y*')).toBe(true);
    expect(segmentsIntersect('a*c', 'b*')).toBe(false);
    expect(segmentsIntersect('??', '?')).toBe(false);
  });

  it('stays fast on long patterns full of stars', () => {
    const a = Array.from({ length: 140 }, (_, i) => (i % 2 ? '**' : '*a*')).join('/');
    const b = Array.from({ length: 140 }, () => '*b*').join('/');
    const started = performance.now();
    patternsOverlap(a, b);
    // A correctness guard against exponential backtracking, not a timing test: a naive walk takes minutes here.
    expect(performance.now() - started).toBeLessThan(5_000);
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
  ])('%s', (pattern, problem) => {
    expect(pathPatternProblem(pattern)).toMatch(problem);
  });

  it.each(['src/**', 'docs/API.md', '[id].tsx', 'a b/c.ts', '**/*.md'])('%s is accepted', (pattern) => {
    expect(pathPatternProblem(pattern)).toBeUndefined();
  });
});
