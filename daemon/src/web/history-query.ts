// The query parameters the Activity and Audit reads share (issue 36): a page size, names and times, each checked and
// refused naming the field, never quoting what was sent.
import { InvalidInput } from '../errors.js';

/** A request's query parameters, the last value of each. */
export type QueryText = Readonly<Record<string, string | undefined>>;

const MAX_NAME = 200;
const CONTROL = /[\u0000-\u001f\u007f]/;

export function pageSizeOf(query: QueryText, fallback: number, max: number): number {
  const raw = query['limit'];
  if (raw === undefined) return fallback;
  const value = /^[1-9][0-9]{0,3}$/.test(raw) ? Number(raw) : NaN;
  if (!(value <= max)) throw new InvalidInput(`limit: send a whole number from 1 to ${max}`);
  return value;
}

/** An exact-match name (an agent, a tool, an outcome): any text up to 200 characters with no control characters. */
export function nameOf(query: QueryText, field: string): string | undefined {
  const raw = query[field];
  if (raw === undefined || raw === '') return undefined;
  if (raw.length > MAX_NAME || CONTROL.test(raw)) throw new InvalidInput(`${field}: send a name of up to ${MAX_NAME} characters, without control characters`);
  return raw;
}

/** A time as ISO 8601 (a date, or a date and time with its zone), returned in the UTC form both stores keep. */
export function isoTimeOf(query: QueryText, field: string): string | undefined {
  const raw = query[field];
  if (raw === undefined || raw === '') return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(raw) ? Date.parse(raw) : NaN;
  if (!Number.isFinite(ms)) throw new InvalidInput(`${field}: send a time as ISO 8601, such as 2026-05-01T09:00:00Z`);
  return new Date(ms).toISOString();
}
