-- The cron tick a workflow fired last. Instances read the time from their own
-- clocks, which may disagree by seconds: a tick is claimed by its exact time
-- (a compare-and-set on next_run_at), and the next tick is always computed
-- from after the last one fired, so an instance whose clock is behind cannot
-- bring a fired tick back by recomputing the schedule from its own "now".
ALTER TABLE workflows ADD COLUMN last_tick_at TIMESTAMPTZ;
