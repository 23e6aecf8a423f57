-- The durable workflow engine on PostgreSQL (WORKFLOW_ENGINE=postgres): one row
-- per execution, one per stored activity result, deferred completion and
-- pending clock. Results are JSON text written and read by the engine alone.

-- The processes running the engine. A process starts under a new incarnation
-- (its address stays); the runs it owns are its own while its lease lasts,
-- and one statement per heartbeat extends the lease of all of them. A
-- process restarted on its address replaces the incarnation, so what the
-- dead one owned is taken over at once.
CREATE TABLE wf_runners (
  address TEXT PRIMARY KEY,
  incarnation TEXT NOT NULL UNIQUE,
  lease_until TIMESTAMPTZ NOT NULL,
  heartbeat_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE wf_executions (
  execution_id TEXT PRIMARY KEY,
  workflow_name TEXT NOT NULL,
  payload TEXT NOT NULL,
  -- running (owned by `owner`, or by nobody after a stop), suspended, complete.
  status TEXT NOT NULL CHECK (status IN ('running', 'suspended', 'complete')),
  -- The incarnation of the process running it (null when none does).
  owner TEXT,
  -- A completion (deferred, clock, child, resume) arrived since the last run
  -- started: a suspended run is run again, a running one replays once it suspends.
  runnable BOOLEAN NOT NULL DEFAULT false,
  -- Suspended by a failure (SuspendOnFailure): only an explicit resume wakes it.
  failed BOOLEAN NOT NULL DEFAULT false,
  interrupted BOOLEAN NOT NULL DEFAULT false,
  result TEXT,
  -- The parent execution (`workflow name` / `execution id`) woken when this child completes.
  parent_name TEXT,
  parent_id TEXT,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
-- What the recovery loop claims: running runs (whose owner may be gone) and woken suspended ones.
CREATE INDEX wf_executions_running ON wf_executions (owner) WHERE status = 'running';
CREATE INDEX wf_executions_runnable ON wf_executions (execution_id) WHERE status = 'suspended' AND runnable;

-- A completed activity's result (attempt by attempt), stored before the run goes on; the first stored wins.
CREATE TABLE wf_activities (
  execution_id TEXT NOT NULL,
  name TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  result TEXT NOT NULL,
  PRIMARY KEY (execution_id, name, attempt)
);

-- A deferred's completion; the first stored wins.
CREATE TABLE wf_deferreds (
  execution_id TEXT NOT NULL,
  name TEXT NOT NULL,
  exit TEXT NOT NULL,
  PRIMARY KEY (execution_id, name)
);

-- A durable clock not yet fired: its deferred is completed at wake_at.
CREATE TABLE wf_clocks (
  execution_id TEXT NOT NULL,
  name TEXT NOT NULL,
  workflow_name TEXT NOT NULL,
  wake_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (execution_id, name)
);
CREATE INDEX wf_clocks_due ON wf_clocks (wake_at);
