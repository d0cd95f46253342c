// The port for several daemons sharing who waits: the store implements it (PostgreSQL), board/waiters.ts uses it.

/**
 * Several daemons on one board: who is parked on any of them. Told this daemon's waiting agents whenever they change,
 * it answers which agents wait anywhere. On one daemon (SQLite) there is none, and members reads memory only.
 */
export interface SharedWaiting {
  /** The agents with a wait parked on this daemon now (the whole set, not a change). */
  waitingHere(agents: readonly string[]): void;
  /** Of these agents, those parked on any live daemon. */
  waitingAnywhere(agents: readonly string[]): Promise<Set<string>>;
}
