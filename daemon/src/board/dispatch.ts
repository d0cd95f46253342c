// One entry point for every tool call from either face: rate limit, strict input parsing, the board call, the audit row.
import { createHash } from 'node:crypto';
import { findTool, IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_KEY_TTL_MS, LIMITS, type ToolDefinition } from 'roundtable-shared';
import type { z } from 'zod';
import type { Agent } from '../agents/directory.js';
import { asBoardError, Conflict, InvalidInput, NotFound, RateLimited, Unavailable, type BoardError } from '../errors.js';
import { requestLine, log } from '../runtime/log.js';
import type { RateLimit } from '../runtime/rate-limit.js';
import { withCallDeadline } from '../store/call-deadline.js';
import { AuditTicket, IdempotencyKeyTaken, type BoardStore, type Face, type LeaseRenewal } from '../store/store.js';
import type { Board, CallContext, IdempotencyClaim } from './board.js';
import type { Leases } from './leases.js';
import type { Presence } from './presence.js';
import type { PathReservations } from './reservations.js';
import type { Room } from './room.js';
import { requirePageActor } from './rules.js';
import { searchBoard } from './search.js';

type Handler = (agent: Agent, input: never, ctx: CallContext) => Promise<Record<string, unknown>>;

export interface CallOptions {
  /** From the Idempotency-Key header: a retried mutation with the same key is answered from the first response. */
  readonly idempotencyKey?: string;
  /** The HTTP request's id, for the log line. */
  readonly requestId?: string;
  /** Aborted when the client goes away, so a waiting call stops waiting. */
  readonly signal?: AbortSignal;
  /** False for a watcher's calls (WATCHER_HEADER): they are no sign that the agent lives, so they renew no lease. */
  readonly renewsLeases?: boolean;
  /** The face the call came through, kept in its audit row; 'web' calls are an owner's page actions. */
  readonly face?: Face;
}

export interface ToolDispatcherOptions {
  readonly board: Board;
  readonly room: Room;
  readonly presence: Presence;
  readonly store: BoardStore;
  readonly leases: Leases;
  readonly limiter: RateLimit;
  readonly reservations: PathReservations;
  /** ROUNDTABLE_DB_DEADLINE: how long one call's database work may take (default 10 s). */
  readonly callDeadlineMs?: number;
}

const DEFAULT_CALL_DEADLINE_MS = 10_000;
/**
 * wait_for_activity keeps its own timeout whatever the database does: its database work (the looks at the board before
 * and after, the audit row) must be done this soon after the timeout, or the call is answered `unavailable`.
 */
export const WAIT_GRACE_MS = 1_000;

export class ToolDispatcher {
  private readonly handlers: Readonly<Record<string, Handler>>;

  constructor(private readonly options: ToolDispatcherOptions) {
    const b = options.board;
    const r = options.room;
    const p = options.presence;
    this.handlers = {
      post: r.post.bind(r),
      read_unread: r.readUnread.bind(r),
      read_log: r.readLog.bind(r),
      delivery_status: r.deliveryStatus.bind(r),
      members: p.members.bind(p),
      wait_for_activity: p.waitForActivity.bind(p),
      whoami: b.whoami.bind(b),
      list_agents: b.listAgents.bind(b),
      create_task: b.createTask.bind(b),
      list_tasks: b.listTasks.bind(b),
      get_task: b.getTask.bind(b),
      search: (agent: Agent, input: never) => searchBoard(options.store, agent, input),
      claim_task: b.claimTask.bind(b),
      release_task: b.releaseTask.bind(b),
      post_message: b.postMessage.bind(b),
      submit_result: b.submitResult.bind(b),
      review_task: b.reviewTask.bind(b),
      cancel_task: b.cancelTask.bind(b),
      update_task: b.updateTask.bind(b),
      reserve_paths: options.reservations.reservePaths.bind(options.reservations),
      release_paths: options.reservations.releasePaths.bind(options.reservations),
      list_reservations: options.reservations.listReservations.bind(options.reservations),
      check_paths: options.reservations.checkPaths.bind(options.reservations),
    };
  }

  /**
   * Runs one tool call for an authenticated agent; throws a BoardError, never anything else. Every database round trip
   * it makes ends by the call's deadline (ROUNDTABLE_DB_DEADLINE; a wait's own timeout and a little more).
   */
  call(agent: Agent, toolName: string, args: unknown, options: CallOptions = {}): Promise<Record<string, unknown>> {
    return withCallDeadline(Date.now() + this.budgetMs(toolName, args), () => this.run(agent, toolName, args, options));
  }

  private budgetMs(toolName: string, args: unknown): number {
    if (toolName !== 'wait_for_activity') return this.options.callDeadlineMs ?? DEFAULT_CALL_DEADLINE_MS;
    const asked = (args as { timeout_s?: unknown } | null)?.timeout_s;
    const timeoutS = typeof asked === 'number' && asked >= 0 && asked <= LIMITS.waitMaxS ? asked : LIMITS.waitDefaultS;
    return timeoutS * 1000 + WAIT_GRACE_MS;
  }

  private async run(agent: Agent, toolName: string, args: unknown, options: CallOptions): Promise<Record<string, unknown>> {
    const tool = findTool(toolName);
    const handler = this.handlers[toolName];
    const taskId = taskIdOf(args);
    let outcome = 'ok';
    let auditTaskId = taskId;
    // A successful write records its audit row in its own transaction; everything else is appended below.
    let ticket: AuditTicket | undefined;
    let renewal: LeaseRenewal | undefined;
    // Where a failure came: before the handler and after a read nothing was changed, whatever the database said.
    let stage: 'before' | 'handler' | 'after' = 'before';
    let output: Record<string, unknown> | undefined;
    let failure: BoardError | undefined;
    /** The call's own row was sent and its commit never answered: it may be in the log already. */
    let rowMayStand = false;
    const started = performance.now();
    try {
      if (!tool || !handler) throw new NotFound(`no tool is called "${toolName}"; tools/list shows the tools there are`);
      const wait = await this.options.limiter.take(agent.name);
      if (wait > 0) throw new RateLimited(wait);
      if (options.face === 'web') requirePageActor(agent);
      const input = parseInput(tool, args);
      const claim = options.idempotencyKey !== undefined && tool.mutates ? idempotencyClaim(agent, tool, input, options.idempotencyKey) : undefined;
      // A successful call shows the agent is alive: it renews every claim the agent holds (at most once per
      // renewEveryMs), in the call's own commit, so a renewal never fails unseen: the call fails with it.
      if (options.renewsLeases !== false) renewal = this.options.leases.renewalDue(agent.name);
      output = claim ? await this.replay(claim) : undefined;
      if (output) {
        outcome = 'replayed';
        auditTaskId ??= taskIdOf(output['task']);
      } else {
        if (tool.mutates) ticket = new AuditTicket({ agent: agent.name, tool: tool.name, taskId: taskId ?? null, face: options.face }, renewal);
        stage = 'handler';
        try {
          output = await handler(agent, input as never, callContext(claim, ticket, options));
        } catch (error) {
          if (!claim) throw error;
          // A concurrent request with the same key won; ours was rolled back, so answer with its response.
          if (error instanceof IdempotencyKeyTaken) {
            stage = 'after';
            output = (await this.replay(claim))!;
          } else {
            // A retry that ran beside the first try (PostgreSQL: it waited on the task's row lock, then found the change
            // made) is refused by the rule; if the first try's answer is stored now, that answer is this call's too.
            if (!(error instanceof Conflict)) throw error;
            const stored = await this.replay(claim);
            if (!stored) throw error;
            stage = 'after';
            output = stored;
          }
          outcome = 'replayed';
        }
        auditTaskId ??= taskIdOf(output['task']);
      }
      // The row of a call that wrote nothing (a read, a replay), with its renewal, is durable before the answer: a
      // call answered without its row would break docs/SPEC.md §7, so if the row cannot be written the call fails.
      if (!ticket?.written) {
        if (stage === 'before' || !tool.mutates || outcome === 'replayed') stage = 'after';
        await this.options.store.appendAudit({ agent: agent.name, tool: tool.name, taskId: auditTaskId ?? null, outcome, face: options.face }, renewal).catch((error: unknown) => {
          // Its commit went unanswered, so the row may stand: no failure row may follow it.
          if (error instanceof Unavailable && error.applied === 'unknown') rowMayStand = true;
          throw error;
        });
      }
    } catch (error) {
      failure = asBoardError(error);
      if (failure !== error) log.error('tool call failed unexpectedly', { tool: toolName, agent: agent.name, error: String((error as Error)?.stack ?? error) });
      // Nothing of the call's own was sent yet, or all it did was read: whatever the database said, nothing changed.
      if (failure instanceof Unavailable && (stage === 'before' || (stage === 'after' && (!tool?.mutates || outcome === 'replayed')))) failure = failure.unchanged();
      if (renewal) this.options.leases.renewalFailed(renewal);
      outcome = failure.code;
    }
    requestLine('tool call', {
      request_id: options.requestId,
      agent: agent.name,
      tool: tool?.name ?? 'unknown_tool',
      task_id: auditTaskId,
      outcome,
      face: options.face,
      duration_ms: Math.round((performance.now() - started) * 10) / 10,
    });
    if (!failure) return output!;
    const row = { agent: agent.name, tool: tool ? tool.name : 'unknown_tool', taskId: auditTaskId ?? null, outcome, face: options.face };
    // A change whose commit went unanswered may stand, with its own `ok` row, and so may a read's row whose commit
    // went unanswered: a failure row beside it would be a second row for one call. The log keeps the call instead
    // (docs/SPEC.md §7).
    if (rowMayStand || (failure instanceof Unavailable && failure.applied === 'unknown')) {
      log.error('audit row not written: a commit of this call went unanswered, so its row may stand; no second row is written', auditFields(row));
      throw failure;
    }
    // A failed write was rolled back, its audit row with it: this row is the call's only one.
    await this.options.store.appendAudit(row).catch((error: unknown) => {
      // The database that could not take the call cannot take its row either: the log keeps it (docs/SPEC.md §7).
      log.error('audit row not written: the database could not take it (or never answered its commit); this line stands for it', { ...auditFields(row), error: reasonOf(error) });
    });
    throw failure;
  }

  private async replay(claim: IdempotencyClaim): Promise<Record<string, unknown> | undefined> {
    const stored = await this.options.store.findResponse(claim.agent, claim.key, claim.expiredBefore);
    if (!stored) return undefined;
    if (stored.requestHash !== claim.requestHash) {
      throw new InvalidInput(
        `Idempotency-Key "${claim.key}" was already used for a different call (${stored.tool}); send a fresh key with every new call, and the same key only when retrying the same call`,
      );
    }
    return JSON.parse(stored.response) as Record<string, unknown>;
  }
}

/** The handler's context; the request's signal is read only if the handler reads it (only a wait does). */
function callContext(claim: IdempotencyClaim | undefined, ticket: AuditTicket | undefined, options: CallOptions): CallContext {
  const ctx = { ...(claim && { idempotency: claim }), ...(ticket && { audit: ticket }) };
  if (!('signal' in options)) return ctx;
  return Object.defineProperty(ctx, 'signal', { get: () => options.signal, enumerable: true });
}

function auditFields(row: { agent: string; tool: string; taskId: number | null; outcome: string }): Record<string, unknown> {
  return { agent: row.agent, tool: row.tool, task_id: row.taskId, outcome: row.outcome };
}

/** Why a row could not be written, in our words: an Unavailable's reason, or only the class of anything else. */
function reasonOf(error: unknown): string {
  return error instanceof Unavailable ? error.reason : error instanceof Error ? error.name : 'unknown';
}

function idempotencyClaim(agent: Agent, tool: ToolDefinition, input: unknown, key: string): IdempotencyClaim {
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw new InvalidInput('Idempotency-Key header: use 1-200 letters, digits, ".", "_", ":" or "-" (a UUID is ideal)');
  }
  const requestHash = createHash('sha256').update(`${tool.name}\n${JSON.stringify(input)}`).digest('hex');
  return { agent: agent.name, key, tool: tool.name, requestHash, expiredBefore: new Date(Date.now() - IDEMPOTENCY_KEY_TTL_MS).toISOString() };
}

/** A tool's arguments checked against its input schema; refused (InvalidInput) naming each field. The page's reads use it too. */
export function parseInput(tool: ToolDefinition, args: unknown): z.infer<ToolDefinition['input']> {
  const parsed = tool.input.safeParse(args ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys' && issue.path.length > 0) {
      const where = issue.path.map(String).join('.');
      return `${where}: unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}; see ${tool.name}'s input schema for the fields ${where} takes`;
    }
    if (issue.code === 'unrecognized_keys') {
      return `unknown argument${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}: ${tool.name} takes only ${Object.keys(tool.input.shape).join(', ') || 'no arguments'}; your identity comes from your token`;
    }
    const field = issue.path.map(String).join('.');
    // zod does not report the input on an issue, so whether the argument was given is read from the arguments.
    if (issue.code === 'invalid_type' && valueAt(args, issue.path) === undefined) return `${field}: required`;
    return issue.message.startsWith(field.split('.')[0] ?? '') || issue.message.startsWith('each ') ? issue.message : `${field || 'arguments'}: ${issue.message}`;
  });
  throw new InvalidInput(`invalid arguments for ${tool.name}: ${problems.join('; ')}. Nothing was changed`);
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let at = value;
  for (const key of path) {
    if (!at || typeof at !== 'object' || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}

function taskIdOf(value: unknown): number | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  const id = record['task_id'] ?? record['id'];
  return typeof id === 'number' && Number.isSafeInteger(id) ? id : undefined;
}
