// Agents on PostgreSQL: the one-process-per-token instance lease, shared by every daemon on the database.
import type { InstanceLease } from '../store.js';
import type { Db } from './connection.js';

/**
 * Takes or renews the lease in one statement: the upsert only overwrites a row this instance holds or one that has
 * expired, so two daemons racing for the same agent cannot both win. Returns the live holder when another one has it.
 */
export async function acquireInstance(db: Db, agent: string, instanceId: string, now: string, expiresAt: string): Promise<InstanceLease | undefined> {
  for (;;) {
    const taken = await db`INSERT INTO agent_instances (agent, instance_id, started_at, expires_at) VALUES (${agent}, ${instanceId}, ${now}, ${expiresAt})
      ON CONFLICT (agent) DO UPDATE SET
        started_at = CASE WHEN agent_instances.instance_id = excluded.instance_id THEN agent_instances.started_at ELSE excluded.started_at END,
        instance_id = excluded.instance_id, expires_at = excluded.expires_at
      WHERE agent_instances.instance_id = excluded.instance_id OR agent_instances.expires_at <= ${now}`;
    if (taken.count > 0) return undefined;
    const [held] = await db<InstanceLease[]>`SELECT instance_id AS "instanceId", started_at AS "startedAt", expires_at AS "expiresAt" FROM agent_instances WHERE agent = ${agent}`;
    // Released between the two statements: try again.
    if (held) return held;
  }
}

export async function releaseInstance(db: Db, agent: string, instanceId: string): Promise<void> {
  await db`DELETE FROM agent_instances WHERE agent = ${agent} AND instance_id = ${instanceId}`;
}
