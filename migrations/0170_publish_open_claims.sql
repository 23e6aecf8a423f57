-- A queue row taken off the queue (cancelled) while a try of it was with the
-- provider keeps that try's claim (locked_until) until its outcome is known.
-- The publisher sweeps such rows whose lease has lapsed, their owner gone, to
-- look the post up; this index holds only them, so the sweep reads nothing
-- while there are none.
CREATE INDEX publish_jobs_open_claims ON publish_jobs (locked_until)
  WHERE status = 'cancelled' AND locked_until IS NOT NULL;
