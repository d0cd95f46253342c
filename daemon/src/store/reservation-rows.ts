// How path reservations are read back, the same on both stores: the row, and which keys `near` reads to find every
// reservation that may overlap a lookup (each store runs those reads as its own SQL).
import type { Reservation } from 'roundtable-shared';
import type { ReservationLookup } from './store.js';

/** A reservation as both stores keep it: scope '' is the default scope, exclusive a boolean (SQLite: 0 or 1). */
export interface ReservationRow extends Omit<Reservation, 'scope' | 'exclusive'> {
  scope: string;
  exclusive: boolean | number;
}

export function toReservation(row: ReservationRow): Reservation {
  return { ...row, scope: row.scope === '' ? null : row.scope, exclusive: row.exclusive === true || row.exclusive === 1 };
}

/**
 * What `near` reads in the lookup's scope: the whole scope (a key is '', which overlaps everything), or for each key
 * the range of keys below it (`under`, from and past) and the exact keys of it and its ancestors (`at`).
 */
export type NearReads =
  | { readonly wholeScope: true }
  | { readonly wholeScope: false; readonly under: ReadonlyArray<{ readonly from: string; readonly past: string }>; readonly at: readonly string[] };

/** The smallest string above every key that starts with `prefix` (which ends in "/"): "src/" -> "src0". */
function pastPrefix(prefix: string): string {
  return `${prefix.slice(0, -1)}0`;
}

export function nearReads(lookup: ReservationLookup): NearReads {
  const keys = new Set(lookup.prefixes);
  if (keys.has('')) return { wholeScope: true };
  const ancestors = new Set<string>(['']);
  const under: Array<{ from: string; past: string }> = [];
  for (const key of keys) {
    for (let at = key.indexOf('/'); at !== -1; at = key.indexOf('/', at + 1)) ancestors.add(key.slice(0, at + 1));
    under.push({ from: key, past: pastPrefix(key) });
  }
  return { wholeScope: false, under, at: [...ancestors] };
}

/** The rows `near` read, each reservation once, in id order. */
export function distinctReservations(rows: Iterable<ReservationRow>): Reservation[] {
  const found = new Map<number, ReservationRow>();
  for (const row of rows) found.set(row.id, row);
  return [...found.values()].sort((a, b) => a.id - b.id).map(toReservation);
}
