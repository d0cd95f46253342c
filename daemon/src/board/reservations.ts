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
import type { Agent } from '../agents/directory.js';
import type { ReservationChange } from '../store/store.js';
import { callerOf, warning, writeExtras, type BoardDeps, type CallContext } from './context.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { pathNames, shapeOf } from './overlap.js';
import { decideReleasePaths, decideReserve } from './reservation-rules.js';
import { ScopeIndexes, viewWith, type Holder } from './scope-index.js';

const reservationsOutput = (reservations: Reservation[]) => ({ reservations, ...warning });

export class PathReservations {
  /** Each scope's reservations, indexed in memory and caught up from the store before each call (scope-index.ts). */
  private readonly indexes: ScopeIndexes;

  constructor(private readonly deps: BoardDeps) {
    this.indexes = new ScopeIndexes(deps.store);
  }

  async reservePaths(agent: Agent, input: ToolInput<typeof reservePaths>, ctx: CallContext = {}): Promise<ToolOutput<typeof reservePaths>> {
    const caller = callerOf(this.deps, agent);
    // A claim that just lapsed is reopened first: its reservations end with it and no longer stand in the way.
    await this.deps.leases.sweepIfDue();
    const patterns = [...new Set(input.paths)];
    const scope = input.scope ?? '';
    const call = { patterns, exclusive: input.exclusive ?? true, reason: input.reason ?? null, scope, now: Date.now() };
    let seen: Task | undefined;
    const index = await this.indexes.fresh(scope);
    const reservations = await this.deps.store.changeReservations(
      input.task_id,
      { scope, since: index.version, agent: agent.name },
      (task, own, sight) => decideReserve((seen = task), caller, call, own, { view: viewWith(index, sight!.changes), agentHolds: sight!.agentHolds }),
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
    const limit = input.limit ?? LIMITS.reservationsListDefault;
    const afterId = input.cursor === undefined ? 0 : decodeCursor(input.cursor);
    const index = await this.indexes.fresh(input.scope ?? '');
    const page = input.path === undefined ? index.page(afterId, limit + 1) : index.overlapping(shapeOf(input.path), afterId, limit + 1);
    const more = page.length > limit;
    const reservations = more ? page.slice(0, limit) : page;
    return { reservations, next_cursor: more ? encodeCursor(reservations.at(-1)!.id) : null, ...warning };
  }

  async checkPaths(agent: Agent, input: ToolInput<typeof checkPaths>): Promise<ToolOutput<typeof checkPaths>> {
    await this.deps.leases.sweepIfDue();
    const index = await this.indexes.fresh(input.scope ?? '');
    // A path given twice (or two spellings of one, by case or Unicode form) is looked up once.
    const looked = new Map<string, Holder[]>();
    return {
      paths: input.paths.map((path) => {
        const names = pathNames(path);
        const key = names.join('/');
        let holders = looked.get(key);
        if (!holders) looked.set(key, (holders = index.holders(names, agent.name)));
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
