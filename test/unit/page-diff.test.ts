// The page's pure parts of a review (issue 35): git's unified diff read into files, hunks and numbered lines (quoted
// names, renames, binary files, a patch cut mid-file), the review note built from line comments, and PR-shaped
// https links found in a result's text (never javascript:, http: or a URL with a password).
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../shared/src/limits.js';
import { diffPath, parseDiff, unquote } from '../../daemon/page/diff-parse.js';
import { addComment, clearComments, commentsOf, noteTooLong, reviewNote } from '../../daemon/page/line-comments.js';
import { prUrlsIn, safeHttpsUrl } from '../../daemon/page/pr-links.js';

const PATCH = [
  'diff --git a/src/a.ts b/src/a.ts',
  'index 1111111..2222222 100644',
  '--- a/src/a.ts',
  '+++ b/src/a.ts',
  '@@ -1,3 +1,4 @@ function top',
  ' one',
  '-two',
  '+TWO',
  '+2.5',
  ' three',
  '\\ No newline at end of file',
  'diff --git a/old name.txt b/new name.txt',
  'similarity index 90%',
  'rename from old name.txt',
  'rename to new name.txt',
  '--- a/old name.txt',
  '+++ b/new name.txt',
  '@@ -10,2 +10,2 @@',
  '-ten',
  '+TEN',
  ' eleven',
  'diff --git a/logo.png b/logo.png',
  'new file mode 100644',
  'index 0000000..3333333',
  'Binary files /dev/null and b/logo.png differ',
  'diff --git "a/caf\\303\\251 \\"q\\".md" "b/caf\\303\\251 \\"q\\".md"',
  'deleted file mode 100644',
  '--- "a/caf\\303\\251 \\"q\\".md"',
  '+++ /dev/null',
  '@@ -1 +0,0 @@',
  '-gone',
  '',
].join('\n');

describe('parseDiff', () => {
  const files = parseDiff(PATCH);

  it('numbers each line on its side: added lines by the new side, removed lines by the old', () => {
    expect(files.map(diffPath)).toEqual(['src/a.ts', 'new name.txt', 'logo.png', 'café "q".md']);
    const lines = files[0]!.hunks[0]!.lines;
    expect(lines.map((l) => [l.kind, l.text, l.oldNo, l.newNo])).toEqual([
      ['ctx', 'one', 1, 1],
      ['del', 'two', 2, null],
      ['add', 'TWO', null, 2],
      ['add', '2.5', null, 3],
      ['ctx', 'three', 3, 4],
      ['note', '\\ No newline at end of file', null, null],
    ]);
    expect(files[0]!.hunks[0]!.header).toBe('@@ -1,3 +1,4 @@ function top');
  });

  it('reads renames, binary files and deletions, and git-quoted names', () => {
    expect(files[1]).toMatchObject({ oldPath: 'old name.txt', newPath: 'new name.txt' });
    expect(files[1]!.hunks[0]!.lines[0]).toMatchObject({ kind: 'del', oldNo: 10 });
    expect(files[2]).toMatchObject({ oldPath: null, newPath: 'logo.png', binary: true, hunks: [] });
    expect(files[3]).toMatchObject({ oldPath: 'café "q".md', newPath: null });
    expect(unquote('"tab\\there"')).toBe('tab\there');
  });

  it('keeps what arrived of a patch cut in the middle of a line, and ignores text before the first file', () => {
    const cut = parseDiff(`cover note\n${PATCH.slice(0, PATCH.indexOf('+2.5') + 2)}`);
    expect(cut).toHaveLength(1);
    expect(cut[0]!.hunks[0]!.lines.at(-1)).toMatchObject({ kind: 'add', text: '2', newNo: 3 });
  });

  it('reads hostile text as lines, whatever it holds', () => {
    const evil = '<img src=x onerror=alert(1)>\u202e\u001b[31m';
    const [file] = parseDiff(`diff --git a/${evil} b/${evil}\n--- a/${evil}\n+++ b/${evil}\n@@ -1 +1 @@\n-${evil}\n+"><script>x()</script>\n`);
    expect(diffPath(file!)).toBe(evil);
    expect(file!.hunks[0]!.lines.map((l) => l.text)).toEqual([evil, '"><script>x()</script>']);
  });
});

describe('the review note from line comments', () => {
  it('puts one path:line: text a line, in diff order, before the free note; a comment stays one line', () => {
    clearComments(7);
    addComment(7, 's1', { path: 'src/b.ts', line: 4, side: 'new', text: 'rename this' });
    addComment(7, 's1', { path: 'src/a.ts', line: 12, side: 'old', text: 'why was this\nremoved?' });
    const comments = commentsOf(7, 's1');
    expect(reviewNote(comments, 'Please fix both.')).toBe('src/a.ts:12: why was this removed?\nsrc/b.ts:4: rename this\n\nPlease fix both.');
    expect(reviewNote(comments, '  ')).toBe('src/a.ts:12: why was this removed?\nsrc/b.ts:4: rename this');
    // A resubmission starts without the old comments.
    expect(commentsOf(7, 's2')).toEqual([]);
  });

  it('names the limit when the note with its comments is too long', () => {
    expect(noteTooLong('x'.repeat(LIMITS.reviewNote), 0)).toBeNull();
    expect(noteTooLong('x'.repeat(LIMITS.reviewNote + 1), 2)).toBe(`The review note with its 2 line comments is ${LIMITS.reviewNote + 1} characters; the limit is ${LIMITS.reviewNote} (LIMITS.reviewNote). Shorten the note or a comment.`);
  });
});

describe('PR links', () => {
  it('finds GitHub, GitLab and Bitbucket requests over https, each once, without trailing punctuation', () => {
    const text = 'See https://github.com/acme/app/pull/12. Also https://gitlab.example.com/g/sub/app/-/merge_requests/7, https://bitbucket.org/ws/repo/pull-requests/3 and https://github.com/acme/app/pull/12 again; not https://github.com/acme/app/issues/4 nor http://github.com/acme/app/pull/5';
    expect(prUrlsIn(text)).toEqual(['https://github.com/acme/app/pull/12', 'https://gitlab.example.com/g/sub/app/-/merge_requests/7', 'https://bitbucket.org/ws/repo/pull-requests/3']);
  });

  it('refuses anything but https with a host and no credentials', () => {
    expect(safeHttpsUrl('javascript:alert(1)//https://x/pull/1')).toBeNull();
    expect(safeHttpsUrl('http://github.com/a/b/pull/1')).toBeNull();
    expect(safeHttpsUrl('https://user:pw@github.com/a/b/pull/1')).toBeNull();
    expect(prUrlsIn('https://user:pw@github.com/a/b/pull/1 javascript:https://github.com/a/b/pull/2')).toEqual(['https://github.com/a/b/pull/2']);
  });
});
