// One process per agent token: a long-running worker holds a lease it renews; a second process is refused.
import type { Agent } from '../agents/directory.js';
import { Conflict, InvalidInput } from '../errors.js';
import type { BoardStore } from '../store/store.js';

/** A lease lasts this long without renewal; workers renew it well within. */
export const INSTANCE_LEASE_MS = 30_000;
const INSTANCE_ID = /^[A-Za-z0-9._:-]{8,100}$/;

export interface LeaseAnswer {
  readonly instance_id: string;
  readonly expires_at: string;
  readonly lease_s: number;
}

export async function acquireInstance(store: BoardStore, agent: Agent, instanceId: string, now = Date.now()): Promise<LeaseAnswer> {
  if (!INSTANCE_ID.test(instanceId)) throw new InvalidInput('instance id: use 8-100 letters, digits, ".", "_", ":" or "-" (a UUID is ideal)');
  const expiresAt = new Date(now + INSTANCE_LEASE_MS).toISOString();
  const holder = await store.acquireInstance(agent.name, instanceId, new Date(now).toISOString(), expiresAt);
  if (holder) {
    const since = Math.max(0, Math.round((now - Date.parse(holder.startedAt)) / 1000));
    throw new Conflict(
      `another process is already running with ${agent.name}'s token (instance ${holder.instanceId.slice(0, 8)}, started ${since} s ago). ` +
        'Run one process per token: give each worker its own agent and token in agents.json, or stop the other process',
    );
  }
  return { instance_id: instanceId, expires_at: expiresAt, lease_s: INSTANCE_LEASE_MS / 1000 };
}
