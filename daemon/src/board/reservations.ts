// Path reservations, one method per tool: check the caller, apply the rule through the store, shape the answer.
import {
  LIMITS,
  type Reservation,
  type ToolInput,
  type ToolOutput,
  type checkPaths,
  type listReservations,
  type releasePaths,
  type reservePaths,
  type Task,
} from 'roundtable-shared';
import type { Agent } from '../agents.js';
import type { ReservationChange } from '../store/store.js';
import { callerOf, warning, writeExtras, type BoardDeps, type CallContext } from './context.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { holdsPath, literalPrefix, patternsOverlap } from './overlap.js';
import { decideReleasePaths, decideReserve } from './reservation-rules.js';

const reservationsOutput = (reservations: Reservation[]) => ({ reservations, ...warning });

export class PathReservations {
  constructor(private readonly deps: BoardDeps) {}

  async reservePaths(agent: Agent, input: ToolInput<typeof reservePaths>, ctx: CallContext = {}): Promise<ToolOutput<typeof reservePaths>> {
    const caller = callerOf(this.deps, agent);
    // A claim that just lapsed is reopened first: its reservations end with it and no longer stand in the way.
    await this.deps.leases.sweepIfDue();
    const patterns = [...new Set(input.paths)];
    const scope = input.scope ?? '';
    const call = { patterns, exclusive: input.exclusive ?? true, reason: input.reason ?? null, scope, now: Date.now() };
    let seen: Task | undefined;
    const reservations = await this.deps.store.changeReservations(
      input.task_id,
      { scope, prefixes: patterns.map(literalPrefix) },
      (task, own, nearby) => decideReserve((seen = task), caller, call, own, nearby),
      writeExtras(ctx, reservationsOutput),
    );
    this.published(agent, seen!, 'paths_reserved');
    return reservationsOutput(reservations);
  }

  async releasePaths(agent: Agent, input: ToolInput<typeof releasePaths>, ctx: CallContext = {}): Promise<ToolOutput<typeof releasePaths>> {
    const caller = callerOf(this.deps, agent);
    const call = { patterns: input.paths, scope: input.scope, now: Date.now() };
    let change: ReservationChange | undefined;
    let seen: Task | undefined;
    const render = (left: Reservation[]) => ({ released: change?.remove.length ?? 0, reservations: left, ...warning });
    const left = await this.deps.store.changeReservations(
      input.task_id,
      undefined,
      (task, own) => (change = decideReleasePaths((seen = task), caller, call, own)),
      writeExtras(ctx, render),
    );
    this.published(agent, seen!, 'paths_released');
    return render(left);
  }

  async listReservations(_agent: Agent, input: ToolInput<typeof listReservations>): Promise<ToolOutput<typeof listReservations>> {
    const scope = input.scope ?? '';
    const limit = input.limit ?? LIMITS.reservationsListDefault;
    const afterId = input.cursor === undefined ? 0 : decodeCursor(input.cursor);
    let page: Reservation[];
    if (input.path === undefined) {
      page = await this.deps.store.listReservations(scope, afterId, limit + 1);
    } else {
      const path = input.path;
      const near = await this.deps.store.reservationsNear({ scope, prefixes: [literalPrefix(path)] });
      page = near.filter((r) => r.id > afterId && patternsOverlap(r.pattern, path)).slice(0, limit + 1);
    }
    const more = page.length > limit;
    const reservations = more ? page.slice(0, limit) : page;
    return { reservations, next_cursor: more ? encodeCursor(reservations.at(-1)!.id) : null, ...warning };
  }

  async checkPaths(agent: Agent, input: ToolInput<typeof checkPaths>): Promise<ToolOutput<typeof checkPaths>> {
    await this.deps.leases.sweepIfDue();
    const scope = input.scope ?? '';
    const exclusive = (await this.deps.store.reservationsNear({ scope, prefixes: [...new Set(input.paths.map(literalPrefix))] })).filter(
      (r) => r.exclusive && r.agent !== agent.name,
    );
    return {
      paths: input.paths.map((path) => {
        const holders = exclusive
          .filter((r) => holdsPath(r.pattern, path))
          .map((r) => ({ agent: r.agent, task_id: r.task_id, claim_id: r.claim_id, pattern: r.pattern }));
        return { path, held: holders.length > 0, holders };
      }),
      ...warning,
    };
  }

  /** Tells live views the task's reservations changed (ids and states only; its state did not change). */
  private published(agent: Agent, task: Task, action: string): void {
    this.deps.events.publish({
      type: 'task',
      action,
      actor: agent.name,
      task: { id: task.id, status: task.status, assignee: task.assignee, required_skills: task.required_skills },
    });
  }
}
