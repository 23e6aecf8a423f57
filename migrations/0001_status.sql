CREATE TABLE status_probes (
  id UUID PRIMARY KEY,
  checked_at TIMESTAMPTZ NOT NULL,
  ok BOOLEAN NOT NULL,
  status TEXT NOT NULL,
  latency_ms DOUBLE PRECISION
);
CREATE INDEX status_probes_checked_at ON status_probes (checked_at DESC);

CREATE TABLE incidents (
  id TEXT PRIMARY KEY,
  component TEXT NOT NULL,
  started_at TIMESTAMPTZ NOT NULL,
  resolved_at TIMESTAMPTZ,
  summary TEXT NOT NULL
);
CREATE INDEX incidents_started_at ON incidents (started_at DESC);
