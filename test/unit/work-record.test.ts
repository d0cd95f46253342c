// The pure parts of the bridge's work record (issue 35): git's -z raw, numstat and patch output parsed, the patch cut at a
// whole line within the cap (and as JSON), the title slug of a task branch, the worktree list, the off switch.
import { describe, expect, it } from 'vitest';
import { LIMITS } from 'roundtable-shared';
import { workEnabled } from '../../bridge/src/config.js';
import { trailerHookScript } from '../../bridge/src/guard.js';
import { splitDiffOutput, workFiles } from '../../bridge/src/work/files.js';
import { cutLine, cutPatch, jsonBytes, PATCH_JSON_BYTES } from '../../bridge/src/work/patch.js';
import { isTaskBranch, parseWorktreeList, taskOfBranch } from '../../bridge/src/work/repository.js';
import { SLUG_MAX, taskBranch, taskFolder, titleSlug } from '../../bridge/src/work/slug.js';

describe('git diff --raw --numstat -z -p', () => {
  // What git prints for: a modified file, a rename with changes, a binary file, a deleted file, a name with a tab,
  // a newline, an escape and a leading ":" in it (with -z git writes names as they are); then the patch.
  const hostile = ':src/we\tird\nname \u001b[31m<script>.ts';
  const mode = ':100644 100644 1111111 2222222';
  const raw = `${mode} M\x00src/a.ts\x00${mode} R087\x00old/b.ts\x00new/b.ts\x00:000000 100644 0000000 3333333 A\x00img/logo.png\x00:100644 000000 4444444 0000000 D\x00gone.txt\x00:000000 100644 0000000 5555555 A\x00${hostile}\x00`;
  const numstat = `3\t1\tsrc/a.ts\x0012\t0\t\x00old/b.ts\x00new/b.ts\x00-\t-\timg/logo.png\x000\t7\tgone.txt\x001\t0\t${hostile}\x00`;
  const patch = 'diff --git a/src/a.ts b/src/a.ts\n+caf\u00e9 \u0000 not a field end\n';
  const output = Buffer.concat([Buffer.from(`${raw}${numstat}\x00`, 'utf8'), Buffer.from(patch, 'utf8')]);

  it('splits the raw records, the numstat records and the patch, which keeps git\'s bytes exactly', () => {
    const parts = splitDiffOutput(output)!;
    expect(parts.numstat).toEqual([
      { path: 'src/a.ts', added: 3, removed: 1 },
      { path: 'new/b.ts', oldPath: 'old/b.ts', added: 12, removed: 0 },
      { path: 'img/logo.png', added: null, removed: null },
      { path: 'gone.txt', added: 0, removed: 7 },
      { path: hostile, added: 1, removed: 0 },
    ]);
    expect(parts.raw.map((e) => e.status)).toEqual(['modified', 'renamed', 'added', 'deleted', 'added']);
    expect(parts.patch.equals(Buffer.from(patch, 'utf8'))).toBe(true);
  });

  it('joins them into the record: status, old_path on a rename, binary with 0/0', () => {
    const parts = splitDiffOutput(output)!;
    expect(workFiles(parts.numstat, parts.raw)).toEqual([
      { path: 'src/a.ts', status: 'modified', binary: false, added: 3, removed: 1 },
      { path: 'new/b.ts', old_path: 'old/b.ts', status: 'renamed', binary: false, added: 12, removed: 0 },
      { path: 'img/logo.png', status: 'added', binary: true, added: 0, removed: 0 },
      { path: 'gone.txt', status: 'deleted', binary: false, added: 0, removed: 7 },
      { path: hostile, status: 'added', binary: false, added: 1, removed: 0 },
    ]);
  });

  it('a copy, a type change and an unmerged entry (no status name: left out)', () => {
    const parts = splitDiffOutput(Buffer.from(`${mode} C100\x00a\x00b\x00${mode} T\x00link\x00${mode} U\x00conflicted\x001\t0\t\x00a\x00b\x000\t0\tlink\x000\t0\tconflicted\x00\x00`))!;
    expect(workFiles(parts.numstat, parts.raw).map((f) => [f.path, f.status, f.old_path])).toEqual([
      ['b', 'copied', 'a'],
      ['link', 'type_changed', undefined],
      ['conflicted', undefined, undefined],
    ]);
  });

  it(`keeps at most ${LIMITS.workFiles} files`, () => {
    const n = LIMITS.workFiles + 3;
    const many = Buffer.from(Array.from({ length: n }, (_, i) => `${mode} M\x00f${i}\x00`).join('') + Array.from({ length: n }, (_, i) => `1\t0\tf${i}\x00`).join('') + '\x00');
    const parts = splitDiffOutput(many)!;
    expect(workFiles(parts.numstat, parts.raw)).toHaveLength(LIMITS.workFiles);
  });

  it('no change: no files and no patch; output in another shape: undefined', () => {
    expect(splitDiffOutput(Buffer.alloc(0))).toEqual({ raw: [], numstat: [], patch: Buffer.alloc(0) });
    expect(splitDiffOutput(Buffer.from(`${mode} M\x00a.ts\x00diff --git a/a.ts b/a.ts\n`))).toBeUndefined();
  });
});

describe('the patch cut', () => {
  const line = (i: number) => `+line ${String(i).padStart(6, '0')} ${'x'.repeat(40)}\n`;
  const patchOf = (lines: number) => Buffer.from(Array.from({ length: lines }, (_, i) => line(i)).join(''), 'utf8');

  it('a patch within the cap is whole', () => {
    const bytes = patchOf(10);
    expect(cutPatch(bytes)).toEqual({ patch: bytes.toString('utf8'), truncated: false, bytes: bytes.length });
  });

  it('past the cap: cut at the last whole line, a last line saying where, the whole size kept', () => {
    const bytes = patchOf(30_000); // about 1.6 MB
    const cut = cutPatch(bytes);
    expect(cut.truncated).toBe(true);
    expect(cut.bytes).toBe(bytes.length);
    expect(Buffer.byteLength(cut.patch, 'utf8')).toBeLessThanOrEqual(LIMITS.workPatchBytes);
    const lines = cut.patch.split('\n');
    expect(lines.at(-1)).toBe('');
    const last = lines.at(-2)!;
    const kept = cut.patch.slice(0, cut.patch.length - last.length - 1);
    expect(last).toBe(cutLine(Buffer.byteLength(kept, 'utf8'), bytes.length).trimEnd());
    // Every kept line is one of the patch's own, whole, in order.
    expect(bytes.toString('utf8').startsWith(kept)).toBe(true);
    expect(kept.endsWith('\n')).toBe(true);
    // As much as fits: the next line would not have.
    expect(Buffer.byteLength(kept, 'utf8') + line(0).length + Buffer.byteLength(last, 'utf8') + 1).toBeGreaterThan(LIMITS.workPatchBytes);
  });

  it('multi-byte text is never cut inside a character, and invalid UTF-8 becomes U+FFFD', () => {
    const text = Buffer.concat([Buffer.from('+é€😀 ok\n'.repeat(100_000), 'utf8'), Buffer.from([0xff, 0xfe, 0x0a])]);
    const cut = cutPatch(text);
    expect(cut.truncated).toBe(true);
    expect(Buffer.byteLength(cut.patch, 'utf8')).toBeLessThanOrEqual(LIMITS.workPatchBytes);
    expect(cut.patch).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    const small = cutPatch(Buffer.from([0x2b, 0xff, 0x0a]));
    expect(small.patch).toBe('+\ufffd\n');
  });

  it('a patch of control characters is cut earlier, so its JSON stays under 3 MiB', () => {
    const noisy = Buffer.from(`+${'\u0001'.repeat(99)}\n`.repeat(10_000), 'utf8'); // 1 MB of bytes, about 6 MB as JSON
    const cut = cutPatch(noisy);
    expect(cut.truncated).toBe(true);
    expect(jsonBytes(cut.patch)).toBeLessThanOrEqual(PATCH_JSON_BYTES);
    expect(cut.patch.endsWith(cutLine(Buffer.byteLength(cut.patch, 'utf8') - Buffer.byteLength(cut.patch.split('\n').at(-2)!, 'utf8') - 1, noisy.length))).toBe(true);
  });

  it('one line longer than the cap: nothing of it is kept, only the note', () => {
    const cut = cutPatch(Buffer.from(`+${'y'.repeat(LIMITS.workPatchBytes + 10)}\n`));
    expect(cut.patch).toBe(cutLine(0, LIMITS.workPatchBytes + 12));
  });
});

describe('task branches', () => {
  it('slugs the title to [a-z0-9-], at most 40 characters', () => {
    expect(titleSlug('Add CSV exporter (v2)!')).toBe('add-csv-exporter-v2');
    expect(titleSlug('Café: crème brûlée')).toBe('cafe-creme-brulee');
    expect(titleSlug('"; rm -rf / #`$(reboot)`')).toBe('rm-rf-reboot');
    expect(titleSlug('\u001b[31m<script>alert(1)</script>\n../../etc')).toBe('31m-script-alert-1-script-etc');
    expect(titleSlug('日本語のタイトル')).toBe('');
    const long = titleSlug('a very long title that goes on and on well past forty characters');
    expect(long.length).toBeLessThanOrEqual(SLUG_MAX);
    expect(long).toBe('a-very-long-title-that-goes-on-and-on');
    expect(titleSlug('x'.repeat(100))).toBe('x'.repeat(40));
    for (const title of ['-a-', '---', 'A--B', 'x'.repeat(39) + '-y']) expect(titleSlug(title)).toMatch(/^(?:[a-z0-9]+(?:-[a-z0-9]+)*)?$/);
  });

  it('names branch and folder by id and slug; a title with no letter or digit gives the id alone', () => {
    expect(taskBranch(12, 'Fix the login')).toBe('rt/12-fix-the-login');
    expect(taskFolder(12, 'Fix the login')).toBe('12-fix-the-login');
    expect(taskBranch(7, '!!!')).toBe('rt/7');
    expect(taskFolder(7, '!!!')).toBe('7');
  });

  it('knows a task branch by its id, and no other', () => {
    expect(taskOfBranch('refs/heads/rt/12-fix-the-login')).toBe(12);
    expect(taskOfBranch('rt/7')).toBe(7);
    expect(taskOfBranch('rt/012-x')).toBeUndefined();
    expect(taskOfBranch('rt/99999999999-x')).toBeUndefined();
    expect(taskOfBranch('feature/rt/12-x')).toBeUndefined();
    expect(taskOfBranch('rt/12x')).toBeUndefined();
    expect(isTaskBranch('refs/heads/rt/12-a', 12)).toBe(true);
    expect(isTaskBranch('refs/heads/rt/123-a', 12)).toBe(false);
  });

  it('parses git worktree list --porcelain -z', () => {
    const text = 'worktree /r/app\x00HEAD ' + 'a'.repeat(40) + '\x00branch refs/heads/main\x00\x00worktree /r/app.worktrees/12-x\x00HEAD ' + 'b'.repeat(40) + '\x00branch refs/heads/rt/12-x\x00\x00worktree /r/tmp\x00HEAD ' + 'c'.repeat(40) + '\x00detached\x00\x00';
    expect(parseWorktreeList(text)).toEqual([
      { path: '/r/app', head: 'a'.repeat(40), branch: 'refs/heads/main', bare: false },
      { path: '/r/app.worktrees/12-x', head: 'b'.repeat(40), branch: 'refs/heads/rt/12-x', bare: false },
      { path: '/r/tmp', head: 'c'.repeat(40), branch: undefined, bare: false },
    ]);
  });
});

describe('the off switch', () => {
  it('--no-work or ROUNDTABLE_WORK=off turns it off; anything but on or off stops the bridge, naming the variable', () => {
    expect(workEnabled(false, {})).toBe(true);
    expect(workEnabled(true, {})).toBe(false);
    expect(workEnabled(false, { ROUNDTABLE_WORK: 'off' })).toBe(false);
    expect(workEnabled(false, { ROUNDTABLE_WORK: 'on' })).toBe(true);
    expect(() => workEnabled(false, { ROUNDTABLE_WORK: 'no' })).toThrow(/ROUNDTABLE_WORK/);
  });
});

describe('the trailer hook', () => {
  it('is sh that runs an earlier hook first and never fails the commit itself', () => {
    const script = trailerHookScript(['/usr/bin/node', '/opt/rt/cli.js', 'trailer', '--url', 'https://b.example'], 'linux');
    expect(script.startsWith('#!/bin/sh\n')).toBe(true);
    expect(script).toContain('"$hooks/prepare-commit-msg.before-roundtable" "$@" || exit $?');
    expect(script).toContain(`'/usr/bin/node' '/opt/rt/cli.js' 'trailer' '--url' 'https://b.example' "$@" || true`);
    expect(script.trimEnd().endsWith('exit 0')).toBe(true);
    expect(trailerHookScript(['C:\\node.exe', 'C:\\rt\\cli.js', 'trailer'], 'win32')).toContain(`'C:/node.exe' 'C:/rt/cli.js' 'trailer'`);
  });
});
