-- Each customer's workflows (the catalog), their schedules and their runs.
-- The durable execution state itself lives in the engine's cluster_* tables.
CREATE TABLE workflows (
  customer_id UUID NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
  id TEXT NOT NULL,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  enabled BOOLEAN NOT NULL DEFAULT false,
  schedule TEXT,
  timezone TEXT NOT NULL DEFAULT 'UTC',
  config JSONB NOT NULL DEFAULT '{}'::jsonb,
  -- The next cron tick; null when disabled or unscheduled. Claimed by one
  -- process with a compare-and-set, so a tick fires once however many run.
  next_run_at TIMESTAMPTZ,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (customer_id, id)
);
CREATE INDEX workflows_due ON workflows (next_run_at) WHERE next_run_at IS NOT NULL;

CREATE TABLE workflow_runs (
  id TEXT PRIMARY KEY,
  customer_id UUID NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
  workflow_id TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'suspended', 'succeeded', 'failed')),
  triggered_by TEXT NOT NULL,
  input JSONB NOT NULL DEFAULT '{}'::jsonb,
  output JSONB,
  error TEXT,
  -- approval or budget, while suspended.
  waiting_for TEXT,
  resume_requested_at TIMESTAMPTZ,
  -- The engine's execution id; its stored messages are swept some time after the run ends.
  execution_id TEXT,
  engine_swept BOOLEAN NOT NULL DEFAULT false,
  created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
  started_at TIMESTAMPTZ,
  completed_at TIMESTAMPTZ
);
CREATE INDEX workflow_runs_customer_created ON workflow_runs (customer_id, created_at DESC, id DESC);
CREATE INDEX workflow_runs_waiting ON workflow_runs (waiting_for) WHERE status = 'suspended';
CREATE INDEX workflow_runs_pending ON workflow_runs (created_at) WHERE status = 'pending';
CREATE INDEX workflow_runs_unswept ON workflow_runs (completed_at) WHERE completed_at IS NOT NULL AND NOT engine_swept;

-- One row per step of a run, kept by the step itself.
CREATE TABLE workflow_steps (
  run_id TEXT NOT NULL REFERENCES workflow_runs (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  position INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed', 'skipped')),
  started_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
  completed_at TIMESTAMPTZ,
  error TEXT,
  detail JSONB,
  attempts INTEGER NOT NULL DEFAULT 1,
  PRIMARY KEY (run_id, name)
);

-- Side effects of steps by key, written in the same transaction as the
-- effect: a step re-run after a crash finds its effect done and skips it.
CREATE TABLE workflow_effects (
  run_id TEXT NOT NULL REFERENCES workflow_runs (id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  result JSONB NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (run_id, key)
);

-- Finding a run's pieces when they are reviewed.
CREATE INDEX content_run ON content (run_id) WHERE run_id IS NOT NULL;

-- The default catalog, for every customer however it was created.
CREATE FUNCTION herald_workflow_catalog(customer UUID) RETURNS void LANGUAGE sql AS $$
  INSERT INTO workflows (customer_id, id, name, description, schedule, config) VALUES
    (customer, 'weekly-content-plan', 'Weekly content plan', 'Plans the week: a blog post and social posts on the week''s topics, for approval, then handed to the publisher.', '0 9 * * 1', '{"platforms": ["linkedin", "x"], "topics": [], "postsPerWeek": 3}'::jsonb),
    (customer, 'daily-social-posts', 'Daily social posts', 'Writes the day''s social posts for each configured platform, for approval, then handed to the publisher.', '0 10 * * *', '{"platforms": ["linkedin", "x"], "topics": []}'::jsonb),
    (customer, 'monthly-seo-audit', 'Monthly SEO audit', 'Scans the site for SEO and GEO issues and writes a report with recommendations.', '0 8 1 * *', '{"url": null}'::jsonb),
    (customer, 'competitor-research', 'Competitor research', 'Reviews the configured competitors and writes a positioning brief.', '0 9 * * 3', '{"competitors": []}'::jsonb),
    (customer, 'lead-magnet', 'Lead magnet', 'Writes a downloadable guide and the email that offers it.', NULL, '{"topics": []}'::jsonb),
    (customer, 'performance-report', 'Performance report', 'Reads the analytics of the period and writes a performance report.', '0 8 * * 1', '{"period": "7d"}'::jsonb)
  ON CONFLICT DO NOTHING; -- one statement
$$;

CREATE FUNCTION herald_workflow_catalog_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN PERFORM herald_workflow_catalog(NEW.id); RETURN NEW; END; $$;

CREATE TRIGGER customers_workflow_catalog AFTER INSERT ON customers
  FOR EACH ROW EXECUTE FUNCTION herald_workflow_catalog_trigger();

SELECT herald_workflow_catalog(id) FROM customers;
