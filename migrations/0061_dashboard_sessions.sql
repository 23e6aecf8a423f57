-- Dashboard sign-ins: the cookie carries a random session id (signed); only
-- its digest is stored, with the key it was opened with (never the key).
-- Revoking the key or suspending the customer ends the session at its next use.
CREATE TABLE dashboard_sessions (
  id_hash TEXT PRIMARY KEY,
  key_id TEXT NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  customer_id UUID NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX dashboard_sessions_expires ON dashboard_sessions (expires_at);
