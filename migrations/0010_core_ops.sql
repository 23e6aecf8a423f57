-- Event log entries get a public id and the actor that caused them.
ALTER TABLE events ADD COLUMN public_id TEXT NOT NULL DEFAULT ('ev_' || replace(gen_random_uuid()::text, '-', ''));
ALTER TABLE events ADD COLUMN actor_type TEXT NOT NULL DEFAULT 'system';
ALTER TABLE events ADD COLUMN actor_id TEXT;

-- json (not jsonb) keeps an object's keys in the order they were written.
ALTER TABLE content ALTER COLUMN metadata DROP DEFAULT;
ALTER TABLE content ALTER COLUMN metadata TYPE json USING metadata::json;
ALTER TABLE content ALTER COLUMN metadata SET DEFAULT '{}'::json;
ALTER TABLE events ALTER COLUMN data DROP DEFAULT;
ALTER TABLE events ALTER COLUMN data TYPE json USING data::json;
ALTER TABLE events ALTER COLUMN data SET DEFAULT '{}'::json;
ALTER TABLE webhook_events ALTER COLUMN data TYPE json USING data::json;

-- A rotated-out owner key remembers the Idempotency-Key (as SHA-256) of the
-- rotation that revoked it: that exact request may be replayed with it for 24 h.
ALTER TABLE api_keys ADD COLUMN rotation_key_hash TEXT;

-- Why a subscription was disabled: 'gone' (410) or 'failing' (retries spent).
ALTER TABLE webhooks ADD COLUMN disabled_reason TEXT;
CREATE INDEX webhooks_previous_secret ON webhooks (previous_secret_expires_at) WHERE previous_secret IS NOT NULL;

-- Deliveries in flight per endpoint and per customer are counted at each claim.
CREATE INDEX webhook_deliveries_in_flight ON webhook_deliveries (webhook_id) WHERE status = 'pending' AND locked_until IS NOT NULL;
CREATE INDEX webhook_attempts_page ON webhook_attempts (webhook_id, attempted_at DESC, id DESC);
CREATE INDEX customers_email ON customers (lower(email));
