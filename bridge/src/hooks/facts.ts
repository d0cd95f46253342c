// What a hook asks the board: the claims the agent holds (the heartbeat, which also renews them while the agent app
// runs) and its pending counts (a zero-second wait that leaves reviews unreported). Ids, times and counts only.
import type { HeldLease } from 'roundtable-shared';
import { BoardRefusal, type BoardClient } from '../board-client.js';
import type { DigestFacts } from './state.js';

export interface BoardFacts {
  /** From whoami (agents.json): only asked for when a hook says who the agent is. */
  readonly agent?: { readonly name: string; readonly role: string };
  /** Claims held now, by task id. */
  readonly held: HeldLease[];
  readonly unread: number;
  readonly claimable: number;
  readonly toReview: number;
  /** The board's change cursor now, for the next hook to ask what is new since (absent from older boards). */
  readonly cursor?: string;
  /** Asked with since: how many changes after it concern the agent; undefined when not asked or the cursor was lost. */
  readonly news?: number;
}

export async function readBoardFacts(client: BoardClient, options: { withIdentity: boolean; since?: string | undefined }): Promise<BoardFacts> {
  const [beat, counts, me] = await Promise.all([
    client.heartbeat(),
    pendingSince(client, options.since),
    options.withIdentity ? client.callTool('whoami', {}) : Promise.resolve(undefined),
  ]);
  const changes = counts['changes'];
  const held = [...beat.leases].sort((a, b) => a.task_id - b.task_id);
  return {
    ...(me && { agent: { name: String(me['name']), role: String(me['role']) } }),
    held,
    unread: count(counts['unread_messages']),
    claimable: count(counts['claimable_tasks']),
    toReview: count(counts['to_review']),
    ...(typeof counts['cursor'] === 'string' && { cursor: counts['cursor'] }),
    ...(Array.isArray(changes) && { news: changes.length }),
  };
}

/** A zero-second wait, from the cursor when there is one; a cursor the board refuses (expired, another board) is dropped. */
async function pendingSince(client: BoardClient, since: string | undefined): Promise<Record<string, unknown>> {
  // "reviews" is left out so the agent's own wait_for_activity still reports them.
  const args = { timeout_s: 0, for: ['messages', 'tasks'] };
  if (since === undefined) return client.callTool('wait_for_activity', args);
  try {
    return await client.callTool('wait_for_activity', { ...args, since });
  } catch (error) {
    if (error instanceof BoardRefusal && (error.status === 400 || error.status === 409)) return client.callTool('wait_for_activity', args);
    throw error;
  }
}

export function digestOf(facts: BoardFacts): DigestFacts {
  return { held: facts.held.map((l) => l.task_id), unread: facts.unread, claimable: facts.claimable, toReview: facts.toReview };
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0;
}
