// Agents on SQLite: the one-process-per-token instance lease.
import type Database from 'better-sqlite3';
import type { InstanceLease } from '../store.js';

export class SqliteAgents {
  private readonly stmt;

  constructor(db: Database.Database) {
    this.stmt = {
      getInstance: db.prepare('SELECT instance_id AS instanceId, started_at AS startedAt, expires_at AS expiresAt FROM agent_instances WHERE agent = ?'),
      putInstance: db.prepare(
        `INSERT INTO agent_instances (agent, instance_id, started_at, expires_at) VALUES (@agent, @instance, @now, @expires)
         ON CONFLICT (agent) DO UPDATE SET
           started_at = CASE WHEN instance_id = @instance THEN started_at ELSE @now END,
           instance_id = @instance, expires_at = @expires`,
      ),
      deleteInstance: db.prepare('DELETE FROM agent_instances WHERE agent = ? AND instance_id = ?'),
    };
  }

  /** Inside the caller's transaction: takes or renews the lease, or returns the live holder when another one has it. */
  acquireInstance(agent: string, instanceId: string, now: string, expiresAt: string): InstanceLease | undefined {
    const held = this.stmt.getInstance.get(agent) as InstanceLease | undefined;
    if (held && held.instanceId !== instanceId && held.expiresAt > now) return held;
    this.stmt.putInstance.run({ agent, instance: instanceId, now, expires: expiresAt });
    return undefined;
  }

  releaseInstance(agent: string, instanceId: string): void {
    this.stmt.deleteInstance.run(agent, instanceId);
  }
}
