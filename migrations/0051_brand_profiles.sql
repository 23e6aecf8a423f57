CREATE TABLE brand_profiles (
  customer_id UUID PRIMARY KEY REFERENCES customers (id) ON DELETE CASCADE,
  profile JSONB NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
