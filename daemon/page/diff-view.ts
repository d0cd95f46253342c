// One file's diff as a table: a +/- gutter and classes mark added and removed lines (not colour alone), a long file
// is folded behind "show N more lines", and a reviewer clicks a line's number to comment on it. Text only (dom.ts h).
import type { DiffFile, DiffLine } from './diff-parse.js';
import { h } from './dom.js';
import type { LineComment } from './line-comments.js';

/** Rows shown before the rest of a file is folded. */
export const FOLD_AT = 400;

const MARK: Record<DiffLine['kind'], string> = { add: '+', del: '−', ctx: ' ', note: '' };
const KIND_LABEL: Record<DiffLine['kind'], string> = { add: 'added', del: 'removed', ctx: '', note: '' };

export interface DiffTableOptions {
  readonly path: string;
  /** When set, line numbers are buttons that open a comment form under the line. */
  readonly onComment?: ((target: { row: HTMLTableRowElement; line: number; side: 'new' | 'old' }) => void) | undefined;
  /** Comments already written on this file, shown under their lines. */
  readonly comments: readonly LineComment[];
  readonly commentRow: (comment: LineComment) => HTMLTableRowElement;
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

function lineRow(line: DiffLine, options: DiffTableOptions): HTMLTableRowElement {
  const target = options.onComment ? commentTarget(line) : null;
  const number = (n: number | null, side: 'old' | 'new') => {
    if (n === null) return h('td', { class: `no ${side}` });
    if (target && target.side === side) {
      return h('td', { class: `no ${side}` }, h('button', { type: 'button', class: 'line-no', 'aria-label': `Comment on ${options.path} line ${n}${side === 'old' ? ' (removed)' : ''}` }, n));
    }
    return h('td', { class: `no ${side}` }, n);
  };
  const row = h(
    'tr',
    { class: `dl ${line.kind}` },
    number(line.oldNo, 'old'),
    number(line.newNo, 'new'),
    h('td', { class: 'mark', title: KIND_LABEL[line.kind] || undefined }, MARK[line.kind]),
    h('td', { class: 'code' }, line.text),
  );
  if (target) {
    row.dataset['line'] = String(target.line);
    row.dataset['side'] = target.side;
  }
  return row;
}

function appendRows(body: HTMLTableSectionElement, rows: readonly Row[], options: DiffTableOptions): void {
  const bySpot = new Map<string, LineComment[]>();
  for (const c of options.comments) bySpot.set(`${c.side}:${c.line}`, [...(bySpot.get(`${c.side}:${c.line}`) ?? []), c]);
  const fragment = document.createDocumentFragment();
  for (const row of rows) {
    if (row.kind === 'hunk') {
      fragment.append(h('tr', { class: 'hunk' }, h('td', { class: 'no', colspan: 2 }), h('td', { class: 'code', colspan: 2 }, row.header)));
      continue;
    }
    fragment.append(lineRow(row.line, options));
    const target = commentTarget(row.line);
    if (target) for (const comment of bySpot.get(`${target.side}:${target.line}`) ?? []) fragment.append(options.commentRow(comment));
  }
  body.append(fragment);
}

/** The diff of one file, its first FOLD_AT rows shown and the rest behind a button. */
export function diffTable(file: DiffFile, options: DiffTableOptions): HTMLElement {
  const rows = rowsOf(file);
  const body = h('tbody');
  const table = h('table', { class: 'diff', 'aria-label': `Changes to ${options.path}` }, body);
  if (options.onComment) {
    const onComment = options.onComment;
    body.addEventListener('click', (event) => {
      const button = (event.target as Element).closest('button.line-no');
      const row = button?.closest('tr');
      if (!row || !row.dataset['line']) return;
      onComment({ row, line: Number(row.dataset['line']), side: row.dataset['side'] === 'old' ? 'old' : 'new' });
    });
  }
  appendRows(body, rows.slice(0, FOLD_AT), options);
  const wrap = h('div', { class: 'diff-scroll' }, table);
  if (rows.length <= FOLD_AT) return wrap;
  const rest = rows.length - FOLD_AT;
  const more = h('button', { type: 'button', class: 'btn ghost small show-more' }, `Show ${rest.toLocaleString('en')} more line${rest === 1 ? '' : 's'}`);
  more.addEventListener('click', () => {
    appendRows(body, rows.slice(FOLD_AT), options);
    more.remove();
  });
  return h('div', null, wrap, more);
}
