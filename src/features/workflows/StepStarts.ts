import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import type { RunId } from "../../domain/Ids.ts"

/**
 * A step found with this many unfinished starts is not started again: each of
 * them ended with its process dying (or stopping) mid-step, so the step is
 * taken to be what kills the process, and the run is failed with
 * `stepCrashedError` instead of being resumed at every start.
 */
export const maxUnfinishedStarts = 3

export const stepCrashedError = "step crashed"

/**
 * Records the start of a step in its own statement, committed before the
 * step's work begins (so a process that dies mid-step leaves it counted,
 * whichever process resumes the run). False, with nothing changed, when the
 * step already has `maxUnfinishedStarts` unfinished starts. Ending the step
 * in any way sets the count back to 0, so only starts that ended with their
 * process count: a budget wait ends its attempt first. The approval wait's
 * row is started uncounted (`counted` false): its wait spans restarts by
 * design.
 */
export const beginStep = (sql: SqlClient.SqlClient, runId: RunId, name: string, position: number, counted = true) => {
  const count = counted ? 1 : 0
  return sql<{ name: string }>`INSERT INTO workflow_steps (run_id, name, position, status, unfinished_starts)
    VALUES (${runId}, ${name}, ${position}, 'running', ${count})
    ON CONFLICT (run_id, name) DO UPDATE SET status = 'running', attempts = workflow_steps.attempts + 1,
      unfinished_starts = workflow_steps.unfinished_starts + ${count}, started_at = clock_timestamp(), completed_at = NULL, error = NULL
    WHERE workflow_steps.unfinished_starts < ${maxUnfinishedStarts}
    RETURNING name`.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie)
}
