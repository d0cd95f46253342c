// The audit log as CSV (RFC 4180), safe to open in a spreadsheet: a cell that a spreadsheet would read as a formula
// (starting with = + - @, or a tab or carriage return) is prefixed with an apostrophe, so it is shown as text.
import type { AuditEntry } from '../store/store.js';

export const AUDIT_CSV_COLUMNS = ['id', 'at', 'agent', 'tool', 'task_id', 'outcome', 'face'] as const satisfies ReadonlyArray<keyof AuditEntry>;

const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell: numbers as they are, text neutralised and quoted when it holds a comma, quote or line break. */
export function csvCell(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvRow(values: ReadonlyArray<string | number | null>): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
