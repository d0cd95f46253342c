// Path reservations as pure decisions: who may reserve or release, what conflicts, and what to write.
import { LIMITS, type Reservation, type Task } from 'roundtable-shared';
import { Conflict, Forbidden, InvalidInput, StaleClaim } from '../errors.js';
import type { NewReservation, ReservationChange } from '../store/store.js';
import { literalPrefix, shapeOf } from './overlap.js';
import type { ReservationView } from './scope-index.js';
import { isOwner, leaseLapsed, requireNotObserver, type Caller } from './rules.js';

export interface ReserveCall {
  /** Distinct patterns, as given. */
  readonly patterns: readonly string[];
  readonly exclusive: boolean;
  readonly reason: string | null;
  /** '' is the default scope. */
  readonly scope: string;
  readonly now: number;
}

export interface ReleasePathsCall {
  /** Absent: every reservation the claim holds (in `scope` if given). */
  readonly patterns: readonly string[] | undefined;
  readonly scope: string | undefined;
  readonly now: number;
}

/** What reserve_paths sees of the board: the reservations around the scope, and how many the caller holds in all. */
export interface ReserveSight {
  readonly view: ReservationView;
  readonly agentHolds: number;
}

const MAX_CONFLICTS_NAMED = 5;

/** Only the task's current holder, with an unlapsed claim, reserves or releases its paths. */
function requireHolderOfPaths(task: Task, caller: Caller, now: number, verb: string): number {
  requireNotObserver(caller, `${verb} paths`);
  const { agent } = caller;
  if (isOwner(agent)) throw new Forbidden(`owners never claim, so never ${verb} paths; you are ${agent.name}, an owner. Paths are reserved by a claim's holder`);
  if (task.status !== 'claimed' || task.claim_id === null) {
    throw new Conflict(`task ${task.id} is ${task.status}, not claimed; paths are reserved for a claim, so claim_task it first`);
  }
  if (task.assignee !== agent.name) {
    throw new Forbidden(`task ${task.id} is claimed by ${task.assignee ?? 'nobody'}; only its holder may ${verb} paths for it`);
  }
  if (leaseLapsed(task, now)) throw new StaleClaim(task.id, task.claim_id, `your claim on task ${task.id} lapsed at ${task.lease_expires_at}; claim it again`);
  return task.claim_id;
}

// The scope is the caller's text: an error names it only as given or not (board text stays out of our words).
const scopeWords = (scope: string) => (scope === '' ? 'the default scope' : 'the scope given');

/**
 * An exclusive reservation conflicts with any overlapping reservation of another agent; a shared one with an
 * overlapping exclusive one. The caller's own reservations (on any of its tasks) never conflict with it. A refusal
 * names the other reservations by id, holder and task, never by their patterns: those are another agent's text.
 */
export function decideReserve(task: Task, caller: Caller, call: ReserveCall, own: readonly Reservation[], sight: ReserveSight): ReservationChange {
  const claimId = requireHolderOfPaths(task, caller, call.now, 'reserve');
  const { agent } = caller;
  const held = new Set(own.filter((r) => (r.scope ?? '') === call.scope).map((r) => r.pattern));
  const fresh = call.patterns.filter((p) => !held.has(p)).length;
  if (own.length + fresh > LIMITS.reservationsPerTask) {
    throw new InvalidInput(
      `paths: task ${task.id} would hold ${own.length + fresh} reservations; the limit is ${LIMITS.reservationsPerTask} a claim. Reserve folder patterns such as src/auth/** instead, or release_paths some first. Nothing was reserved`,
    );
  }
  if (sight.agentHolds + fresh > LIMITS.reservationsPerAgent) {
    throw new InvalidInput(
      `paths: ${agent.name} would hold ${sight.agentHolds + fresh} reservations; the limit is ${LIMITS.reservationsPerAgent} an agent, over all its claims. Reserve folder patterns such as src/auth/** instead, or release_paths some first. Nothing was reserved`,
    );
  }
  const conflicts: string[] = [];
  for (const [index, pattern] of call.patterns.entries()) {
    const clashes = sight.view.conflicts(shapeOf(pattern), call.exclusive, agent.name, MAX_CONFLICTS_NAMED + 1 - conflicts.length);
    for (const { reservation: other } of clashes) {
      conflicts.push(`paths.${index} overlaps reservation ${other.id}, held ${other.exclusive ? 'exclusively' : 'shared'} by ${other.agent} on task ${other.task_id}`);
    }
    if (conflicts.length > MAX_CONFLICTS_NAMED) break;
  }
  if (conflicts.length > 0) {
    const more = conflicts.length > MAX_CONFLICTS_NAMED ? '; and more' : '';
    throw new Conflict(
      `cannot reserve ${call.exclusive ? 'exclusively' : 'shared'} in ${scopeWords(call.scope)}: ${conflicts.slice(0, MAX_CONFLICTS_NAMED).join('; ')}${more}. Nothing was reserved. list_reservations (with path) or get_task on that task shows them; coordinate with the holder, wait for its claim to end, or reserve other paths`,
    );
  }
  const add: NewReservation[] = call.patterns.map((pattern) => ({ pattern, prefix: literalPrefix(pattern), exclusive: call.exclusive, reason: call.reason }));
  return {
    actor: agent.name,
    claimId,
    scope: call.scope,
    add,
    remove: [],
    action: 'paths_reserved',
    note: `${call.exclusive ? 'exclusive' : 'shared'}${call.scope === '' ? '' : ` in scope ${call.scope}`}: ${call.patterns.join(', ')}`,
  };
}

/** The holder releases the named patterns (each must be held, else nothing is released), or all of them. */
export function decideReleasePaths(task: Task, caller: Caller, call: ReleasePathsCall, own: readonly Reservation[]): ReservationChange {
  const claimId = requireHolderOfPaths(task, caller, call.now, 'release');
  const inScope = call.scope === undefined ? own : own.filter((r) => (r.scope ?? '') === call.scope);
  let chosen: readonly Reservation[] = inScope;
  if (call.patterns !== undefined) {
    const scope = call.scope ?? '';
    const missing: string[] = [];
    chosen = call.patterns.flatMap((pattern, index) => {
      const found = inScope.find((r) => r.pattern === pattern && (r.scope ?? '') === scope);
      if (!found) missing.push(`paths.${index}`);
      return found ? [found] : [];
    });
    if (missing.length > 0) {
      throw new InvalidInput(
        `${missing.join(', ')}: task ${task.id} holds no reservation of that pattern in ${scopeWords(scope)} (give each pattern exactly as reserved; get_task shows them). Nothing was released`,
      );
    }
  }
  return {
    actor: caller.agent.name,
    claimId,
    scope: call.scope ?? '',
    add: [],
    remove: chosen.map((r) => r.id),
    action: 'paths_released',
    note: `${chosen.length} released: ${chosen.map((r) => r.pattern).join(', ')}`,
  };
}
