// The listings' table lines on the terminal (agents, webhooks, issued tokens, migrated row counts): one printer, so
// every listing pads its columns the same way.

export interface TableLayout {
  /** Each column's width, by position; a cell is padded to it (never cut). Columns past the list are not padded. */
  readonly widths: readonly number[];
  /** Between two cells. */
  readonly gap: string;
  /** Before the first cell. */
  readonly indent?: string;
}

/** One line: the cells in order, left out where undefined (an optional column such as "loopback allowed"). */
export function tableLine(cells: ReadonlyArray<string | undefined>, layout: TableLayout): string {
  const shown = cells.map((cell, column) => (cell === undefined ? undefined : cell.padEnd(layout.widths[column] ?? 0)));
  return `${layout.indent ?? ''}${shown.filter((cell) => cell !== undefined).join(layout.gap)}`;
}

/** The lines of a table, each ended with a newline, ready to write. */
export function tableText(rows: ReadonlyArray<ReadonlyArray<string | undefined>>, layout: TableLayout): string {
  return rows.map((cells) => `${tableLine(cells, layout)}\n`).join('');
}
