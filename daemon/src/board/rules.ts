// The board's rules as pure decisions: given the caller and the task as stored, return the change or throw why not.
// Role mode: the leader creates, reviews and cancels; workers claim. Peer mode: every peer creates and claims,
// any peer but the submitter reviews, the creator cancels. Observers only read, in either mode. Owners (people, in
// either mode) do what the leader does on any task, whatever the mode, and never claim.
import { FINAL_STATUSES, SKILL_PATTERN, type BoardMode, type Task, type Verdict } from 'roundtable-shared';
import type { Agent, AgentDirectory } from '../agents/directory.js';
import { Conflict, Forbidden, InvalidInput, StaleClaim } from '../errors.js';
import type { TaskChange } from '../store/store.js';

export interface Caller {
  readonly agent: Agent;
  readonly mode: BoardMode;
}

function describe(agent: Agent): string {
  return `you are ${agent.name}, ${agent.role === 'leader' ? 'the' : indefinite(agent.role)} ${agent.role}`;
}

export function requireNotObserver({ agent }: Caller, action: string): void {
  if (agent.role === 'observer') throw new Forbidden(`observers only read; ${describe(agent)} and may not ${action}`);
}

/** An owner is a person at the table: it plans, reviews and steers, in either mode, and never claims. */
export function isOwner(agent: Agent): boolean {
  return agent.role === 'owner';
}

/** Whether the live page offers this agent's session its actions (forms and buttons); see requirePageActor. */
export function mayActOnPage(agent: Agent): boolean {
  return isOwner(agent);
}

/**
 * The live page's actions are for people: an owner's session acts through it; any other session only watches (an
 * agent acts through its own app's tools).
 */
export function requirePageActor(agent: Agent): void {
  if (!mayActOnPage(agent)) {
    throw new Forbidden(`the board page's actions are for owners; ${describe(agent)}, so this session only watches. Act through your agent app's tools`);
  }
}

/** Whether the caller steers every task: the leader (role mode) and owners (either mode). */
export function steersAll({ agent, mode }: Caller): boolean {
  return isOwner(agent) || (mode === 'role' && agent.role === 'leader');
}

export function requireCreator(caller: Caller): void {
  requireNotObserver(caller, 'create tasks');
  if (caller.mode === 'role' && !steersAll(caller)) throw new Forbidden(`only the leader or an owner may create tasks; ${describe(caller.agent)}`);
}

/** Whether the caller claims tasks at all: a worker in role mode, a peer in peer mode. Owners and observers never do. */
export function mayClaim({ agent, mode }: Caller): boolean {
  return mode === 'role' ? agent.role === 'worker' : agent.role === 'peer';
}

/** Which submissions the caller reviews: the leader and owners all of them; a peer those of others; anyone else none. */
export function reviewScope(caller: Caller): 'all' | 'others' | 'none' {
  if (steersAll(caller)) return 'all';
  return caller.mode === 'peer' && caller.agent.role === 'peer' ? 'others' : 'none';
}

export function requireClaimer(caller: Caller): void {
  requireNotObserver(caller, 'claim tasks');
  if (isOwner(caller.agent)) throw new Forbidden(`owners never claim, submit or reserve paths; ${describe(caller.agent)}. Assign the task to a member instead`);
  if (!mayClaim(caller)) throw new Forbidden(`only workers may claim tasks; ${describe(caller.agent)}`);
}

export function requireReviewer(caller: Caller): void {
  requireNotObserver(caller, 'review tasks');
  if (reviewScope(caller) === 'none') throw new Forbidden(`only the leader or an owner may review tasks; ${describe(caller.agent)}`);
}

/**
 * Who steers a task: the leader and owners any task; in peer mode a peer the tasks it created. They edit it, cancel it
 * and release a claim someone else holds on it.
 */
export function maySteer(task: Task, caller: Caller): boolean {
  return steersAll(caller) || (caller.mode === 'peer' && caller.agent.role === 'peer' && task.created_by === caller.agent.name);
}

/** Who may be assigned a task at creation: a worker in role mode, a peer in peer mode. */
export function checkAssignee(assignee: Agent | undefined, name: string, mode: BoardMode): void {
  if (!assignee) throw new InvalidInput(`assignee: no agent is called "${name}"; list_agents shows the names`);
  const expected = mode === 'role' ? 'worker' : 'peer';
  if (assignee.role !== expected) throw new InvalidInput(`assignee: "${name}" is ${assignee.role === 'leader' ? 'the' : 'an'} ${assignee.role}; only a ${expected} can be assigned a task`);
}

export function missingSkills(task: { readonly required_skills: readonly string[] }, agent: Agent): string[] {
  return task.required_skills.filter((skill) => !agent.skills.includes(skill));
}

/**
 * "the skill x", "the skills x, y": a skill is a plain name by rule (SKILL_PATTERN: no spaces, controls or escapes),
 * so a message may name it as it names agents (SPEC §1, §5). A task stored before that rule may hold others: those
 * are counted, never quoted.
 */
export function namedSkills(skills: readonly string[]): string {
  const plain = skills.filter((skill) => SKILL_PATTERN.test(skill));
  const others = skills.length - plain.length;
  const named = plain.length ? `${plain.length === 1 ? 'the skill' : 'the skills'} ${plain.join(', ')}` : '';
  const counted = others ? `${others} skill${others === 1 ? '' : 's'} named before the naming rule (get_task shows ${others === 1 ? 'it' : 'them'})` : '';
  return [named, counted].filter(Boolean).join(' and ');
}

/** What a holder's call says about its claim: the claim_id it sent, if any, and the time of the call. */
export interface HolderCall {
  readonly claimId?: number | undefined;
  readonly now: number;
}

/** A claim whose lease ran out is lapsed, even in the moment before the sweep reopens it. */
export function leaseLapsed(task: Task, now: number): boolean {
  return task.status === 'claimed' && task.lease_expires_at !== null && Date.parse(task.lease_expires_at) <= now;
}

/** Fencing: a claim_id that is not the task's current claim refuses the call, whatever else is true. */
function requireCurrentClaim(task: Task, call: HolderCall): void {
  if (call.claimId !== undefined && (task.claim_id !== call.claimId || leaseLapsed(task, call.now))) {
    throw new StaleClaim(task.id, call.claimId, `claim ${call.claimId} is not the current claim on task ${task.id}; it is ${task.status}`);
  }
}

/** Claims last `lease.ttlMs` from `lease.now` unless renewed. */
export function decideClaim(task: Task, caller: Caller, lease: { readonly now: number; readonly ttlMs: number }): TaskChange {
  requireClaimer(caller);
  const { agent } = caller;
  if (task.status !== 'open') {
    const holder = task.assignee === agent.name ? 'you already hold it' : `it is ${task.status}${task.assignee ? ` by ${task.assignee}` : ''}`;
    throw new Conflict(`task ${task.id} cannot be claimed: ${holder}. list_tasks with claimable_by_me shows what you can claim`);
  }
  if (task.blocked_by.length > 0) {
    const ids = task.blocked_by.map((id) => `task ${id}`).join(', ');
    throw new Conflict(`task ${task.id} cannot be claimed yet: it waits on ${ids}, not done yet. list_tasks with claimable_by_me shows what you can claim`);
  }
  if (task.assignee !== null && task.assignee !== agent.name) {
    throw new Forbidden(`task ${task.id} is reserved for ${task.assignee}; only that member may claim it`);
  }
  const missing = missingSkills(task, agent);
  if (missing.length > 0) {
    throw new Forbidden(
      `task ${task.id} needs ${namedSkills(missing)}, which you do not have; an owner or the leader may change its required_skills (update_task) or give you the skill. list_tasks with claimable_by_me shows what you can claim`,
    );
  }
  return { actor: agent.name, action: 'claimed', status: 'claimed', assignee: agent.name, lease: { expiresAt: new Date(lease.now + lease.ttlMs).toISOString() } };
}

function requireHolder(task: Task, agent: Agent, verb: 'release' | 'submit', call: HolderCall): void {
  requireCurrentClaim(task, call);
  if (task.status !== 'claimed') {
    throw new Conflict(`task ${task.id} is ${task.status}, not claimed; only a claimed task can be ${verb === 'release' ? 'released' : 'submitted'}`);
  }
  if (task.assignee !== agent.name) {
    const others = verb === 'release' ? ', or the leader or an owner (in peer mode: its creator, or an owner) with a note' : '';
    throw new Forbidden(`task ${task.id} is claimed by ${task.assignee ?? 'nobody'}; only its assignee may ${verb} it${others}`);
  }
  if (leaseLapsed(task, call.now)) throw new StaleClaim(task.id, task.claim_id, `your claim on task ${task.id} lapsed at ${task.lease_expires_at}`);
}

/** Who may release a task someone else holds (a crashed agent's): whoever steers it (maySteer). */
export function mayForceRelease(task: Task, caller: Caller): boolean {
  return maySteer(task, caller);
}

/**
 * Release returns the task to the open pool; it is then claimable by any qualified member. The holder releases its
 * own; the leader or an owner (peer mode: the creator, or an owner) may release another's, and must say why.
 */
export function decideRelease(task: Task, caller: Caller, call: HolderCall & { readonly note: string | null }): TaskChange {
  const { agent } = caller;
  if (task.status === 'claimed' && task.assignee !== agent.name && mayForceRelease(task, caller)) {
    requireCurrentClaim(task, call);
    if (call.note === null || !/\S/.test(call.note)) {
      throw new InvalidInput(`note: required to release task ${task.id}, which ${task.assignee ?? 'someone'} holds; say why (it is kept in the task's history)`);
    }
    return { actor: agent.name, action: 'released', status: 'open', assignee: null, note: call.note };
  }
  requireHolder(task, agent, 'release', call);
  return { actor: agent.name, action: 'released', status: 'open', assignee: null, note: call.note };
}

/**
 * The agents whose claims a new agents.json takes back: those it removes, and those whose new role may not claim
 * (a worker made an observer keeps no task it could neither submit nor release).
 */
export function losersOfClaims(previous: AgentDirectory, current: AgentDirectory): Array<{ name: string; why: string }> {
  const losers: Array<{ name: string; why: string }> = [];
  for (const old of previous.list()) {
    const now = current.find(old.name);
    if (!now) losers.push({ name: old.name, why: `${old.name} was removed from agents.json` });
    else if (!mayClaim({ agent: now, mode: current.mode })) losers.push({ name: old.name, why: `${old.name} became ${indefinite(now.role)} ${now.role}, who does not claim tasks` });
  }
  return losers;
}

function indefinite(role: string): string {
  return /^[aeiou]/.test(role) ? 'an' : 'a';
}

/** agents.json no longer lets the agent hold claims (see losersOfClaims): a task it held goes back to the open pool. */
export function decideReleaseOfRevoked(task: Task, name: string, why: string): TaskChange {
  if (task.status !== 'claimed' || task.assignee !== name) throw new Conflict(`task ${task.id} is no longer claimed by ${name}`);
  return { actor: 'roundtable', action: 'released', status: 'open', assignee: null, note: why };
}

export function decideSubmit(task: Task, { agent }: Caller, result: string, call: HolderCall): TaskChange {
  requireHolder(task, agent, 'submit', call);
  // The result is also kept in the history, so a later rejection and resubmission loses nothing.
  return { actor: agent.name, action: 'submitted', status: 'submitted', assignee: agent.name, result, note: result };
}

/**
 * Several may review one submission (the leader and owners, in role mode): the first decision wins. The one that
 * comes second finds the task no longer submitted, and is told whose decision it was (from the newest review, when
 * the store has one after the task's last submission).
 */
export function reviewRefusal(task: Task, latest: { readonly reviewer: string; readonly verdict: Verdict; readonly created_at: string } | undefined): Conflict {
  if (!latest) return new Conflict(`task ${task.id} is ${task.status}, not submitted; only a submitted task can be reviewed`);
  const decision = latest.verdict === 'approve' ? 'approved' : 'rejected';
  return new Conflict(
    `task ${task.id} was already ${decision} by ${latest.reviewer} at ${latest.created_at}; the first review of a submission wins. It is ${task.status} now: get_task ${task.id} shows the review`,
  );
}

export function decideReview(task: Task, caller: Caller, verdict: Verdict, note: string | null): TaskChange {
  requireReviewer(caller);
  const { agent } = caller;
  if (task.status !== 'submitted') throw new Conflict(`task ${task.id} is ${task.status}, not submitted; only a submitted task can be reviewed`);
  if (caller.mode === 'peer' && task.assignee === agent.name) {
    throw new Forbidden(`task ${task.id} was submitted by you; another member must review it`);
  }
  const review = { verdict, note, submitter: task.assignee };
  if (verdict === 'reject') {
    if (note === null || !/\S/.test(note)) throw new InvalidInput('note: required to reject; say what should change');
    return { actor: agent.name, action: 'rejected', status: 'open', assignee: null, result: null, note, review };
  }
  return { actor: agent.name, action: 'approved', status: 'done', assignee: task.assignee, note, review };
}

export function decideCancel(task: Task, caller: Caller, reason: string | null): TaskChange {
  requireNotObserver(caller, 'cancel tasks');
  const { agent } = caller;
  if (caller.mode === 'role' && !steersAll(caller)) throw new Forbidden(`only the leader or an owner may cancel tasks; ${describe(agent)}`);
  if (!maySteer(task, caller)) {
    throw new Forbidden(`task ${task.id} was created by ${task.created_by}; in peer mode only its creator or an owner may cancel it`);
  }
  if (FINAL_STATUSES.includes(task.status)) throw new Conflict(`task ${task.id} is already ${task.status}; a final task cannot be cancelled`);
  return { actor: agent.name, action: 'cancelled', status: 'cancelled', assignee: task.assignee, note: reason };
}

/** Anyone may post on an unfinished task; with a claim_id, only while that claim is current. */
export function checkCanPost(task: Task, call: HolderCall): void {
  requireCurrentClaim(task, call);
  if (FINAL_STATUSES.includes(task.status)) throw new Conflict(`task ${task.id} is ${task.status}; messages cannot be added to a final task`);
}
