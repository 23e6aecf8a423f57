CREATE TABLE content (
  id TEXT PRIMARY KEY,
  customer_id UUID NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
  type TEXT NOT NULL CHECK (type IN ('blog', 'social', 'email', 'ad', 'outreach')),
  status TEXT NOT NULL CHECK (status IN ('draft', 'pending_approval', 'approved', 'published', 'rejected')),
  platform TEXT,
  title TEXT,
  body TEXT,
  metadata JSONB NOT NULL DEFAULT '{}'::jsonb,
  published_url TEXT,
  published_at TIMESTAMPTZ,
  scheduled_at TIMESTAMPTZ,
  review_note TEXT,
  agent_id TEXT,
  run_id TEXT,
  created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
  updated_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);
-- Keyset paging, newest first, per customer and per filter: each list query
-- walks one of these backwards from the cursor and stops after `limit` rows.
CREATE INDEX content_customer_created ON content (customer_id, created_at, id);
CREATE INDEX content_customer_status_created ON content (customer_id, status, created_at, id);
CREATE INDEX content_customer_type_created ON content (customer_id, type, created_at, id);
CREATE INDEX content_customer_platform_created ON content (customer_id, platform, created_at, id);

-- Stored overrides only; GET settings overlays them on the defaults.
CREATE TABLE customer_settings (
  customer_id UUID PRIMARY KEY REFERENCES customers (id) ON DELETE CASCADE,
  autonomy JSONB,
  budget JSONB,
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- The spend ledger: one row per charge, summed per calendar window.
CREATE TABLE spend_ledger (
  id BIGSERIAL PRIMARY KEY,
  customer_id UUID NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
  channel TEXT NOT NULL,
  amount NUMERIC(20, 6) NOT NULL CHECK (amount >= 0),
  created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX spend_ledger_customer_created ON spend_ledger (customer_id, created_at);

-- Secrets every instance must share (one database, many processes), made
-- once here from PostgreSQL's strong random source.
CREATE TABLE IF NOT EXISTS server_secrets (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
INSERT INTO server_secrets (name, value)
VALUES ('cursor', replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '')),
  ('idempotency', replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''))
ON CONFLICT (name) DO NOTHING;
