-- Social connections: one row per (customer, platform) once connected.
CREATE TABLE social_connections (
  customer_id UUID NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
  platform TEXT NOT NULL,
  account_name TEXT,
  connected_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (customer_id, platform)
);

-- The provider's handle on a customer (the Ayrshare profile key), made once.
CREATE TABLE social_profiles (
  customer_id UUID NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
  provider TEXT NOT NULL,
  profile_key TEXT NOT NULL,
  ref_id TEXT,
  created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (customer_id, provider)
);

-- Connect states: the signed token carries the nonce; the row makes it single-use.
CREATE TABLE connect_states (
  nonce TEXT PRIMARY KEY,
  customer_id UUID NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
  platform TEXT NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL,
  used_at TIMESTAMPTZ
);

-- The publish queue: one row per queued piece, claimed with FOR UPDATE SKIP LOCKED
-- and a lease (locked_until, claim_token), as the webhook outbox is.
CREATE TABLE publish_jobs (
  content_id TEXT PRIMARY KEY REFERENCES content (id) ON DELETE CASCADE,
  customer_id UUID NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
  platform TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('queued', 'published', 'failed', 'cancelled')),
  due_at TIMESTAMPTZ NOT NULL,
  next_attempt_at TIMESTAMPTZ NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  locked_until TIMESTAMPTZ,
  claim_token TEXT,
  last_error TEXT,
  provider TEXT,
  provider_post_id TEXT,
  published_at TIMESTAMPTZ,
  created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX publish_jobs_due ON publish_jobs (next_attempt_at) WHERE status = 'queued';

CREATE TABLE publish_attempts (
  id TEXT PRIMARY KEY,
  content_id TEXT NOT NULL REFERENCES content (id) ON DELETE CASCADE,
  customer_id UUID NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
  attempt INTEGER NOT NULL,
  provider TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('sent', 'failed', 'reconciled')),
  provider_post_id TEXT,
  error TEXT,
  attempted_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX publish_attempts_content ON publish_attempts (content_id, attempted_at);

-- What the sandbox provider "posted": the permalink page /p/{contentId} shows it.
CREATE TABLE sandbox_posts (
  content_id TEXT PRIMARY KEY REFERENCES content (id) ON DELETE CASCADE,
  customer_id UUID NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
  platform TEXT NOT NULL,
  body TEXT NOT NULL,
  media JSONB NOT NULL DEFAULT '[]'::jsonb,
  provider_post_id TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);

-- Provider-reported metrics of a published piece (latest figures).
CREATE TABLE post_metrics (
  content_id TEXT PRIMARY KEY REFERENCES content (id) ON DELETE CASCADE,
  customer_id UUID NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
  platform TEXT NOT NULL,
  impressions BIGINT NOT NULL DEFAULT 0,
  engagements BIGINT NOT NULL DEFAULT 0,
  fetched_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);

-- Tracked links: one code per (piece, target).
CREATE TABLE tracked_links (
  code TEXT PRIMARY KEY,
  customer_id UUID NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
  content_id TEXT REFERENCES content (id) ON DELETE CASCADE,
  platform TEXT,
  target TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (content_id, target)
);

CREATE TABLE link_clicks (
  id BIGSERIAL PRIMARY KEY,
  code TEXT NOT NULL REFERENCES tracked_links (code) ON DELETE CASCADE,
  customer_id UUID NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
  bot BOOLEAN NOT NULL,
  clicked_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX link_clicks_customer ON link_clicks (customer_id, clicked_at);

CREATE TABLE revenue (
  id TEXT PRIMARY KEY,
  customer_id UUID NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
  amount NUMERIC(20, 6) NOT NULL,
  currency TEXT NOT NULL,
  content_id TEXT,
  link_code TEXT,
  campaign TEXT,
  channel TEXT,
  created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX revenue_customer ON revenue (customer_id, created_at);

ALTER TABLE customer_settings ADD COLUMN tracking JSONB;

INSERT INTO server_secrets (name, value)
VALUES ('social_state', replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''))
ON CONFLICT (name) DO NOTHING;
