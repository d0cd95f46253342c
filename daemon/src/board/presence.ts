// Who is around, and waiting for activity without polling.
import { LIMITS, WAIT_CATEGORIES, type PresenceState, type ToolInput, type ToolOutput, type WaitCategory, type members, type waitForActivity } from 'roundtable-shared';
import type { Agent } from '../agents/directory.js';
import { setTimeout as delay } from 'node:timers/promises';
import { CursorAhead, CursorExpired, RateLimited, Unauthorized } from '../errors.js';
import type { BoardEvent, LoggedEvent } from '../events.js';
import { comparePositions, type LogPosition } from '../store/event-log.js';
import { decodeChangeCursor, encodeChangeCursor } from './change-cursor.js';
import type { PendingCounts, PendingQuery } from '../store/store.js';
import { callerOf, warning, type BoardDeps, type CallContext } from './context.js';
import { strandedScope } from './editing.js';
import { mayClaim, missingSkills, reviewScope } from './rules.js';
import type { SharedWaiting } from '../store/shared-waiting.js';
import { ActivityWaiters, type Concern, type WaitOutcome } from './waiters.js';

export const ACTIVE_MS = 2 * 60_000;
export const IDLE_MS = 15 * 60_000;
/**
 * wait_for_activity calls one agent may have open at once on a daemon, as its event streams are capped: a bridge,
 * a `wake` watcher and a retry need three; thousands would be an attack on memory, sockets and every wake's cost.
 */
export const WAITS_PER_AGENT = 8;
/** A parked wait ends within LIMITS.waitMaxS; by then one of the agent's waits has answered. */
const WAIT_RETRY_AFTER_S = 10;
/** With since: at most this many changes in one answer (its cursor stops at the last one told). */
const MAX_CHANGES = 100;
/** With since: log rows read per query, and queries per look, so a far-behind cursor is caught up in bounded steps. */
const SCAN_PAGE_ROWS = 500;
const SCAN_PAGES = 20;
/** PostgreSQL: a committed row waits for an older transaction to end; looked for again this soon (store/postgres/event-log.ts). */
const HELD_RETRY_MS = 20;

export class Presence {
  readonly waiters: ActivityWaiters;
  /** One evaluation of what waits for an agent, shared by all its waiters woken by the same event. */
  private readonly evaluating = new Map<string, Promise<PendingCounts>>();
  /** wait_for_activity calls open per agent on this daemon (WAITS_PER_AGENT). */
  private readonly openWaits = new Map<string, number>();
  private cursorKey: Promise<Buffer> | undefined;

  /** `shared`: on several daemons (PostgreSQL), who waits on any of them; absent on one daemon, where memory is the truth. */
  constructor(
    private readonly deps: BoardDeps,
    private readonly shared?: SharedWaiting,
  ) {
    this.waiters = new ActivityWaiters({
      events: deps.events,
      concerns: (event) => this.concerned(event),
      onWaitingChanged: shared && (() => shared.waitingHere(this.waiters.agents())),
    });
  }

  async members(_agent: Agent, _input: ToolInput<typeof members>): Promise<ToolOutput<typeof members>> {
    const agents = this.deps.agents().list();
    const names = agents.map((a) => a.name);
    const [presence, held] = await Promise.all([this.presenceOf(names), this.deps.store.holdings(names)]);
    // Only the held tasks' reservations: a claim's reservations end with it, so nothing else can be shown.
    const heldIds = [...held.values()].flat().map((h) => h.id);
    const reserved = new Map(await Promise.all(heldIds.map(async (id) => [id, await this.deps.store.reservationsOf(id)] as const)));
    return {
      members: agents.map((a) => {
        const { state, waiting, last } = presence(a.name);
        return {
          name: a.name,
          role: a.role,
          skills: [...a.skills],
          state,
          waiting,
          last_seen: last > 0 ? new Date(last).toISOString() : null,
          holding: (held.get(a.name) ?? []).map((h) => ({
            ...h,
            reservations: (reserved.get(h.id) ?? []).map((r) => ({ pattern: r.pattern, scope: r.scope, exclusive: r.exclusive })),
          })),
        };
      }),
      ...warning,
    };
  }

  /** Each member's presence alone, without what it holds (the page's overview counts the active agents). */
  async states(): Promise<Array<{ name: string; role: Agent['role']; state: PresenceState }>> {
    const agents = this.deps.agents().list();
    const presence = await this.presenceOf(agents.map((a) => a.name));
    return agents.map((a) => ({ name: a.name, role: a.role, state: presence(a.name).state }));
  }

  /** Reads when the named members last called and who is waiting, and tells each one's presence from that. */
  private async presenceOf(names: readonly string[]): Promise<(name: string) => { state: PresenceState; waiting: boolean; last: number }> {
    const [seen, elsewhere] = await Promise.all([this.deps.store.lastSeen(names), this.shared?.waitingAnywhere(names)]);
    const now = Date.now();
    return (name) => {
      const lastCall = seen.get(name);
      // Parked here, or on another daemon of the board; a wait that ended left its audit row, so lastCall covers it.
      const waiting = this.waiters.isWaiting(name) || elsewhere?.has(name) === true;
      const last = waiting ? now : Math.max(lastCall ? Date.parse(lastCall) : 0, this.waiters.lastWait(name) ?? 0);
      const state: PresenceState = waiting || now - last < ACTIVE_MS ? 'active' : last > 0 && now - last < IDLE_MS ? 'idle' : 'gone';
      return { state, waiting, last };
    };
  }

  async waitForActivity(agent: Agent, input: ToolInput<typeof waitForActivity>, ctx: CallContext = {}): Promise<ToolOutput<typeof waitForActivity>> {
    const open = this.openWaits.get(agent.name) ?? 0;
    if (open >= WAITS_PER_AGENT) {
      throw new RateLimited(WAIT_RETRY_AFTER_S, `wait_for_activity calls open at once for agent ${agent.name} (the limit is ${WAITS_PER_AGENT} on this daemon; one ends when it answers)`);
    }
    this.openWaits.set(agent.name, open + 1);
    try {
      return await this.awaitActivity(agent, input, ctx);
    } finally {
      const left = (this.openWaits.get(agent.name) ?? 1) - 1;
      if (left > 0) this.openWaits.set(agent.name, left);
      else this.openWaits.delete(agent.name);
    }
  }

  /** One wait_for_activity call, within its slot. */
  private async awaitActivity(agent: Agent, input: ToolInput<typeof waitForActivity>, ctx: CallContext): Promise<ToolOutput<typeof waitForActivity>> {
    const started = Date.now();
    const deadline = started + (input.timeout_s ?? LIMITS.waitDefaultS) * 1000;
    // Only what the caller waits for ends or wakes the wait: a worker waiting for tasks is not held up by the room.
    const about: ReadonlySet<WaitCategory> = new Set(input.for ?? WAIT_CATEGORIES);
    const query = this.pendingQuery(agent);
    if (input.since !== undefined) return this.awaitChanges(agent, input.since, { started, deadline, about, query, ctx });
    // The cursor is read before the board: a change after it is told again next time rather than missed.
    const head = await this.deps.store.eventLogHead();
    let pending = await this.deps.store.pendingFor(query);
    let reason: 'pending' | 'activity' | 'timeout' = 'pending';
    this.deps.events.publish({ type: 'presence', agent: agent.name });
    try {
      // Woken by an event that concerns the caller, look again: it may already have been taken by someone else.
      while (!hasPending(pending, about)) {
        const remaining = deadline - Date.now();
        if (remaining <= 0) {
          reason = 'timeout';
          break;
        }
        const woke = await this.waiters.wait(agent.name, { timeoutMs: remaining, about, signal: ctx.signal });
        if (woke === 'revoked') throw revokedWhileWaiting();
        if (woke === 'aborted') break;
        pending = await this.pendingOnce(query);
        reason = woke === 'activity' ? 'activity' : 'timeout';
        if (woke === 'timeout') break;
      }
    } finally {
      this.deps.events.publish({ type: 'presence', agent: agent.name });
    }
    return this.answer(agent, { pending, about, reason: !hasPending(pending, about) ? 'timeout' : reason, started, cursor: head });
  }

  /**
   * wait_for_activity with since: edge-triggered. The event log after the cursor is read for changes that concern the
   * caller; with none, the wait parks (registered before the read, so a change committed meanwhile still wakes it) and
   * reads on from where it stopped. Older items still pending do not answer it.
   */
  private async awaitChanges(agent: Agent, since: string, wait: ChangeWait): Promise<ToolOutput<typeof waitForActivity>> {
    const { deadline, about, ctx } = wait;
    let position = decodeChangeCursor(await this.secret(), since);
    let changes: Change[] = [];
    this.deps.events.publish({ type: 'presence', agent: agent.name });
    try {
      for (;;) {
        const parked = new AbortController();
        const leave = () => parked.abort();
        ctx.signal?.addEventListener('abort', leave, { once: true });
        const remaining = deadline - Date.now();
        const woke = remaining > 0 ? this.waiters.wait(agent.name, { timeoutMs: remaining, about, signal: parked.signal }) : Promise.resolve<WaitOutcome>('timeout');
        let scan: Scan;
        try {
          scan = await this.scanChanges(agent.name, position, about);
        } catch (error) {
          parked.abort();
          await woke;
          throw error;
        } finally {
          ctx.signal?.removeEventListener('abort', leave);
        }
        position = scan.end;
        if (scan.changes.length > 0) {
          changes = scan.changes;
          parked.abort();
          await woke;
          break;
        }
        if (scan.more) {
          parked.abort();
          await woke;
          continue;
        }
        // A committed row behind a transaction still running (PostgreSQL): readable when it ends, so look again soon.
        const how = scan.held ? await Promise.race([woke, delay(HELD_RETRY_MS).then(() => 'held' as const)]) : await woke;
        parked.abort();
        if (how === 'held') continue;
        if (how === 'revoked') throw revokedWhileWaiting();
        if (how === 'timeout' || ctx.signal?.aborted === true) break;
      }
    } finally {
      this.deps.events.publish({ type: 'presence', agent: agent.name });
    }
    const pending = await this.deps.store.pendingFor(wait.query);
    return { ...(await this.answer(agent, { pending, about, reason: changes.length > 0 ? 'activity' : 'timeout', started: wait.started, cursor: position })), changes };
  }

  /** The log after a position: the changes that concern this agent in these categories, up to MAX_CHANGES. */
  private async scanChanges(name: string, from: LogPosition, about: ReadonlySet<WaitCategory>): Promise<Scan> {
    const changes: Change[] = [];
    let end = from;
    let held = false;
    for (let pages = 0; pages < SCAN_PAGES; pages++) {
      const page = await this.deps.store.readEvents(end, SCAN_PAGE_ROWS);
      if (page.expired) {
        // The log also counts a position past its newest row as expired; that one is not old but from a newer copy.
        if (comparePositions(end, await this.deps.store.eventLogHead()) > 0) {
          throw new CursorAhead(
            'since: this cursor is ahead of the event log: the board was restored from an older copy, so the changes it names are not on this board; leave since out to read the board as it stands, and use the cursor that answer gives',
          );
        }
        throw new CursorExpired(
          'since: this cursor is older than the event log keeps (ROUNDTABLE_EVENT_LOG_MAX_ROWS, ROUNDTABLE_EVENT_LOG_MAX_AGE; docs/SPEC.md), so what came after it is gone; leave since out to read the board as it stands, and use the cursor that answer gives',
        );
      }
      held = page.held;
      for (const entry of page.entries) {
        end = entry.position;
        const concern = this.concerned(entry.event).find((c) => c.agent === name && about.has(c.about));
        if (concern) changes.push(changeOf(entry.event));
        if (changes.length >= MAX_CHANGES) return { changes, end, held: false, more: true };
      }
      if (!page.more) return { changes, end, held, more: false };
    }
    return { changes, end, held, more: true };
  }

  /** The board's cursor key, read once. */
  private secret(): Promise<Buffer> {
    this.cursorKey ??= this.deps.store.eventLogSecret().catch((error: unknown) => {
      this.cursorKey = undefined;
      throw error;
    });
    return this.cursorKey;
  }

  /** The answer's shape, either kind of wait. */
  private async answer(agent: Agent, a: { pending: PendingCounts; about: ReadonlySet<WaitCategory>; reason: 'pending' | 'activity' | 'timeout'; started: number; cursor: LogPosition }): Promise<ToolOutput<typeof waitForActivity>> {
    const { pending, about } = a;
    // Reviews are news, told once: only a caller that waits for them is told, so the others keep them for later.
    const reviews = about.has('reviews') ? pending.reviews : [];
    const lastReview = reviews.at(-1);
    if (lastReview) await this.deps.store.markReviewsSeen(agent.name, lastReview.id);
    // Stranded tasks need the caller's hand (only it may edit them), so they get a reason of their own.
    const stranded = about.has('tasks') ? [...(pending.strandedTasks ?? [])] : [];
    return {
      reason: a.reason !== 'timeout' && stranded.length > 0 ? 'blocker_cancelled' : a.reason,
      unread_messages: pending.unreadMessages,
      claimable_tasks: pending.claimableTasks,
      to_review: pending.toReview,
      reviews: reviews.map((r) => ({ task_id: r.task_id, verdict: r.verdict, reviewer: r.reviewer, created_at: r.created_at })),
      waited_ms: Date.now() - a.started,
      stranded_tasks: stranded,
      cursor: encodeChangeCursor(await this.secret(), a.cursor),
    };
  }

  /**
   * An event wakes all of an agent's waiters in one go; they look once between them (the first asks the store, the
   * rest share its answer until it settles), so a wake costs one evaluation per agent, not one per waiter.
   */
  private pendingOnce(query: PendingQuery): Promise<PendingCounts> {
    const running = this.evaluating.get(query.agent);
    if (running) return running;
    const evaluation = this.deps.store.pendingFor(query).finally(() => this.evaluating.delete(query.agent));
    this.evaluating.set(query.agent, evaluation);
    return evaluation;
  }

  private pendingQuery(agent: Agent): PendingQuery {
    const caller = callerOf(this.deps, agent);
    return { agent: agent.name, skills: agent.skills, claims: mayClaim(caller), reviews: reviewScope(caller), stranded: strandedScope(caller) };
  }

  /** The agents a board event may have given something to do, and in which category. */
  private concerned(event: BoardEvent): Concern[] {
    const directory = this.deps.agents();
    const mode = directory.mode;
    const agents = directory.list();
    const about = (category: WaitCategory) => (name: string): Concern => ({ agent: name, about: category });
    const submitter = event.type === 'task' && event.submitter ? [about('reviews')(event.submitter)] : [];
    switch (event.type) {
      case 'room': {
        const to = event.to === 'all' ? agents.map((a) => a.name) : event.to;
        return to.filter((n) => n !== event.from).map(about('messages'));
      }
      case 'task': {
        const { task } = event;
        if (event.action === 'blocker_cancelled') {
          // Whoever may edit the stranded task: the leader, or in peer mode its creator.
          return agents.filter((a) => strandedScope({ agent: a, mode }) === 'all' || a.name === task.created_by).map((a) => about('tasks')(a.name));
        }
        if (task.status === 'open' && task.blocked === true) return submitter;
        if (task.status === 'open') {
          const claimers = agents.filter((a) => mayClaim({ agent: a, mode }));
          return claimers
            .filter((a) => (task.assignee === null || task.assignee === a.name) && missingSkills(task, a).length === 0)
            .map((a) => about('tasks')(a.name))
            .concat(submitter);
        }
        if (task.status === 'submitted') {
          return agents
            .filter((a) => reviewScope({ agent: a, mode }) === 'all' || (reviewScope({ agent: a, mode }) === 'others' && a.name !== task.assignee))
            .map((a) => about('tasks')(a.name));
        }
        return submitter;
      }
      case 'resync':
        // Events may have been missed (the database listener reconnected, and its log could not be replayed): every
        // waiter looks again. A replayed resync delivered what was missed as events already.
        if (event.replayed === true) return [];
        return agents.flatMap((a) => WAIT_CATEGORIES.map((category) => about(category)(a.name)));
      default:
        return [];
    }
  }
}

/** What wait_for_activity with since tells of one change: ids and an action, never board text. */
type Change = string;

interface Scan {
  readonly changes: Change[];
  readonly end: LogPosition;
  readonly held: boolean;
  /** Rows remain unread past `end`: read on before parking. */
  readonly more: boolean;
}

interface ChangeWait {
  readonly started: number;
  readonly deadline: number;
  readonly about: ReadonlySet<WaitCategory>;
  readonly query: PendingQuery;
  readonly ctx: CallContext;
}

/** One change as wait_for_activity tells it: task:ID:ACTION, task_message:TASK_ID or room:MESSAGE_ID. */
function changeOf(event: LoggedEvent): string {
  switch (event.type) {
    case 'task':
      return `task:${event.task.id}:${event.action}`;
    case 'task_message':
      return `task_message:${event.task_id}`;
    case 'room':
      return `room:${event.message_id}`;
  }
}

function revokedWhileWaiting(): Unauthorized {
  return new Unauthorized(
    'your token was removed or rotated in agents.json while you waited, so this wait ended and nothing more is answered for it; ask the board owner for a valid token',
  );
}

/** Whether something the caller waits for is there: tasks covers both claiming and reviewing others' work. */
function hasPending(p: PendingCounts, about: ReadonlySet<WaitCategory>): boolean {
  return (
    (about.has('messages') && p.unreadMessages > 0) ||
    (about.has('tasks') && (p.claimableTasks > 0 || p.toReview > 0 || (p.strandedTasks?.length ?? 0) > 0)) ||
    (about.has('reviews') && p.reviews.length > 0)
  );
}
