// OAuth rows as both stores read them, turned into the port's shapes (store/oauth-port.ts).
import type { GrantRow, RegisteredClient } from './oauth-port.js';

export interface GrantDbRow {
  id: string;
  client_id: string;
  client_name: string | null;
  redirect_uri: string;
  resource: string;
  agent: string;
  agent_token_sha256: string;
  granted_by: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface ClientDbRow {
  client_id: string;
  client_name: string | null;
  redirect_uris: string;
  created_at: string;
}

export function toGrant(row: GrantDbRow): GrantRow {
  return {
    id: row.id,
    clientId: row.client_id,
    clientName: row.client_name,
    redirectUri: row.redirect_uri,
    resource: row.resource,
    agent: row.agent,
    agentTokenSha256: row.agent_token_sha256,
    grantedBy: row.granted_by,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

export function toClient(row: ClientDbRow): RegisteredClient {
  return { clientId: row.client_id, clientName: row.client_name, redirectUris: JSON.parse(row.redirect_uris) as string[], createdAt: row.created_at };
}

export function grantParams(g: GrantRow) {
  return {
    id: g.id,
    client_id: g.clientId,
    client_name: g.clientName,
    redirect_uri: g.redirectUri,
    resource: g.resource,
    agent: g.agent,
    agent_token_sha256: g.agentTokenSha256,
    granted_by: g.grantedBy,
    created_at: g.createdAt,
  };
}

export const GRANT_COLUMNS = 'g.id, g.client_id, g.client_name, g.redirect_uri, g.resource, g.agent, g.agent_token_sha256, g.granted_by, g.created_at, g.last_used_at, g.revoked_at';
