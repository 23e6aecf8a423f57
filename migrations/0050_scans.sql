CREATE TABLE scans (
  id TEXT PRIMARY KEY,
  customer_id UUID NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed')),
  seo_score INTEGER,
  geo_score INTEGER,
  cro_score INTEGER,
  lighthouse_seo_score INTEGER,
  citability_grade TEXT,
  checklist JSONB NOT NULL DEFAULT '[]'::jsonb,
  llms_txt TEXT,
  error TEXT,
  screenshot BYTEA,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  completed_at TIMESTAMPTZ
);
CREATE INDEX scans_customer ON scans (customer_id, created_at DESC);
