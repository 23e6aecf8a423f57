-- An ad piece's spend is charged once, when the piece is first queued: a
-- retry, a reschedule or a second hand-off finds its row here and charges
-- nothing more. Rows without a piece (model usage) are not keyed.
ALTER TABLE spend_ledger ADD COLUMN content_id TEXT REFERENCES content (id) ON DELETE SET NULL;
CREATE UNIQUE INDEX spend_ledger_content ON spend_ledger (content_id) WHERE content_id IS NOT NULL;
