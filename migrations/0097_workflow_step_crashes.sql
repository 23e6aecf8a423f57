-- Starts of a step that never reached an end: raised in its own statement
-- before the step's work begins, set back to 0 when the step ends in any way
-- (succeeded, skipped, failed, over budget). Only a process that died (or was
-- stopped) mid-step leaves it raised, so a run whose step keeps killing its
-- process is failed after a few such starts instead of resumed forever.
ALTER TABLE workflow_steps ADD COLUMN unfinished_starts INTEGER NOT NULL DEFAULT 0;
