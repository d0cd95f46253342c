// Path reservations on PostgreSQL: the same reads as SQLite's sqlite/reservations.ts. Changes in one scope are
// serialized by an advisory lock on the scope, so two claims cannot both take overlapping exclusive paths.
import type { Reservation, Task } from 'roundtable-shared';
import { reservationsChangedRow } from '../history-rows.js';
import { changesToRead, toReservation, type ReservationRow } from '../reservation-rows.js';
import type { DecideReservation, NewReservation, ReservationChanges, ReservationLookup, WriteExtras } from '../store.js';
import { insertActivity } from './activity.js';
import { recordExtras } from './write-extras.js';
import type { Db, Tx } from './connection.js';

const COLUMNS = 'id, task_id, claim_id, agent, scope, pattern, exclusive, reason, created_at';

async function rows(db: Db, where: string, params: unknown[]): Promise<ReservationRow[]> {
  return [...(await db.unsafe<ReservationRow[]>(`SELECT ${COLUMNS} FROM reservations WHERE ${where}`, params as never[], { prepare: true }))];
}

export async function ofClaim(db: Db, claimId: number): Promise<Reservation[]> {
  return (await rows(db, 'claim_id = $1 ORDER BY id', [claimId])).map(toReservation);
}

export async function ofTask(db: Db, taskId: number): Promise<Reservation[]> {
  return (await rows(db, 'task_id = $1 ORDER BY id', [taskId])).map(toReservation);
}

/** The scope's version: 0 if it never held a reservation. One statement, so a call with nothing new pays one round trip. */
export async function scopeVersion(db: Db, scope: string): Promise<number> {
  const [row] = await db.unsafe<Array<{ version: string }>>('SELECT version FROM reservation_versions WHERE scope = $1', [scope], { prepare: true });
  return row === undefined ? 0 : Number(row.version);
}

/**
 * How the scope changed since `since`, the scope at `version` (read by the caller in the same snapshot, or inside a
 * write that holds the scope's lock).
 */
export async function changesSince(db: Db, scope: string, since: number, version: number): Promise<ReservationChanges> {
  const read = changesToRead(since, version);
  if (read === 'nothing') return { scope, since, version, full: false, changed: [], rows: [] };
  if (read === 'none-ever') return { scope, since, version, full: true, changed: [], rows: [] };
  if (read === 'every') return { scope, since, version, full: true, changed: [], rows: (await rows(db, 'scope = $1 ORDER BY id', [scope])).map(toReservation) };
  const logged = await db.unsafe<Array<{ reservation_id: number }>>(
    'SELECT DISTINCT reservation_id FROM reservation_changes WHERE scope = $1 AND version > $2 AND version <= $3',
    [scope, since, version],
    { prepare: true },
  );
  const changed = logged.map((r) => Number(r.reservation_id));
  const current = changed.length === 0 ? [] : await rows(db, 'scope = $1 AND id = ANY($2::int[]) ORDER BY id', [scope, changed]);
  return { scope, since, version, full: false, changed, rows: current.map(toReservation) };
}

export async function heldBy(db: Db, agent: string): Promise<number> {
  const [row] = await db.unsafe<Array<{ n: string }>>('SELECT COUNT(*) AS n FROM reservations WHERE agent = $1', [agent], { prepare: true });
  return Number(row?.n ?? 0);
}

export async function byTask(db: Db): Promise<Map<number, Reservation[]>> {
  const grouped = new Map<number, Reservation[]>();
  for (const reservation of (await rows(db, 'TRUE ORDER BY task_id, id', [])).map(toReservation)) {
    const list = grouped.get(reservation.task_id) ?? [];
    list.push(reservation);
    grouped.set(reservation.task_id, list);
  }
  return grouped;
}

async function add(tx: Tx, row: { taskId: number; claimId: number; agent: string; scope: string; at: string } & NewReservation): Promise<void> {
  await tx`INSERT INTO reservations (task_id, claim_id, agent, scope, pattern, prefix, exclusive, reason, created_at)
    VALUES (${row.taskId}, ${row.claimId}, ${row.agent}, ${row.scope}, ${row.pattern}, ${row.prefix}, ${row.exclusive}, ${row.reason}, ${row.at})
    ON CONFLICT (claim_id, scope, pattern) DO UPDATE SET exclusive = excluded.exclusive, reason = excluded.reason`;
}

/** Adds or removes reservations on the task's current claim as the rule decides, with a history row. */
export async function changeReservations(
  tx: Tx,
  task: Task,
  lookup: ReservationLookup | undefined,
  decide: DecideReservation,
  extras: WriteExtras<Reservation[]> | undefined,
): Promise<Reservation[]> {
  // The scope's lock, then the agent's: the agent's count over all scopes is then exact too (one agent reserving in
  // two scopes at once waits). Always in this order, so two such transactions never wait on each other in a circle.
  if (lookup) {
    await tx`SELECT pg_advisory_xact_lock(hashtext(${`roundtable reservations ${lookup.scope}`}))`;
    await tx`SELECT pg_advisory_xact_lock(hashtext(${`roundtable reservations of ${lookup.agent}`}))`;
  }
  const own = task.claim_id === null ? [] : await ofClaim(tx, task.claim_id);
  // Read under the scope's lock: no other reservation can be added in the scope until this transaction ends.
  const sight = lookup && {
    changes: await changesSince(tx, lookup.scope, lookup.since, await scopeVersion(tx, lookup.scope)),
    agentHolds: await heldBy(tx, lookup.agent),
  };
  const change = decide(task, own, sight);
  const at = new Date().toISOString();
  for (const id of change.remove) await tx`DELETE FROM reservations WHERE id = ${id} AND claim_id = ${change.claimId}`;
  for (const row of change.add) await add(tx, { ...row, taskId: task.id, claimId: change.claimId, agent: change.actor, scope: change.scope, at });
  if (change.add.length === 0 && change.remove.length === 0) return recordExtras(tx, extras, own, task.id);
  await insertActivity(tx, reservationsChangedRow(task, change, at));
  return recordExtras(tx, extras, await ofClaim(tx, change.claimId), task.id);
}
