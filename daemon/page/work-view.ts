// The git work behind a task's latest submission, in its panel: branch, base..head, uncommitted changes, the PR link,
// the commits, and per file its +/- counts and its diff (collapsible), where a reviewer comments on lines.
// Every text here is agent-written (SPEC §22): text nodes only, links https only (pr-links.ts).
import { parseDiff, diffPath, type DiffFile } from './diff-parse.js';
import { diffRows } from './diff-view.js';
import { externalLink, h, plural, shownControls, timeEl, type Child } from './dom.js';
import { addComment, commentsOf, removeComment, type LineComment } from './line-comments.js';
import { safeHttpsUrl } from './pr-links.js';
import type { TaskDetail, WorkRecord } from './types.js';

/** Files whose diff is open at first; later ones open (and are drawn) on request. */
const OPEN_FILES = 50;

const short = (id: string): string => id.slice(0, 7);

/** The section as last built, kept while the submission and the reviewer's powers stay the same (it may be large). */
let kept: { key: string; el: HTMLElement } | null = null;

export function forgetWorkView(): void {
  kept = null;
}

export function workSection(detail: TaskDetail, reviewing: boolean): HTMLElement | null {
  const work = detail.work;
  if (!work) return null;
  const key = JSON.stringify([detail.task.id, work.submitted_at, work.head, work.patch === undefined, work.patch_dropped, reviewing]);
  if (kept?.key !== key) kept = { key, el: buildSection(detail.task.id, work, reviewing) };
  return kept.el;
}

function buildSection(taskId: number, work: WorkRecord, reviewing: boolean): HTMLElement {
  const submission = submissionOf(work);
  const pr = work.pr_url ? safeHttpsUrl(work.pr_url) : null;
  const facts = h(
    'dl',
    { class: 'facts work-facts' },
    h('dt', null, 'Branch'),
    h('dd', null, work.branch !== null ? h('code', { class: 'branch' }, shownControls(work.branch)) : h('span', { class: 'empty' }, 'detached HEAD')),
    h('dt', null, 'Range'),
    h('dd', null, h('code', { class: 'range', title: `${work.base}..${work.head}` }, `${short(work.base)}..${short(work.head)}`)),
    h('dt', null, 'Uncommitted'),
    h('dd', { class: work.dirty ? 'dirty' : undefined }, work.dirty ? 'Yes: the tree had uncommitted changes, which the commits do not hold' : 'No'),
    pr ? [h('dt', null, 'Pull request'), h('dd', null, externalLink(pr))] : null,
    h('dt', null, 'Submitted'),
    h('dd', null, 'by ', h('strong', null, work.submitted_by), ' ', timeEl(work.submitted_at)),
  );
  const commits = work.commits.length
    ? h(
        'ol',
        { class: 'commits' },
        work.commits.map((c) => h('li', null, h('code', { class: 'commit-id', title: c.id }, short(c.id)), h('span', { class: 'commit-subject' }, shownControls(c.subject)), timeEl(c.author_time, 'when'))),
      )
    : h('p', { class: 'empty' }, 'No commits between base and head.');
  const added = work.files.reduce((n, f) => n + f.added, 0);
  const removed = work.files.reduce((n, f) => n + f.removed, 0);
  return h(
    'section',
    { class: 'section work' },
    h('h3', null, 'Work'),
    facts,
    h('h4', null, `Commits (${work.commits.length})`),
    commits,
    h('h4', null, `Files (${work.files.length}) `, h('span', { class: 'count add' }, `+${added}`), ' ', h('span', { class: 'count del' }, `−${removed}`)),
    patchNote(work),
    files(taskId, submission, work, reviewing),
  );
}

/** What the page can and cannot show of the patch, said plainly. */
function patchNote(work: WorkRecord): HTMLElement | null {
  if (work.patch_dropped) return h('p', { class: 'notice patch-dropped' }, 'The patch of this submission was not kept (the project\'s total for patches), so no diff is shown: the branch, commits and files are the record.');
  if (work.patch === undefined) return h('p', { class: 'notice patch-none' }, 'No patch came with this submission: only its branch, commits and files.');
  if (work.patch_truncated) {
    const whole = work.patch_bytes !== undefined ? ` of ${work.patch_bytes.toLocaleString('en')}` : '';
    return h('p', { class: 'notice patch-truncated' }, `The patch was cut at its cap: the diff below holds its first ${new TextEncoder().encode(work.patch).length.toLocaleString('en')}${whole} bytes. Files past the cut show no diff; the list of files and their counts is whole.`);
  }
  return null;
}

function files(taskId: number, submission: string, work: WorkRecord, reviewing: boolean): HTMLElement {
  const diffs = work.patch !== undefined ? parseDiff(work.patch) : [];
  const byPath = new Map<string, DiffFile>();
  for (const d of diffs) byPath.set(diffPath(d), d);
  const listed = new Set(work.files.map((f) => f.path));
  const entries: Array<{ path: string; oldPath?: string | undefined; status?: string | undefined; binary: boolean; added: number; removed: number; diff: DiffFile | undefined }> = work.files.map((f) => ({
    path: f.path,
    oldPath: f.old_path,
    status: f.status,
    binary: f.binary === true,
    added: f.added,
    removed: f.removed,
    diff: byPath.get(f.path) ?? (f.old_path !== undefined ? byPath.get(f.old_path) : undefined),
  }));
  // A file in the patch that the list does not name still shows (the list is the app's own; the diff is what changed).
  for (const d of diffs) {
    const path = diffPath(d);
    if (listed.has(path)) continue;
    let add = 0;
    let del = 0;
    for (const hunk of d.hunks) {
      for (const line of hunk.lines) {
        if (line.kind === 'add') add++;
        else if (line.kind === 'del') del++;
      }
    }
    entries.push({ path, oldPath: d.oldPath !== null && d.oldPath !== path ? d.oldPath : undefined, binary: d.binary, added: add, removed: del, diff: d });
  }
  const patchShown = work.patch !== undefined;
  return h(
    'div',
    { class: 'files' },
    entries.map((entry, index) => {
      const comments = () => commentsOf(taskId, submission).filter((c) => c.path === entry.path);
      const head: Child[] = [
        h('span', { class: 'file-path' }, shownControls(entry.path)),
        entry.oldPath !== undefined && entry.oldPath !== entry.path ? h('span', { class: 'file-old' }, `${entry.status === 'copied' ? 'copied' : 'renamed'} from ${shownControls(entry.oldPath)}`) : null,
        entry.status && !['modified', 'renamed', 'copied'].includes(entry.status) ? h('span', { class: 'chip' }, entry.status.replace('_', ' ')) : null,
        entry.binary || entry.diff?.binary ? h('span', { class: 'chip' }, 'binary') : null,
        h('span', { class: 'count add', 'aria-label': `${entry.added} added` }, `+${entry.added}`),
        h('span', { class: 'count del', 'aria-label': `${entry.removed} removed` }, `−${entry.removed}`),
      ];
      // Without a patch there is nothing to open: the file's line alone.
      if (!patchShown) return h('div', { class: 'diff-file', 'data-path': entry.path }, h('div', { class: 'file-head' }, head));
      const details = h('details', { class: 'diff-file', 'data-path': entry.path }, h('summary', { class: 'file-head' }, head));
      const body = (): Child => {
        if (!entry.diff) return h('p', { class: 'empty' }, work.patch_truncated ? 'Not in the patch: it was cut before this file.' : 'No diff for this file in the patch.');
        if (entry.diff.binary || (entry.binary && entry.diff.hunks.length === 0)) return h('p', { class: 'empty' }, 'Binary file: no lines to show.');
        if (entry.diff.hunks.length === 0) return h('p', { class: 'empty' }, entry.diff.meta.length ? shownControls(entry.diff.meta.join('\n')) : 'No line changes (mode or name only).');
        return diffRows(entry.diff, {
          path: entry.path,
          comments: comments(),
          commentRow: (c) => commentRow(taskId, c, reviewing),
          onComment: reviewing ? ({ row, line, side }) => openCommentForm({ taskId, submission, path: entry.path, row, line, side }) : undefined,
        });
      };
      let drawn = false;
      const draw = () => {
        if (drawn) return;
        drawn = true;
        details.append(h('div', { class: 'diff-body' }, body()));
      };
      if (index < OPEN_FILES) {
        details.open = true;
        draw();
      } else details.addEventListener('toggle', () => details.open && draw());
      return details;
    }),
    entries.length === 0 ? h('p', { class: 'empty' }, 'No files changed.') : null,
    entries.length > OPEN_FILES ? h('p', { class: 'hint' }, `${plural(entries.length - OPEN_FILES, 'more file is', 'more files are')} closed: open one to see its diff.`) : null,
  );
}

function commentRow(taskId: number, comment: LineComment, reviewing: boolean): HTMLElement {
  const remove = reviewing ? h('button', { type: 'button', class: 'btn ghost small', 'aria-label': `Remove the comment on ${comment.path} line ${comment.line}` }, 'Remove') : null;
  const row = h('div', { class: 'comment-row line-comment' }, h('span', { class: 'line-comment-where' }, shownControls(`${comment.path}:${comment.line}`)), h('span', { class: 'line-comment-text' }, comment.text), remove);
  remove?.addEventListener('click', () => {
    removeComment(taskId, comment.id);
    row.remove();
  });
  return row;
}

interface CommentSpot {
  readonly taskId: number;
  readonly submission: string;
  readonly path: string;
  readonly row: HTMLElement;
  readonly line: number;
  readonly side: 'new' | 'old';
}

/** A one-line form under the clicked line; the comment it adds takes its place. */
function openCommentForm(spot: CommentSpot): void {
  // After the line's own comments, if any.
  let after: Element = spot.row;
  while (after.nextElementSibling?.classList.contains('comment-row')) after = after.nextElementSibling;
  const open = after.nextElementSibling;
  if (open?.classList.contains('comment-form-row')) {
    open.querySelector('input')?.focus();
    return;
  }
  const where = `${spot.path}:${spot.line}`;
  const input = h('input', { type: 'text', name: 'comment', 'aria-label': `Comment on ${where}`, autocomplete: 'off', required: true });
  const cancel = h('button', { type: 'button', class: 'btn ghost small' }, 'Cancel');
  const form = h('form', { class: 'line-comment-form', 'aria-label': `Comment on ${where}` }, input, h('button', { type: 'submit', class: 'btn primary small' }, 'Add comment'), cancel);
  const formRow = h('div', { class: 'comment-form-row' }, form);
  after.after(formRow);
  input.focus();
  cancel.addEventListener('click', () => formRow.remove());
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (input.value.trim() === '') return;
    const comment = addComment(spot.taskId, spot.submission, { path: spot.path, line: spot.line, side: spot.side, text: input.value });
    formRow.replaceWith(commentRow(spot.taskId, comment, true));
  });
}

/** The submission's key for its comments, as work-view keeps them (the review form reads the same list). */
export function submissionOf(work: WorkRecord): string {
  return `${work.submitted_at}:${work.head}`;
}
