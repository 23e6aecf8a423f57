-- The dashboard's workflows section reads each workflow's last runs: without
-- this index a workflow that seldom runs walks all of the customer's runs.
CREATE INDEX workflow_runs_customer_workflow_created ON workflow_runs (customer_id, workflow_id, created_at DESC, id DESC);
-- The analytics section (every dashboard render) counts the period's
-- published pieces: the period's rows only, not every piece ever published.
CREATE INDEX content_customer_published ON content (customer_id, published_at) WHERE status = 'published';
-- Its provider figures, read per customer (the table had only its content_id key).
CREATE INDEX post_metrics_customer ON post_metrics (customer_id, content_id);
