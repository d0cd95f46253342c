// One scope's live reservations in memory, indexed by path (all of them, and the exclusive ones apart) and by id,
// brought up to date from the store's change log before each use: several daemons on one database see one board.
import { LIMITS, type Reservation } from 'roundtable-shared';
import type { BoardStore, ReservationChanges } from '../store/store.js';
import { parsePattern, shapesOverlap, type PathShape } from './overlap.js';
import { PathIndex, type Indexed } from './path-index.js';

export interface Entry extends Indexed {
  readonly reservation: Reservation;
  readonly exclusive: boolean;
  /** Reserved before the grammar of issue 22: held by the folders it starts with (overlap.ts parsePattern). */
  readonly legacy: boolean;
}

/** What check_paths shows of a holder. */
export type Holder = Pick<Reservation, 'agent' | 'task_id' | 'claim_id' | 'pattern'>;

const byId = (a: Entry, b: Entry) => a.id - b.id;

/** What a reservation rule asks of the reservations around a call: who else holds what a shape would take. */
export interface ReservationView {
  /**
   * Up to `max` reservations of agents other than `agent` that a new reservation of this shape would clash with:
   * any that overlaps it when it is exclusive, the exclusive ones that overlap it when it is shared.
   */
  conflicts(shape: PathShape, exclusive: boolean, agent: string, max: number): Entry[];
}

export class ScopeIndex implements ReservationView {
  /** The scope's version this index reflects; -1 before its first read. */
  version = -1;
  private readonly all = new PathIndex<Entry>();
  private readonly exclusive = new PathIndex<Entry>();
  private readonly ids = new Map<number, Entry>();
  /** By id, for pages. */
  private ordered: Entry[] = [];
  /** Reservations reserved before the grammar (issue 22): they are held by their leading folders, a superset. */
  private legacy = 0;

  get size(): number {
    return this.ids.size;
  }

  /** Brings the index to `changes.version`, unless it is already there or further (another read got ahead). */
  apply(changes: ReservationChanges): void {
    if (changes.full) {
      if (changes.version < this.version) return;
      for (const id of [...this.ids.keys()]) this.remove(id);
    } else {
      if (changes.since > this.version || changes.version <= this.version) return;
      for (const id of changes.changed) this.remove(id);
    }
    for (const row of changes.rows) this.add(row);
    this.version = changes.version;
  }

  private add(reservation: Reservation): void {
    this.remove(reservation.id);
    const { shape, legacy } = parsePattern(reservation.pattern);
    const entry: Entry = { id: reservation.id, agent: reservation.agent, exclusive: reservation.exclusive, reservation, shape, legacy };
    this.all.add(entry);
    if (entry.exclusive) this.exclusive.add(entry);
    this.ids.set(entry.id, entry);
    if (legacy) this.legacy++;
    const last = this.ordered.at(-1);
    if (last === undefined || last.id < entry.id) this.ordered.push(entry);
    else this.ordered.splice(this.firstAfter(entry.id), 0, entry);
  }

  private remove(id: number): void {
    const entry = this.ids.get(id);
    if (!entry) return;
    this.all.delete(entry);
    if (entry.exclusive) this.exclusive.delete(entry);
    this.ids.delete(id);
    if (entry.legacy) this.legacy--;
    this.ordered.splice(this.firstAfter(id - 1), 1);
  }

  /** The position of the first entry with an id above `id`. */
  private firstAfter(id: number): number {
    let low = 0;
    let high = this.ordered.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.ordered[mid]!.id <= id) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** Reservations with ids above afterId, oldest first. */
  page(afterId: number, limit: number): Reservation[] {
    const from = this.firstAfter(afterId);
    return this.ordered.slice(from, from + limit).map((e) => e.reservation);
  }

  /**
   * Reservations overlapping a shape, ids above afterId, oldest first. The index gathers them; when they are more
   * than a few pages, they are a good share of the scope, and a walk in id order comparing each finds a page as soon:
   * so a page costs at most one pass over the scope, never a sort of all of it.
   */
  overlapping(shape: PathShape, afterId: number, limit: number): Reservation[] {
    if (!shape.anchored) return this.page(afterId, limit); // ** reaches everything
    const most = Math.max(500, 4 * limit);
    const found: Entry[] = [];
    const gathered = this.all.overlapping(shape, {
      visit: (e) => {
        if (e.id > afterId) found.push(e);
        return found.length <= most;
      },
    });
    if (gathered) return found.sort(byId).slice(0, limit).map((e) => e.reservation);
    const page: Reservation[] = [];
    for (let at = this.firstAfter(afterId); at < this.ordered.length && page.length < limit; at++) {
      const entry = this.ordered[at]!;
      if (shapesOverlap(entry.shape, shape)) page.push(entry.reservation);
    }
    return page;
  }

  /**
   * Up to LIMITS.holdersPerPath of the other agents' exclusive reservations holding a file. Exclusive reservations
   * of two agents never overlap (reserve_paths refuses the second), so all that hold one file are one agent's: the
   * first found says whose, and when it is the caller's the walk stops there. Reservations kept from before the
   * grammar are held by a superset of what they name, which may overlap another's, so with any of those the walk
   * looks past the caller's own.
   */
  holders(names: readonly string[], caller: string): Holder[] {
    const found: Entry[] = [];
    const trusted = this.legacy === 0;
    this.exclusive.holding(names, {
      skip: caller,
      visit: (e) => {
        if (e.agent === caller) return !trusted;
        // A ** pattern is met once for each name of the file it matches.
        if (found.some((f) => f.id === e.id)) return true;
        found.push(e);
        return found.length < LIMITS.holdersPerPath;
      },
    });
    return found.sort(byId).map(({ reservation: r }) => ({ agent: r.agent, task_id: r.task_id, claim_id: r.claim_id, pattern: r.pattern }));
  }

  conflicts(shape: PathShape, exclusive: boolean, agent: string, max: number, masked?: ReadonlySet<number>): Entry[] {
    const found: Entry[] = [];
    if (max <= 0) return found;
    (exclusive ? this.all : this.exclusive).overlapping(shape, {
      skip: agent,
      visit: (e) => {
        if (e.agent === agent || masked?.has(e.id)) return true;
        found.push(e);
        return found.length < max;
      },
    });
    return found;
  }
}

/**
 * The index as a write's transaction sees the scope: the shared index, with the rows changed since it (read inside
 * the transaction) laid over it. The shared index itself only ever takes committed changes, read outside a write.
 */
export function viewWith(index: ScopeIndex, changes: ReservationChanges): ReservationView {
  if (!changes.full && changes.changed.length === 0) return index;
  const overlay = new ScopeIndex();
  overlay.apply({ ...changes, since: -1, full: true });
  const masked = new Set(changes.changed);
  return {
    conflicts(shape, exclusive, agent, max) {
      const base = changes.full ? [] : index.conflicts(shape, exclusive, agent, max, masked);
      return [...base, ...overlay.conflicts(shape, exclusive, agent, max - base.length)];
    },
  };
}

/** The indexes of the scopes in use, each read again from the store's change log before it answers. */
export class ScopeIndexes {
  private readonly scopes = new Map<string, ScopeIndex>();
  /** A read of a scope under way: calls arriving meanwhile wait for it, then read only what changed after it. */
  private readonly reading = new Map<string, Promise<unknown>>();

  constructor(private readonly store: Pick<BoardStore, 'reservationChanges'>) {}

  /** The scope's index, up to date with every change committed before this call. */
  async fresh(scope: string): Promise<ScopeIndex> {
    // Without this, the calls that reach a daemon just started (PostgreSQL: also while a read is slow) would each
    // read the whole scope.
    const pending = this.reading.get(scope);
    if (pending) await pending.catch(() => undefined); // (no await otherwise: the read below must be set at once)
    const index = this.scopes.get(scope) ?? new ScopeIndex();
    const read = this.store.reservationChanges(scope, index.version);
    this.reading.set(scope, read);
    try {
      index.apply(await read);
    } finally {
      if (this.reading.get(scope) === read) this.reading.delete(scope);
    }
    // An empty scope costs nothing to read again; forgetting it keeps the map to scopes that hold something.
    if (index.size === 0) this.scopes.delete(scope);
    else this.scopes.set(scope, index);
    return index;
  }
}
