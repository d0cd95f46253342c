// Identity and task operations, one per tool: check the caller, apply the rule through the store, shape the answer.
import {
  LIMITS,
  type Message,
  type Review,
  type Task,
  type TaskSummary,
  type ToolInput,
  type ToolOutput,
  type cancelTask,
  type claimTask,
  type createTask,
  type getTask,
  type listAgents,
  type listTasks,
  type postMessage,
  type releaseTask,
  type reviewTask,
  type submitResult,
  type updateTask,
  type whoami,
} from 'roundtable-shared';
import type { Agent } from '../agents/directory.js';
import { Conflict, InvalidInput, NotFound } from '../errors.js';
import { taskEvent } from '../events.js';
import type { ItemPage, TaskChange } from '../store/store.js';
import { callerOf, warning, writeExtras, type BoardDeps, type CallContext } from './context.js';
import { claimWarning } from './claimability.js';
import { decodeItemCursor, decodePosition, encodeCursor, encodeItemCursor } from './cursor.js';
import { checkDependencies } from './dependencies.js';
import { decideEdit, requireEditor, requireSomeField, type EditRequest } from './editing.js';
import { fenced } from './fencing.js';
import {
  checkAssignee,
  checkCanPost,
  decideCancel,
  decideClaim,
  decideRelease,
  decideReleaseOfRevoked,
  decideReview,
  decideSubmit,
  mayClaim,
  requireClaimer,
  requireCreator,
  requireNotObserver,
  requireReviewer,
  reviewRefusal,
} from './rules.js';

export type { CallContext, IdempotencyClaim } from './context.js';

const taskOutput = (task: Task) => ({ task, ...warning });
/** History rows read back to find the review a second reviewer lost to (edits and messages may follow it). */
const REVIEW_LOOKBACK = 20;
const messageOutput = (message: Message) => ({ message, ...warning });

export class Board {
  constructor(private readonly deps: BoardDeps) {}

  async whoami(agent: Agent, _input: ToolInput<typeof whoami>): Promise<ToolOutput<typeof whoami>> {
    return { name: agent.name, role: agent.role, skills: [...agent.skills], board: this.deps.boardName(), toolsets: agent.toolsets ? [...agent.toolsets] : null };
  }

  async listAgents(_agent: Agent, _input: ToolInput<typeof listAgents>): Promise<ToolOutput<typeof listAgents>> {
    const agents = this.deps.agents().list();
    const seen = await this.deps.store.lastSeen(agents.map((a) => a.name));
    return { agents: agents.map((a) => ({ name: a.name, role: a.role, skills: [...a.skills], last_seen: seen.get(a.name) ?? null })) };
  }

  /** A created or edited task, with a warning when no member in force can claim it as written. */
  private readonly editedOutput = (task: Task) => {
    const unclaimable = claimWarning(task, this.deps.agents());
    return { ...taskOutput(task), ...(unclaimable && { warnings: [unclaimable] }) };
  };

  async createTask(agent: Agent, input: ToolInput<typeof createTask>, ctx: CallContext = {}): Promise<ToolOutput<typeof createTask>> {
    const caller = callerOf(this.deps, agent);
    requireCreator(caller);
    if (input.assignee !== undefined) checkAssignee(this.deps.agents().find(input.assignee), input.assignee, caller.mode);
    const dependsOn = [...new Set(input.depends_on ?? [])];
    const task = await this.deps.store.createTask(
      {
        title: input.title,
        description: input.description ?? '',
        requiredSkills: [...new Set(input.required_skills ?? [])],
        assignee: input.assignee ?? null,
        createdBy: agent.name,
        priority: input.priority ?? 'normal',
        dependsOn,
      },
      writeExtras(ctx, this.editedOutput),
      (facts) => checkDependencies(null, dependsOn, facts),
    );
    this.published(task, { actor: agent.name, action: 'created' });
    return this.editedOutput(task);
  }

  async listTasks(agent: Agent, input: ToolInput<typeof listTasks>): Promise<ToolOutput<typeof listTasks>> {
    const limit = input.limit ?? LIMITS.listDefault;
    const claims = input.claimable_by_me === true;
    const ready = input.ready === true;
    // The ready set and what one may claim are served most urgent first; other listings keep id order unless asked.
    const order = input.order ?? (ready || claims ? 'priority' : 'id');
    const position = input.cursor === undefined ? { afterId: 0, afterRank: -1 } : decodePosition(input.cursor, order);
    const page = await this.deps.store.listTasks({
      ...(input.status !== undefined && { status: input.status }),
      ...(input.assignee !== undefined && { assignee: input.assignee }),
      ...(claims && { claimableBy: { name: agent.name, skills: agent.skills } }),
      ...(ready && { ready }),
      order,
      afterId: position.afterId,
      ...(position.afterRank !== undefined && { afterRank: position.afterRank }),
      limit,
    });
    // Only claimers claim; anyone else asking for claimable tasks gets none rather than a misleading list.
    const tasks = claims && !mayClaim(callerOf(this.deps, agent)) ? [] : page.tasks;
    const nextCursor = tasks.length && page.lastId !== null ? encodeCursor(page.lastId, order === 'priority' ? (page.lastRank ?? 0) : null) : null;
    return { tasks, next_cursor: nextCursor, ...warning };
  }

  async getTask(_agent: Agent, input: ToolInput<typeof getTask>): Promise<ToolOutput<typeof getTask>> {
    const messages = itemPage('messages', input.order, input.messages_cursor, input.messages_limit);
    const history = itemPage('history', input.order, input.history_cursor, input.history_limit);
    const detail = await this.deps.store.taskView(input.task_id, { messages, history }, input.include_patch === true);
    if (!detail) throw new NotFound(`task ${input.task_id} does not exist; list_tasks shows the tasks there are`);
    const { messageCount, moreMessages, historyCount, moreHistory, reservations, work: taskWork, ...shown } = detail;
    const next = (page: ItemPage, more: boolean, rows: ReadonlyArray<{ id: number }>) =>
      more && rows.length > 0 ? encodeItemCursor({ newestFirst: page.newestFirst, from: rows.at(-1)!.id }) : null;
    return {
      ...shown,
      reservations,
      ...warning,
      messages_total: messageCount,
      messages_next_cursor: next(messages, moreMessages, detail.messages),
      history_total: historyCount,
      history_next_cursor: next(history, moreHistory, detail.history),
      work: taskWork.work,
      usage: taskWork.usage,
    };
  }

  async claimTask(agent: Agent, input: ToolInput<typeof claimTask>, ctx: CallContext = {}): Promise<ToolOutput<typeof claimTask>> {
    const caller = callerOf(this.deps, agent);
    requireClaimer(caller);
    const { leases } = this.deps;
    // A claim that just lapsed is reopened first, so it can be claimed at once.
    await leases.sweepIfDue();
    let change: TaskChange | undefined;
    const lease = { now: Date.now(), ttlMs: leases.ttlMs };
    const task = await this.deps.store.claimTask(input.task_id, (t) => (change = decideClaim(t, caller, lease)), writeExtras(ctx, taskOutput));
    leases.granted(Date.parse(task.lease_expires_at!));
    this.published(task, change!);
    return taskOutput(task);
  }

  async releaseTask(agent: Agent, input: ToolInput<typeof releaseTask>, ctx: CallContext = {}): Promise<ToolOutput<typeof releaseTask>> {
    const caller = callerOf(this.deps, agent);
    await this.deps.leases.sweepIfDue();
    let change: TaskChange | undefined;
    const call = { claimId: input.claim_id, note: input.note ?? null, now: Date.now() };
    const task = await fenced(this.deps.store, agent, input.task_id, input.claim_id, () =>
      this.deps.store.releaseTask(input.task_id, (t) => (change = decideRelease(t, caller, call)), writeExtras(ctx, taskOutput)),
    );
    this.published(task, change!);
    return taskOutput(task);
  }

  async postMessage(agent: Agent, input: ToolInput<typeof postMessage>, ctx: CallContext = {}): Promise<ToolOutput<typeof postMessage>> {
    requireNotObserver(callerOf(this.deps, agent), 'post messages');
    const call = { claimId: input.claim_id, now: Date.now() };
    const post = () =>
      this.deps.store.postMessage(
        input.task_id,
        (t) => checkCanPost(t, call),
        { author: agent.name, kind: input.kind, text: input.text },
        writeExtras(ctx, messageOutput),
        input.usage && { usage: input.usage },
      );
    // Only a post that names its claim is fenced; anyone may otherwise post on an unfinished task.
    const message = input.claim_id === undefined ? await post() : await fenced(this.deps.store, agent, input.task_id, input.claim_id, post);
    this.deps.events.publish({ type: 'task_message', task_id: input.task_id, author: agent.name });
    return messageOutput(message);
  }

  async submitResult(agent: Agent, input: ToolInput<typeof submitResult>, ctx: CallContext = {}): Promise<ToolOutput<typeof submitResult>> {
    const caller = callerOf(this.deps, agent);
    await this.deps.leases.sweepIfDue();
    let change: TaskChange | undefined;
    const call = { claimId: input.claim_id, now: Date.now() };
    const task = await fenced(this.deps.store, agent, input.task_id, input.claim_id, () =>
      this.deps.store.submitResult(
        input.task_id,
        (t) => (change = decideSubmit(t, caller, input.result, call)),
        writeExtras(ctx, taskOutput),
        input.work || input.usage ? { work: input.work, usage: input.usage } : undefined,
      ),
    );
    this.published(task, change!);
    return taskOutput(task);
  }

  async reviewTask(agent: Agent, input: ToolInput<typeof reviewTask>, ctx: CallContext = {}): Promise<ToolOutput<typeof reviewTask>> {
    const caller = callerOf(this.deps, agent);
    requireReviewer(caller);
    let change: TaskChange | undefined;
    let notSubmitted: Task | undefined;
    const task = await this.deps.store
      .reviewTask(
        input.task_id,
        (t) => {
          if (t.status !== 'submitted') notSubmitted = t;
          return (change = decideReview(t, caller, input.verdict, input.note ?? null));
        },
        writeExtras(ctx, taskOutput),
      )
      .catch(async (error: unknown) => {
        // Two reviewers on one submission (the leader and an owner): the second is told whose decision won.
        if (!notSubmitted || !(error instanceof Conflict)) throw error;
        throw reviewRefusal(notSubmitted, await this.latestReviewSince(notSubmitted.id));
      });
    this.published(task, change!);
    if (task.status === 'done') await this.publishDependents(task.id, 'unblocked');
    return taskOutput(task);
  }

  async cancelTask(agent: Agent, input: ToolInput<typeof cancelTask>, ctx: CallContext = {}): Promise<ToolOutput<typeof cancelTask>> {
    const caller = callerOf(this.deps, agent);
    requireNotObserver(caller, 'cancel tasks');
    let change: TaskChange | undefined;
    const task = await this.deps.store.cancelTask(input.task_id, (t) => (change = decideCancel(t, caller, input.reason ?? null)), writeExtras(ctx, taskOutput));
    this.published(task, change!);
    await this.publishDependents(task.id, 'blocker_cancelled');
    return taskOutput(task);
  }

  async updateTask(agent: Agent, input: ToolInput<typeof updateTask>, ctx: CallContext = {}): Promise<ToolOutput<typeof updateTask>> {
    const caller = callerOf(this.deps, agent);
    requireEditor(caller);
    const request: EditRequest = {
      title: input.title,
      description: input.description,
      requiredSkills: input.required_skills && [...new Set(input.required_skills)],
      priority: input.priority,
      assignee: input.assignee,
      dependsOn: input.depends_on && [...new Set(input.depends_on)],
    };
    requireSomeField(request);
    if (typeof input.assignee === 'string') checkAssignee(this.deps.agents().find(input.assignee), input.assignee, caller.mode);
    let edited = false;
    const task = await this.deps.store.updateTask(
      input.task_id,
      request.dependsOn,
      (t, facts) => {
        const edit = decideEdit(t, caller, request, facts);
        edited = edit !== null;
        return edit;
      },
      writeExtras(ctx, this.editedOutput),
    );
    // An edit may make the task ready, or claimable by someone new: the event wakes whoever it concerns.
    if (edited) this.published(task, { actor: agent.name, action: 'edited' });
    return this.editedOutput(task);
  }

  /**
   * The newest review of a task, if none of its submissions came after it: the decision a second reviewer lost to.
   * Read after the refusal (the winning review is committed by then), only to word the refusal.
   */
  private async latestReviewSince(taskId: number): Promise<Review | undefined> {
    const detail = await this.deps.store.getTask(taskId, { messages: { newestFirst: true, limit: 0 }, history: { newestFirst: true, limit: REVIEW_LOOKBACK } });
    // A review is the decision on the newest submission only while no later claim or submission followed it.
    for (const row of detail?.history ?? []) {
      if (row.action === 'approved' || row.action === 'rejected') return detail!.reviews.at(-1);
      if (row.action === 'claimed' || row.action === 'submitted') return undefined;
    }
    return undefined;
  }

  /** After a blocker reached a final state: tells waiters and live views about each unfinished dependent. */
  private async publishDependents(taskId: number, action: 'unblocked' | 'blocker_cancelled'): Promise<void> {
    for (const dependent of await this.deps.store.dependentsOf(taskId)) {
      if (action === 'unblocked' && dependent.blocked_by.length > 0) continue;
      this.published(dependent, { actor: 'roundtable', action });
    }
  }

  /** Returns every task an agent may no longer hold to the open pool, noting why; returns their ids. */
  async releaseHeldBy(name: string, why: string): Promise<number[]> {
    const released: number[] = [];
    let afterId = 0;
    for (;;) {
      const page = await this.deps.store.listTasks({ status: 'claimed', assignee: name, afterId, limit: LIMITS.listMax });
      for (const held of page.tasks) {
        try {
          const task = await this.deps.store.releaseTask(held.id, (t) => decideReleaseOfRevoked(t, name, why));
          this.published(task, { actor: 'roundtable', action: 'released' });
          released.push(task.id);
        } catch (error) {
          if (!(error instanceof Conflict)) throw error; // changed meanwhile: nothing to release
        }
      }
      if (page.lastId === null) return released;
      afterId = page.lastId;
    }
  }

  /** Tells waiters and live views what changed (ids and states only). */
  private published(task: TaskSummary, change: Pick<TaskChange, 'actor' | 'action'> & { review?: TaskChange['review'] }): void {
    this.deps.events.publish(taskEvent(task, change));
  }
}

/** The page of a task's messages or history that get_task's arguments ask for; a cursor keeps its page's order. */
function itemPage(list: 'messages' | 'history', order: 'newest_first' | 'oldest_first' | undefined, cursor: string | undefined, limit: number | undefined): ItemPage {
  const newestFirst = order !== 'oldest_first';
  const size = limit ?? LIMITS.taskItemsDefault;
  if (cursor === undefined) return { newestFirst, limit: size };
  const position = decodeItemCursor(`${list}_cursor`, cursor);
  if (order !== undefined && position.newestFirst !== newestFirst) {
    throw new InvalidInput(
      `${list}_cursor continues a ${position.newestFirst ? 'newest_first' : 'oldest_first'} page but order is "${order}"; omit order (a cursor keeps its order) or omit the cursor to start over`,
    );
  }
  return { newestFirst: position.newestFirst, from: position.from, limit: size };
}
