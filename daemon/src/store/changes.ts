// What an accepted write asks the store to write: the changes the pure rules decide, as both the store's interface
// (store.ts) and the event log's rules (event-log.ts) read them; below both, so neither imports the other.
import type { Priority, TaskStatus, Verdict } from 'roundtable-shared';

/** What a decision asks the store to write when it accepts a task transition. */
export interface TaskChange {
  /** The agent making the change, recorded in the history. */
  readonly actor: string;
  readonly status: TaskStatus;
  readonly assignee: string | null;
  /** Omitted: keep the stored result. */
  readonly result?: string | null;
  /** The activity row to append (who did what). */
  readonly action: string;
  readonly note?: string | null;
  readonly review?: { readonly verdict: Verdict; readonly note: string | null; readonly submitter: string | null };
  /** A new claim: the store gives it a fresh claim id and this lease. Leaving `claimed` always ends the lease. */
  readonly lease?: { readonly expiresAt: string };
}

/** What an accepted edit writes: the new values of the changed fields, and the old ones for the history row. */
export interface TaskEdit {
  readonly actor: string;
  readonly set: {
    readonly title?: string;
    readonly description?: string;
    readonly requiredSkills?: readonly string[];
    readonly priority?: Priority;
    readonly assignee?: string | null;
    readonly dependsOn?: readonly number[];
  };
  /** The tool's names of the changed fields, in a fixed order. */
  readonly fields: readonly string[];
  readonly old: Readonly<Record<string, unknown>>;
}

/** A path reservation to write, as decided by the rule. */
export interface NewReservation {
  readonly pattern: string;
  /** Its literal prefix key (overlap.ts literalPrefix), kept in the prefix column. */
  readonly prefix: string;
  readonly exclusive: boolean;
  readonly reason: string | null;
}

/** What a reservation rule asks the store to write: rows to add (or re-reserve) on the current claim, and the history row. */
export interface ReservationChange {
  readonly actor: string;
  readonly claimId: number;
  readonly scope: string;
  readonly add: readonly NewReservation[];
  /** Ids of the claim's reservations to delete. */
  readonly remove: readonly number[];
  /** The activity row: paths_reserved or paths_released. */
  readonly action: string;
  readonly note: string;
}
