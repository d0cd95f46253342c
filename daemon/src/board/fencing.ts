// Fencing: when a holder's call is refused because its claim is gone, say how it ended, when, and what the task is now.
import type { Agent } from '../agents/directory.js';
import { Conflict, Forbidden, StaleClaim } from '../errors.js';
import type { BoardStore, ClaimRecord } from '../store/store.js';
import { leaseLapsed } from './rules.js';

/**
 * Runs a holder's call (submit, release, post with a claim_id). If it is refused and the caller's claim on the task
 * ended, the refusal becomes a conflict that explains it; any other refusal passes through unchanged.
 */
export async function fenced<T>(store: BoardStore, agent: Agent, taskId: number, claimId: number | undefined, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const lostClaim = error instanceof StaleClaim || (claimId === undefined && (error instanceof Forbidden || error instanceof Conflict));
    if (!lostClaim) throw error;
    throw (await explainLostClaim(store, agent, taskId, claimId)) ?? error;
  }
}

/** Only the task is needed here, none of its messages or history. */
const TASK_ONLY = { messages: { newestFirst: true, limit: 0 }, history: { newestFirst: true, limit: 0 } } as const;

async function explainLostClaim(store: BoardStore, agent: Agent, taskId: number, claimId: number | undefined): Promise<Conflict | undefined> {
  const [claim, detail] = await Promise.all([
    store.findClaim(taskId, claimId !== undefined ? { claimId } : { agent: agent.name }),
    store.getTask(taskId, TASK_ONLY),
  ]);
  if (!detail) return undefined;
  const { task } = detail;
  if (!claim) {
    return claimId === undefined ? undefined : new Conflict(`claim ${claimId} was never a claim on task ${taskId}; send the claim_id that claim_task returned for this task`);
  }
  // Without a claim_id, the plain refusal is clearer when the caller ended its own claim (released or submitted it).
  if (claimId === undefined && claim.lapsedAt === null && claim.ended?.by === agent.name) return undefined;
  const label = claim.agent === agent.name ? `your claim ${claim.claimId}` : `claim ${claim.claimId} (by ${claim.agent})`;
  const now = `The task is now ${task.status}${task.assignee ? ` (${task.status === 'claimed' ? 'claimed' : 'held'} by ${task.assignee}${task.claim_id ? `, claim ${task.claim_id}` : ''})` : ''}.`;
  const next = task.status === 'open' ? ` Call get_task ${taskId} to see what happened, then claim_task to take it again.` : ` Call get_task ${taskId} to see its history.`;
  const ended = howItEnded(claim, task.lease_expires_at !== null && leaseLapsed(task, Date.now()) ? task.lease_expires_at : null);
  if (ended === undefined) return undefined;
  return new StaleClaim(taskId, claim.claimId, `${label} on task ${taskId} ${ended}. ${now}${next}`);
}

/** How a claim ended, in words; undefined while it is current and unlapsed. */
function howItEnded(claim: ClaimRecord, currentLapsedAt: string | null): string | undefined {
  if (claim.lapsedAt !== null) return `lapsed at ${claim.lapsedAt}: no call or heartbeat by its holder renewed it in time`;
  if (!claim.ended) return currentLapsedAt === null ? undefined : `lapsed at ${currentLapsedAt}: no call or heartbeat by its holder renewed it in time`;
  const { action, by, at } = claim.ended;
  switch (action) {
    case 'released':
      return by === claim.agent ? `ended when it was released at ${at}` : `ended when ${by} released it at ${at}`;
    case 'submitted':
      return `ended when it was submitted at ${at}`;
    case 'cancelled':
      return `ended when ${by} cancelled the task at ${at}`;
    default:
      return `ended (${action} by ${by} at ${at})`;
  }
}
