-- While a subscription is disabled its events are still recorded, as
-- 'skipped' deliveries, so that a recovery can send them later.
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_status_check;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_status_check
  CHECK (status IN ('pending', 'succeeded', 'failed', 'cancelled', 'skipped'));

-- A recovery reads one subscription's deliveries that were never delivered.
CREATE INDEX webhook_deliveries_undelivered ON webhook_deliveries (webhook_id)
  WHERE status IN ('skipped', 'cancelled', 'failed');
