CREATE TABLE customers (
  id UUID PRIMARY KEY,
  email TEXT NOT NULL,
  plan TEXT NOT NULL DEFAULT 'pro',
  status TEXT NOT NULL CHECK (status IN ('onboarding', 'active', 'suspended', 'cancelled')),
  brand_name TEXT,
  trial_ends_at TIMESTAMPTZ,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE team_members (
  id TEXT PRIMARY KEY,
  customer_id UUID NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
  email TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('admin', 'editor', 'viewer')),
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  revoked_at TIMESTAMPTZ
);
CREATE INDEX team_members_customer ON team_members (customer_id, created_at);
-- One live membership per address: a second invite of it is 409.
CREATE UNIQUE INDEX team_members_one_email ON team_members (customer_id, lower(email)) WHERE revoked_at IS NULL;

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  customer_id UUID NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
  member_id TEXT REFERENCES team_members (id) ON DELETE CASCADE,
  key_hash TEXT NOT NULL UNIQUE,
  role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'editor', 'viewer')),
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  revoked_at TIMESTAMPTZ
);
CREATE INDEX api_keys_customer ON api_keys (customer_id) WHERE revoked_at IS NULL;
-- At most one live owner key per customer: concurrent rotations cannot leave two.
CREATE UNIQUE INDEX api_keys_one_owner ON api_keys (customer_id) WHERE member_id IS NULL AND revoked_at IS NULL;

CREATE TABLE events (
  id BIGSERIAL PRIMARY KEY,
  customer_id UUID NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
  type TEXT NOT NULL,
  data JSONB NOT NULL DEFAULT '{}'::jsonb,
  created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX events_customer_created ON events (customer_id, created_at DESC, id DESC);

-- scope: the customer id, or 'admin' for operator calls. The key itself is
-- kept only as a digest: it also seals the stored reply (ReplaySeal.ts).
CREATE TABLE idempotency_keys (
  scope TEXT NOT NULL,
  key_hash TEXT NOT NULL,
  method TEXT NOT NULL,
  path TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  status INTEGER,
  content_type TEXT,
  body TEXT,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (scope, key_hash)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
