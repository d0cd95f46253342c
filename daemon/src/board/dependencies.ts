// Dependency rules as pure decisions over what the store read: which proposed blockers are refused, and why.
import { InvalidInput } from '../errors.js';
import type { DependencyEdge, DependencyFacts } from '../store/store.js';

/**
 * A path of depends_on edges from `from` to `to` (both included), or undefined. Breadth first, so the path named
 * is a shortest one; each task is visited once, so the cost is the number of edges handed in.
 */
export function dependencyPath(edges: readonly DependencyEdge[], from: number, to: number): number[] | undefined {
  const next = new Map<number, number[]>();
  for (const edge of edges) {
    const list = next.get(edge.task_id) ?? [];
    list.push(edge.depends_on);
    next.set(edge.task_id, list);
  }
  const cameFrom = new Map<number, number>([[from, from]]);
  const queue = [from];
  for (let i = 0; i < queue.length; i++) {
    const at = queue[i]!;
    if (at === to) {
      const path = [to];
      while (path[0] !== from) path.unshift(cameFrom.get(path[0]!)!);
      return path;
    }
    for (const onto of next.get(at) ?? []) {
      if (!cameFrom.has(onto)) {
        cameFrom.set(onto, at);
        queue.push(onto);
      }
    }
  }
  return undefined;
}

const list = (ids: readonly number[]) => ids.map((id) => `task ${id}`).join(', ');

/**
 * Refuses, naming the ids: an unknown task, the task itself, a cancelled task (it will never be done), and any
 * edge that would close a cycle (the cycle is named). `taskId` is null for a task not created yet: nothing can
 * wait on it, so it can close no cycle. Done blockers are accepted: they block nothing.
 */
export function checkDependencies(taskId: number | null, proposed: readonly number[], facts: DependencyFacts): void {
  const problems: string[] = [];
  if (taskId !== null && proposed.includes(taskId)) problems.push(`task ${taskId} cannot depend on itself`);
  const others = proposed.filter((id) => id !== taskId);
  const unknown = others.filter((id) => !facts.statuses.has(id));
  if (unknown.length > 0) problems.push(`${list(unknown)} ${unknown.length > 1 ? 'do' : 'does'} not exist (list_tasks shows the tasks there are)`);
  const cancelled = others.filter((id) => facts.statuses.get(id) === 'cancelled');
  if (cancelled.length > 0) problems.push(`${list(cancelled)} ${cancelled.length > 1 ? 'were' : 'was'} cancelled and will never be done`);
  if (taskId !== null) {
    for (const id of others) {
      const path = dependencyPath(facts.edges, id, taskId);
      if (path) problems.push(`task ${id} already depends on task ${taskId}, so this would close the cycle ${[taskId, ...path].join(' -> ')}`);
    }
  }
  if (problems.length > 0) throw new InvalidInput(`depends_on: ${problems.join('; ')}. Leave those ids out and call again; nothing was changed`);
}
