// What a hook asks the board: the claims the agent holds (the heartbeat, which also renews them while the agent app
// runs) and its pending counts (a zero-second wait that leaves reviews unreported). Ids, times and counts only.
import type { HeldLease } from 'roundtable-shared';
import type { BoardClient } from '../board-client.js';
import type { DigestFacts } from './state.js';

export interface BoardFacts {
  /** From whoami (agents.json): only asked for when a hook says who the agent is. */
  readonly agent?: { readonly name: string; readonly role: string };
  /** Claims held now, by task id. */
  readonly held: HeldLease[];
  readonly unread: number;
  readonly claimable: number;
  readonly toReview: number;
}

export async function readBoardFacts(client: BoardClient, options: { withIdentity: boolean }): Promise<BoardFacts> {
  const [beat, counts, me] = await Promise.all([
    client.heartbeat(),
    // "reviews" is left out so the agent's own wait_for_activity still reports them.
    client.callTool('wait_for_activity', { timeout_s: 0, for: ['messages', 'tasks'] }),
    options.withIdentity ? client.callTool('whoami', {}) : Promise.resolve(undefined),
  ]);
  const held = [...beat.leases].sort((a, b) => a.task_id - b.task_id);
  return {
    ...(me && { agent: { name: String(me['name']), role: String(me['role']) } }),
    held,
    unread: count(counts['unread_messages']),
    claimable: count(counts['claimable_tasks']),
    toReview: count(counts['to_review']),
  };
}

export function digestOf(facts: BoardFacts): DigestFacts {
  return { held: facts.held.map((l) => l.task_id), unread: facts.unread, claimable: facts.claimable, toReview: facts.toReview };
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0;
}
