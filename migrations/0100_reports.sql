-- Reports a run or an agent writes for the marketer (SEO audits, competitor
-- briefs, performance reports): read in Herald, never published, so they live
-- apart from the content queue and its approval count.
CREATE TABLE reports (
  id TEXT PRIMARY KEY,
  customer_id UUID NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
  run_id TEXT,
  workflow TEXT,
  kind TEXT NOT NULL CHECK (kind IN ('seo-audit', 'competitor-brief', 'performance-report')),
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  figures JSONB NOT NULL DEFAULT '[]',
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- The list walks this index newest first and stops at the page's end.
CREATE INDEX reports_customer_created ON reports (customer_id, created_at DESC, id DESC);
