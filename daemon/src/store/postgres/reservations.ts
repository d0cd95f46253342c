// Path reservations on PostgreSQL: the same lookups as SQLite's sqlite/reservations.ts. Changes in one scope are
// serialized by an advisory lock on the scope, so two claims cannot both take overlapping exclusive paths.
import type { Reservation, Task } from 'roundtable-shared';
import { pathsReleasedRow, reservationsChangedRow, type EndedClaim } from '../history-rows.js';
import { distinctReservations, nearReads, toReservation, type ReservationRow } from '../reservation-rows.js';
import type { DecideReservation, NewReservation, ReservationLookup, WriteExtras } from '../store.js';
import { insertActivity } from './activity.js';
import { recordExtras } from './audit.js';
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

/** A superset of the live reservations that may overlap a pattern with one of the lookup's keys; each once. */
export async function near(db: Db, lookup: ReservationLookup): Promise<Reservation[]> {
  const reads = nearReads(lookup);
  if (reads.wholeScope) return distinctReservations(await rows(db, 'scope = $1', [lookup.scope]));
  const lists: ReservationRow[][] = [];
  for (const { from, past } of reads.under) lists.push(await rows(db, 'scope = $1 AND prefix > $2 AND prefix < $3', [lookup.scope, from, past]));
  lists.push(await rows(db, 'scope = $1 AND prefix = ANY($2::text[])', [lookup.scope, [...reads.at]]));
  return distinctReservations(lists.flat());
}

export async function page(db: Db, scope: string, afterId: number, limit: number): Promise<Reservation[]> {
  return (await rows(db, 'scope = $1 AND id > $2 ORDER BY id LIMIT $3', [scope, afterId, limit])).map(toReservation);
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
  if (lookup) await tx`SELECT pg_advisory_xact_lock(hashtext(${`roundtable reservations ${lookup.scope}`}))`;
  const own = task.claim_id === null ? [] : await ofClaim(tx, task.claim_id);
  const change = decide(task, own, lookup ? await near(tx, lookup) : []);
  const at = new Date().toISOString();
  for (const id of change.remove) await tx`DELETE FROM reservations WHERE id = ${id} AND claim_id = ${change.claimId}`;
  for (const row of change.add) await add(tx, { ...row, taskId: task.id, claimId: change.claimId, agent: change.actor, scope: change.scope, at });
  if (change.add.length === 0 && change.remove.length === 0) return recordExtras(tx, extras, own, task.id);
  await insertActivity(tx, reservationsChangedRow(task, change, at));
  return recordExtras(tx, extras, await ofClaim(tx, change.claimId), task.id);
}

/** Inside a transaction that ended a claim: deletes its reservations and, if it had any, says so in the history. */
export async function endReservations(tx: Tx, ended: EndedClaim): Promise<void> {
  const count = (await tx`DELETE FROM reservations WHERE claim_id = ${ended.claimId}`).count;
  if (count > 0) await insertActivity(tx, pathsReleasedRow(ended, count));
}
