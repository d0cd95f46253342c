// The listings' one table printer (daemon/src/cli/table.ts): padded columns, a fixed gap, optional cells left out.
import { expect, it } from 'vitest';
import { tableLine, tableText } from '../../daemon/src/cli/table.js';

it('pads each cell to its column width and leaves later columns as they are', () => {
  expect(tableText([['owner', 'owner', ''], ['worker-1', 'worker', 'py,sql']], { widths: [10, 7], gap: ' ' })).toBe('owner      owner   \nworker-1   worker  py,sql\n');
});

it('never cuts a cell longer than its column, indents, and leaves out an undefined cell with its gap', () => {
  expect(tableLine(['a-very-long-name', 'x'], { widths: [4], gap: ' ', indent: '  ' })).toBe('  a-very-long-name x');
  expect(tableLine(['wh_1', 'json', undefined, 'private allowed'], { widths: [0, 7], gap: '  ' })).toBe('wh_1  json     private allowed');
  expect(tableText([], { widths: [], gap: ' ' })).toBe('');
});
