-- OAuth 2.1 (issue 34): apps that joined this project by signing in, each as one of its agents. Codes and tokens are
-- kept only as SHA-256 hashes. A grant is bound to the agent's token hash when it was made: rotating or removing the
-- agent ends it, as revoking it does.
CREATE TABLE oauth_clients (
  client_id TEXT PRIMARY KEY,
  client_name TEXT,
  -- JSON array of the exact redirect URIs registered.
  redirect_uris TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE oauth_grants (
  id TEXT PRIMARY KEY,
  client_id TEXT NOT NULL,
  client_name TEXT,
  redirect_uri TEXT NOT NULL,
  -- The project URL the tokens are for (RFC 8707): accepted there and nowhere else.
  resource TEXT NOT NULL,
  agent TEXT NOT NULL,
  agent_token_sha256 TEXT NOT NULL,
  granted_by TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  revoked_at TEXT,
  revoked_why TEXT
);
CREATE TABLE oauth_codes (
  code_sha256 TEXT PRIMARY KEY,
  grant_id TEXT NOT NULL REFERENCES oauth_grants (id),
  redirect_uri TEXT NOT NULL,
  code_challenge TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
);
CREATE TABLE oauth_tokens (
  token_sha256 TEXT PRIMARY KEY,
  grant_id TEXT NOT NULL REFERENCES oauth_grants (id),
  -- access or refresh
  kind TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  -- A refresh token used once is rotated: presented again, it revokes the whole grant (RFC 9700 section 4.14.2).
  rotated_at TEXT
);
CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);
CREATE INDEX oauth_codes_grant ON oauth_codes (grant_id);
