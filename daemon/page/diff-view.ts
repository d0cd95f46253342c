// One file's diff: rows with a +/- gutter and classes that mark added and removed lines (not colour alone), a long
// file folded behind "show N more lines", and a reviewer clicks a line's number to comment on it. Text only: each row
// is a clone of one fixed template whose cells get textContent. Rows come in blocks the browser may skip laying out
// while they are off screen (app.css content-visibility), so a 5,000-line diff is drawn at once.
import type { DiffFile, DiffLine } from './diff-parse.js';
import { h, shownControls } from './dom.js';
import type { LineComment } from './line-comments.js';

/** Rows shown before the rest of a file is folded. */
export const FOLD_AT = 400;
/** Rows per block (one content-visibility unit). */
const BLOCK = 100;

const MARK: Record<DiffLine['kind'], string> = { add: '+', del: '−', ctx: ' ', note: '' };

export interface DiffOptions {
  readonly path: string;
  /** When set, line numbers are buttons that open a comment form under the line. */
  readonly onComment?: ((target: { row: HTMLElement; line: number; side: 'new' | 'old' }) => void) | undefined;
  /** Comments already written on this file, shown under their lines. */
  readonly comments: readonly LineComment[];
  readonly commentRow: (comment: LineComment) => HTMLElement;
}

type Row = { kind: 'hunk'; header: string } | { kind: 'line'; line: DiffLine };

function rowsOf(file: DiffFile): Row[] {
  const rows: Row[] = [];
  for (const hunk of file.hunks) {
    rows.push({ kind: 'hunk', header: hunk.header });
    for (const line of hunk.lines) rows.push({ kind: 'line', line });
  }
  return rows;
}

/** Where a comment on this line points: the new side's number, or the old side's for a removed line. */
export function commentTarget(line: DiffLine): { line: number; side: 'new' | 'old' } | null {
  if (line.newNo !== null) return { line: line.newNo, side: 'new' };
  if (line.oldNo !== null) return { line: line.oldNo, side: 'old' };
  return null;
}

/** old number, new number, gutter mark, code: four cells, always in this order. */
const template = (): HTMLElement => h('div', { class: 'dl' }, h('span', { class: 'no old' }), h('span', { class: 'no new' }), h('span', { class: 'mark' }), h('span', { class: 'code' }));
let rowTemplate: HTMLElement | null = null;

function lineRow(line: DiffLine, options: DiffOptions): HTMLElement {
  rowTemplate ??= template();
  const row = rowTemplate.cloneNode(true) as HTMLElement;
  row.className = `dl ${line.kind}`;
  const [oldCell, newCell, markCell, codeCell] = row.children as unknown as [HTMLElement, HTMLElement, HTMLElement, HTMLElement];
  const target = options.onComment ? commentTarget(line) : null;
  const number = (cell: HTMLElement, n: number | null, side: 'old' | 'new') => {
    if (n === null) return;
    if (target && target.side === side) {
      const label = `Comment on ${options.path} line ${n}${side === 'old' ? ' (removed)' : ''}`;
      cell.append(h('button', { type: 'button', class: 'line-no', 'aria-label': label }, n));
    } else cell.textContent = String(n);
  };
  number(oldCell, line.oldNo, 'old');
  number(newCell, line.newNo, 'new');
  markCell.textContent = MARK[line.kind];
  codeCell.textContent = shownControls(line.text);
  if (target) {
    row.dataset['line'] = String(target.line);
    row.dataset['side'] = target.side;
  }
  return row;
}

function appendRows(body: HTMLElement, rows: readonly Row[], options: DiffOptions): void {
  const bySpot = new Map<string, LineComment[]>();
  for (const c of options.comments) bySpot.set(`${c.side}:${c.line}`, [...(bySpot.get(`${c.side}:${c.line}`) ?? []), c]);
  const fragment = document.createDocumentFragment();
  for (let start = 0; start < rows.length; start += BLOCK) {
    const block = h('div', { class: 'diff-block' });
    for (const row of rows.slice(start, start + BLOCK)) {
      if (row.kind === 'hunk') {
        block.append(h('div', { class: 'hunk' }, shownControls(row.header)));
        continue;
      }
      block.append(lineRow(row.line, options));
      const target = commentTarget(row.line);
      if (target) for (const comment of bySpot.get(`${target.side}:${target.line}`) ?? []) block.append(options.commentRow(comment));
    }
    fragment.append(block);
  }
  body.append(fragment);
}

/** The diff of one file, its first FOLD_AT rows shown and the rest behind a button. */
export function diffRows(file: DiffFile, options: DiffOptions): HTMLElement {
  const rows = rowsOf(file);
  const body = h('div', { class: 'diff', role: 'group', 'aria-label': `Changes to ${options.path}` });
  if (options.onComment) {
    const onComment = options.onComment;
    body.addEventListener('click', (event) => {
      const button = (event.target as Element).closest('button.line-no');
      const row = button?.closest<HTMLElement>('.dl');
      if (!row || !row.dataset['line']) return;
      onComment({ row, line: Number(row.dataset['line']), side: row.dataset['side'] === 'old' ? 'old' : 'new' });
    });
  }
  appendRows(body, rows.slice(0, FOLD_AT), options);
  const wrap = h('div', { class: 'diff-scroll' }, body);
  if (rows.length <= FOLD_AT) return wrap;
  const rest = rows.length - FOLD_AT;
  const more = h('button', { type: 'button', class: 'btn ghost small show-more' }, `Show ${rest.toLocaleString('en')} more line${rest === 1 ? '' : 's'}`);
  more.addEventListener('click', () => {
    appendRows(body, rows.slice(FOLD_AT), options);
    more.remove();
  });
  return h('div', null, wrap, more);
}
