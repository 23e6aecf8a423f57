CREATE TABLE webhooks (
  id TEXT PRIMARY KEY,
  customer_id UUID NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  events TEXT[] NOT NULL,
  -- Stored, not hashed: the dispatcher signs with it. Never logged, never returned after creation.
  secret TEXT NOT NULL,
  -- After a rotation the old secret still signs (as a second webhook-signature) for a day.
  previous_secret TEXT,
  previous_secret_expires_at TIMESTAMPTZ,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  disabled_at TIMESTAMPTZ,
  deleted_at TIMESTAMPTZ
);
CREATE INDEX webhooks_customer ON webhooks (customer_id) WHERE deleted_at IS NULL;

-- One row per emitted event, written in the transaction of the change it reports.
CREATE TABLE webhook_events (
  id TEXT PRIMARY KEY,
  customer_id UUID NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
  type TEXT NOT NULL,
  data JSONB NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);

-- The outbox: one row per (event, subscription), claimed with FOR UPDATE SKIP LOCKED.
-- A claim sets locked_until (a lease longer than one attempt can take) and a
-- fresh claim_token, and only the holder of the token may record the outcome, and
-- a crashed worker's claim lapses when the lease does. `attempts` counts claims.
CREATE TABLE webhook_deliveries (
  id TEXT PRIMARY KEY,
  event_id TEXT NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
  webhook_id TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed', 'cancelled')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
  locked_until TIMESTAMPTZ,
  claim_token TEXT,
  created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';

CREATE TABLE webhook_attempts (
  id TEXT PRIMARY KEY,
  delivery_id TEXT NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  webhook_id TEXT NOT NULL,
  event_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  status_code INTEGER,
  duration_ms INTEGER NOT NULL,
  error TEXT,
  attempted_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX webhook_attempts_webhook ON webhook_attempts (webhook_id, attempted_at DESC);
