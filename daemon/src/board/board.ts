// The board's operations, one per tool: check the caller, apply the rule through the store, shape the answer.
import {
  LIMITS,
  UNTRUSTED_CONTENT_WARNING,
  type Message,
  type Task,
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
  type whoami,
} from 'roundtable-shared';
import type { Agent, AgentDirectory } from '../agents.js';
import { NotFound } from '../errors.js';
import type { BoardStore, ResponseRecord } from '../store/store.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import {
  checkAssignee,
  checkCanPost,
  decideCancel,
  decideClaim,
  decideRelease,
  decideReview,
  decideSubmit,
  requireLeader,
  requireWorker,
} from './rules.js';

export interface BoardOptions {
  readonly store: BoardStore;
  /** The current agent directory; a getter so a reloaded agents.json takes effect at once. */
  readonly agents: () => AgentDirectory;
  readonly boardName: string;
}

const warning = { untrusted_content_warning: UNTRUSTED_CONTENT_WARNING } as const;

/** An idempotency key the caller sent with a mutation; the store records the response under it. */
export interface IdempotencyClaim {
  readonly agent: string;
  readonly key: string;
  readonly tool: string;
  readonly requestHash: string;
  readonly expiredBefore: string;
}

export interface CallContext {
  readonly idempotency?: IdempotencyClaim;
}

function withRender<T>(ctx: CallContext, render: (result: T) => object): ResponseRecord<T> | undefined {
  return ctx.idempotency && { ...ctx.idempotency, render: (result: T) => JSON.stringify(render(result)) };
}

const taskOutput = (task: Task) => ({ task, ...warning });
const messageOutput = (message: Message) => ({ message, ...warning });

export class Board {
  constructor(private readonly options: BoardOptions) {}

  private get store(): BoardStore {
    return this.options.store;
  }

  async whoami(agent: Agent, _input: ToolInput<typeof whoami>): Promise<ToolOutput<typeof whoami>> {
    return { name: agent.name, role: agent.role, skills: [...agent.skills], board: this.options.boardName };
  }

  async listAgents(_agent: Agent, _input: ToolInput<typeof listAgents>): Promise<ToolOutput<typeof listAgents>> {
    const agents = this.options.agents().list();
    const seen = await this.store.lastSeen(agents.map((a) => a.name));
    return { agents: agents.map((a) => ({ name: a.name, role: a.role, skills: [...a.skills], last_seen: seen.get(a.name) ?? null })) };
  }

  async createTask(agent: Agent, input: ToolInput<typeof createTask>, ctx: CallContext = {}): Promise<ToolOutput<typeof createTask>> {
    requireLeader(agent, 'create tasks');
    if (input.assignee !== undefined) checkAssignee(this.options.agents().find(input.assignee), input.assignee);
    const task = await this.store.createTask({
      title: input.title,
      description: input.description ?? '',
      requiredSkills: [...new Set(input.required_skills ?? [])],
      assignee: input.assignee ?? null,
      createdBy: agent.name,
    }, withRender(ctx, taskOutput));
    return taskOutput(task);
  }

  async listTasks(agent: Agent, input: ToolInput<typeof listTasks>): Promise<ToolOutput<typeof listTasks>> {
    const limit = input.limit ?? LIMITS.listDefault;
    const page = await this.store.listTasks({
      ...(input.status !== undefined && { status: input.status }),
      ...(input.assignee !== undefined && { assignee: input.assignee }),
      ...(input.claimable_by_me === true && { claimableBy: { name: agent.name, skills: agent.skills } }),
      afterId: input.cursor === undefined ? 0 : decodeCursor(input.cursor),
      limit,
    });
    // Only workers claim; a leader asking for claimable tasks gets none rather than a misleading list.
    const tasks = input.claimable_by_me === true && agent.role !== 'worker' ? [] : page.tasks;
    const nextCursor = tasks.length && page.lastId !== null ? encodeCursor(page.lastId) : null;
    return { tasks, next_cursor: nextCursor, ...warning };
  }

  async getTask(_agent: Agent, input: ToolInput<typeof getTask>): Promise<ToolOutput<typeof getTask>> {
    const detail = await this.store.getTask(input.task_id);
    if (!detail) throw new NotFound(`task ${input.task_id} does not exist; list_tasks shows the tasks there are`);
    return { ...detail, ...warning };
  }

  async claimTask(agent: Agent, input: ToolInput<typeof claimTask>, ctx: CallContext = {}): Promise<ToolOutput<typeof claimTask>> {
    requireWorker(agent, 'claim tasks');
    const task = await this.store.claimTask(input.task_id, (t) => decideClaim(t, agent), withRender(ctx, taskOutput));
    return taskOutput(task);
  }

  async releaseTask(agent: Agent, input: ToolInput<typeof releaseTask>, ctx: CallContext = {}): Promise<ToolOutput<typeof releaseTask>> {
    const task = await this.store.releaseTask(input.task_id, (t) => decideRelease(t, agent), withRender(ctx, taskOutput));
    return taskOutput(task);
  }

  async postMessage(agent: Agent, input: ToolInput<typeof postMessage>, ctx: CallContext = {}): Promise<ToolOutput<typeof postMessage>> {
    const message = await this.store.postMessage(
      input.task_id,
      checkCanPost,
      { author: agent.name, kind: input.kind, text: input.text },
      withRender(ctx, messageOutput),
    );
    return messageOutput(message);
  }

  async submitResult(agent: Agent, input: ToolInput<typeof submitResult>, ctx: CallContext = {}): Promise<ToolOutput<typeof submitResult>> {
    const task = await this.store.submitResult(input.task_id, (t) => decideSubmit(t, agent, input.result), withRender(ctx, taskOutput));
    return taskOutput(task);
  }

  async reviewTask(agent: Agent, input: ToolInput<typeof reviewTask>, ctx: CallContext = {}): Promise<ToolOutput<typeof reviewTask>> {
    requireLeader(agent, 'review tasks');
    const task = await this.store.reviewTask(input.task_id, (t) => decideReview(t, agent, input.verdict, input.note ?? null), withRender(ctx, taskOutput));
    return taskOutput(task);
  }

  async cancelTask(agent: Agent, input: ToolInput<typeof cancelTask>, ctx: CallContext = {}): Promise<ToolOutput<typeof cancelTask>> {
    requireLeader(agent, 'cancel tasks');
    const task = await this.store.cancelTask(input.task_id, (t) => decideCancel(t, agent, input.reason ?? null), withRender(ctx, taskOutput));
    return taskOutput(task);
  }
}
