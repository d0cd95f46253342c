// The apps connected to a project by OAuth sign-in (issue 34) as the page shows them, and an owner's revoke of one.
import type { Agent, AgentDirectory } from '../agents/directory.js';
import { requirePageActor } from '../board/rules.js';
import { asBoardError, Forbidden, InvalidInput, NotFound } from '../errors.js';
import type { EventBus } from '../events.js';
import { log } from '../runtime/log.js';
import type { GrantRow, OAuthStore } from '../store/oauth-port.js';
import type { BoardStore } from '../store/store.js';

/** One live grant, for the page. client_name is the app's own text (it may hold markup): shown as text only. */
export interface ConnectedApp {
  readonly grant_id: string;
  readonly client_name: string | null;
  readonly client_id: string;
  readonly redirect_host: string;
  readonly agent: string;
  /** The agent's role now; null once the agent is gone from the project (its tokens are then refused anyway). */
  readonly agent_role: Agent['role'] | null;
  readonly granted_by: string;
  readonly created_at: string;
  readonly last_used_at: string | null;
}

export interface ConnectedAppsOptions {
  readonly oauth: OAuthStore;
  readonly store: BoardStore;
  readonly agents: () => AgentDirectory;
  readonly events: EventBus;
}

/** Grant ids are `grant_` and base64url (oauth/routes.ts); anything else names no grant and is not echoed back. */
const GRANT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Who sees the list: the people who run the project (owners) and those who watch it (observers); not its workers. */
export function mayReadConnectedApps(agent: Agent): boolean {
  return agent.role === 'owner' || agent.role === 'observer';
}

export class ConnectedApps {
  constructor(private readonly options: ConnectedAppsOptions) {}

  async list(viewer: Agent): Promise<{ apps: ConnectedApp[] }> {
    if (!mayReadConnectedApps(viewer)) throw new Forbidden(`the connected apps are shown to the project's owners and observers; you are ${viewer.name}, a ${viewer.role}`);
    const directory = this.options.agents();
    const grants = await this.options.oauth.listGrants();
    return { apps: grants.map((grant) => shownApp(grant, directory.find(grant.agent)?.role ?? null)) };
  }

  /**
   * Ends the grant and every token of it: the app's next call is refused, on every daemon (each call's token is looked
   * up in the store). The agent stays. One audit row either way, as a tool call leaves.
   */
  async revoke(person: Agent, args: unknown): Promise<{ revoked: string; agent: string }> {
    const row = { agent: person.name, tool: 'oauth_revoke', taskId: null, face: 'web' as const };
    let revoked: { revoked: string; agent: string };
    try {
      requirePageActor(person);
      const grantId = grantIdOf(args);
      const grant = (await this.options.oauth.listGrants()).find((g) => g.id === grantId);
      if (!grant || !(await this.options.oauth.revokeGrant(grantId, new Date().toISOString(), 'revoked_by_owner'))) {
        throw new NotFound(`grant_id: no connected app of this project has the id "${grantId}" (it may have been revoked already); GET /view/apps lists them`);
      }
      revoked = { revoked: grantId, agent: grant.agent };
    } catch (error) {
      await this.options.store.appendAudit({ ...row, outcome: asBoardError(error).code }).catch((failure: unknown) => {
        log.error('audit row not written for a refused app revoke; this line stands for it', { ...row, error: String(failure) });
      });
      throw error;
    }
    await this.options.store.appendAudit({ ...row, outcome: 'ok' });
    log.info('an app grant was revoked', { agent: revoked.agent, revoked_by: person.name });
    // Other pages open on this project read the list again (their existing re-read on presence).
    this.options.events.publish({ type: 'presence', agent: revoked.agent });
    return revoked;
  }
}

function grantIdOf(args: unknown): string {
  const value = typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>)['grant_id'] : undefined;
  if (typeof value !== 'string' || !GRANT_ID.test(value)) throw new InvalidInput('grant_id: send the id of one connected app, as GET /view/apps lists it ({"grant_id": "grant_..."})');
  return value;
}

function shownApp(grant: GrantRow, role: Agent['role'] | null): ConnectedApp {
  return {
    grant_id: grant.id,
    client_name: grant.clientName,
    client_id: grant.clientId,
    redirect_host: hostOf(grant.redirectUri),
    agent: grant.agent,
    agent_role: role,
    granted_by: grant.grantedBy,
    created_at: grant.createdAt,
    last_used_at: grant.lastUsedAt,
  };
}

function hostOf(uri: string): string {
  try {
    return new URL(uri).host;
  } catch {
    return '';
  }
}
