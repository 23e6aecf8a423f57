-- When the latest claim of a post began its try. A look-up that could not
-- tell whether that try posted (a cached history page, a try maybe still
-- running) hands the claim back without counting it, and must not forget
-- which try it was waiting for.
ALTER TABLE publish_jobs ADD COLUMN last_try_at TIMESTAMPTZ;
