// One entry point for every tool call from either face: rate limit, strict input parsing, the board call, the audit row.
import { findTool, type ToolDefinition } from 'roundtable-shared';
import type { z } from 'zod';
import type { Agent } from '../agents.js';
import { asBoardError, InvalidInput, NotFound, RateLimited } from '../errors.js';
import { log } from '../log.js';
import type { RateLimiter } from '../rate-limit.js';
import type { BoardStore } from '../store/store.js';
import type { Board } from './board.js';

type Handler = (agent: Agent, input: never) => Promise<Record<string, unknown>>;

export interface ToolDispatcherOptions {
  readonly board: Board;
  readonly store: BoardStore;
  readonly limiter: RateLimiter;
}

export class ToolDispatcher {
  private readonly handlers: Readonly<Record<string, Handler>>;

  constructor(private readonly options: ToolDispatcherOptions) {
    const b = options.board;
    this.handlers = {
      whoami: b.whoami.bind(b),
      list_agents: b.listAgents.bind(b),
      create_task: b.createTask.bind(b),
      list_tasks: b.listTasks.bind(b),
      get_task: b.getTask.bind(b),
      claim_task: b.claimTask.bind(b),
      release_task: b.releaseTask.bind(b),
      post_message: b.postMessage.bind(b),
      submit_result: b.submitResult.bind(b),
      review_task: b.reviewTask.bind(b),
      cancel_task: b.cancelTask.bind(b),
    };
  }

  /** Runs one tool call for an authenticated agent; throws a BoardError, never anything else. */
  async call(agent: Agent, toolName: string, args: unknown): Promise<Record<string, unknown>> {
    const tool = findTool(toolName);
    const handler = this.handlers[toolName];
    const taskId = taskIdOf(args);
    let outcome = 'ok';
    let auditTaskId = taskId;
    try {
      if (!tool || !handler) throw new NotFound(`no tool is called "${toolName}"; tools/list shows the tools there are`);
      const wait = this.options.limiter.take(agent.name);
      if (wait > 0) throw new RateLimited(wait);
      const input = parseInput(tool, args);
      const output = await handler(agent, input as never);
      auditTaskId ??= taskIdOf(output['task']);
      return output;
    } catch (error) {
      const boardError = asBoardError(error);
      if (boardError !== error) log.error('tool call failed unexpectedly', { tool: toolName, agent: agent.name, error: String((error as Error)?.stack ?? error) });
      outcome = boardError.code;
      throw boardError;
    } finally {
      await this.options.store
        .appendAudit({ agent: agent.name, tool: tool ? tool.name : 'unknown_tool', taskId: auditTaskId ?? null, outcome })
        .catch((error: unknown) => log.error('audit write failed', { tool: toolName, error: String(error) }));
    }
  }
}

function parseInput(tool: ToolDefinition, args: unknown): z.infer<ToolDefinition['input']> {
  const parsed = tool.input.safeParse(args ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return `unknown argument${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}: ${tool.name} takes only ${Object.keys(tool.input.shape).join(', ') || 'no arguments'}; your identity comes from your token`;
    }
    const field = issue.path.map(String).join('.');
    if (issue.code === 'invalid_type' && issue.input === undefined) return `${field}: required`;
    return issue.message.startsWith(field.split('.')[0] ?? '') || issue.message.startsWith('each ') ? issue.message : `${field || 'arguments'}: ${issue.message}`;
  });
  throw new InvalidInput(`invalid arguments for ${tool.name}: ${problems.join('; ')}. Nothing was changed`);
}

function taskIdOf(value: unknown): number | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  const id = record['task_id'] ?? record['id'];
  return typeof id === 'number' && Number.isSafeInteger(id) ? id : undefined;
}
