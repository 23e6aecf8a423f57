-- Checkout sessions: `id` is ours (the sessionId of the local URLs and the
-- client_reference_id given to the provider); `provider_session_id` is the
-- provider's (Stripe's cs_...). The customer id is chosen at checkout so the
-- provider carries it in metadata from the start. The owner key is kept only
-- sealed (AES-256-GCM), only until the one GET that shows it.
CREATE TABLE checkout_sessions (
  id TEXT PRIMARY KEY,
  provider TEXT NOT NULL CHECK (provider IN ('local', 'stripe')),
  provider_session_id TEXT UNIQUE,
  email TEXT NOT NULL,
  customer_id UUID NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('open', 'completed')),
  sealed_key TEXT,
  key_retrieved_at TIMESTAMPTZ,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  completed_at TIMESTAMPTZ
);
CREATE INDEX checkout_sessions_customer ON checkout_sessions (customer_id);

-- What the payment provider knows a customer by, whether a payment was ever
-- received, and the creation time of the newest event applied (events can
-- arrive out of order: an older one never undoes a newer one).
CREATE TABLE customer_billing (
  customer_id UUID PRIMARY KEY REFERENCES customers (id) ON DELETE CASCADE,
  provider_customer_id TEXT,
  provider_subscription_id TEXT,
  paid_at TIMESTAMPTZ,
  last_event_created BIGINT
);
CREATE INDEX customer_billing_provider_customer ON customer_billing (provider_customer_id);
CREATE INDEX customer_billing_provider_subscription ON customer_billing (provider_subscription_id);

-- Payment events seen, by the provider's event id: the same id twice is acted on once.
CREATE TABLE payment_events (
  event_id TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  received_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Durable periodic jobs: a process claims a due run by moving `next_run_at`
-- forward in the same transaction as the work, so one run happens per period
-- whatever the number of processes, and a crash mid-run leaves it due.
CREATE TABLE scheduled_jobs (
  name TEXT PRIMARY KEY,
  next_run_at TIMESTAMPTZ NOT NULL
);
INSERT INTO scheduled_jobs (name, next_run_at) VALUES ('trial-expiry', now())
ON CONFLICT (name) DO NOTHING;

-- Trials to end: a partial index keeps the daily sweep to the customers it may touch.
CREATE INDEX customers_trial_ends ON customers (trial_ends_at) WHERE trial_ends_at IS NOT NULL AND status <> 'cancelled';

CREATE TABLE IF NOT EXISTS server_secrets (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
INSERT INTO server_secrets (name, value)
VALUES ('checkout', replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '')),
  ('dashboard', replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''))
ON CONFLICT (name) DO NOTHING;
