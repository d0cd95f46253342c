// How path reservations are read back, the same on both stores: the row, and what to read so that an index of a
// scope catches up from one version to another (each store runs those reads as its own SQL).
import type { Reservation } from 'roundtable-shared';
import { RESERVATION_CHANGES_KEPT } from './store.js';

/** A reservation as both stores keep it: scope '' is the default scope, exclusive a boolean (SQLite: 0 or 1). */
export interface ReservationRow extends Omit<Reservation, 'scope' | 'exclusive'> {
  scope: string;
  exclusive: boolean | number;
}

export function toReservation(row: ReservationRow): Reservation {
  return { ...row, scope: row.scope === '' ? null : row.scope, exclusive: row.exclusive === true || row.exclusive === 1 };
}

/**
 * What to read to bring an index at `since` to the scope's `version`: nothing; the rows of the ids the change log
 * names since then; or every row of the scope (no index yet, a log pruned past it, or a database older than it).
 * A scope at version 0 never held a reservation.
 */
export function changesToRead(since: number, version: number): 'nothing' | 'changed' | 'every' | 'none-ever' {
  if (since >= 0 && since === version) return 'nothing';
  if (version === 0) return 'none-ever';
  if (since < 0 || since > version || version - since > RESERVATION_CHANGES_KEPT) return 'every';
  return 'changed';
}
