-- OAuth sign-in for assistants: Herald is the authorization server of its MCP
-- endpoints. Clients registered here (RFC 7591) or known by their metadata
-- document URL (kept as a cache that expires); codes, grants and tokens are
-- stored only as SHA-256 digests of what the client holds.
CREATE TABLE oauth_clients (
  client_id TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('registered', 'metadata_document')),
  client_name TEXT,
  client_uri TEXT,
  redirect_uris JSONB NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  -- A metadata document's copy is fetched again after this; registered clients keep theirs.
  expires_at TIMESTAMPTZ
);

-- One approval: who approved (the key they signed in with, so revoking that
-- key or removing the member ends it), for which client, with which role.
CREATE TABLE oauth_grants (
  id TEXT PRIMARY KEY,
  customer_id UUID NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
  member_id TEXT,
  key_id TEXT NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  client_id TEXT NOT NULL,
  client_name TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'editor', 'viewer')),
  resource TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  last_used_at TIMESTAMPTZ,
  revoked_at TIMESTAMPTZ
);
CREATE INDEX oauth_grants_customer ON oauth_grants (customer_id, created_at DESC) WHERE revoked_at IS NULL;

CREATE TABLE oauth_codes (
  code_hash TEXT PRIMARY KEY,
  client_id TEXT NOT NULL,
  redirect_uri TEXT NOT NULL,
  code_challenge TEXT NOT NULL,
  resource TEXT NOT NULL,
  customer_id UUID NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
  member_id TEXT,
  key_id TEXT NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'editor', 'viewer')),
  expires_at TIMESTAMPTZ NOT NULL,
  used_at TIMESTAMPTZ,
  -- The grant the code was exchanged for: a second use of the code revokes it.
  grant_id TEXT
);
CREATE INDEX oauth_codes_expires ON oauth_codes (expires_at);

CREATE TABLE oauth_tokens (
  token_hash TEXT PRIMARY KEY,
  grant_id TEXT NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
  expires_at TIMESTAMPTZ NOT NULL,
  -- Refresh tokens rotate: set when spent; presenting a spent one revokes the grant.
  used_at TIMESTAMPTZ
);
CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);
CREATE INDEX oauth_tokens_expires ON oauth_tokens (expires_at);
