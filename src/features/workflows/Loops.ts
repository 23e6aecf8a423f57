import { Effect, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import { DurableDeferred, WorkflowEngine } from "effect/workflow"
import { AppConfig } from "../../Config.ts"
import type { RunRow } from "./Repo.ts"
import { ApprovalReviewed, HeraldRun } from "./Run.ts"
import type { Workflows } from "./Workflows.ts"

/**
 * Background work of the workflows feature, every WORKFLOW_POLL_INTERVAL_MS:
 * fires due cron ticks (claimed by compare-and-set, so once across processes;
 * a tick missed while no process ran fires once, the next computed from now),
 * resumes runs whose pieces have all been reviewed, dispatches runs left
 * pending by a crash between insert and dispatch, and (hourly) sweeps the
 * engine's stored messages of runs ended longer ago than WORKFLOW_RETENTION_HOURS.
 */
export const workflowLoops = (workflows: Workflows["Service"]) => Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const engine = yield* WorkflowEngine.WorkflowEngine
  const config = yield* AppConfig

  const resumeReviewed = Effect.gen(function*() {
    const claimed = yield* sql<{ id: string; customerId: string; workflowId: string }>`
      UPDATE workflow_runs r SET resume_requested_at = now()
      WHERE r.id IN (
        SELECT r2.id FROM workflow_runs r2
        WHERE r2.status = 'suspended' AND r2.waiting_for = 'approval'
          AND (r2.resume_requested_at IS NULL OR r2.resume_requested_at < now() - interval '30 seconds')
          AND (NOT EXISTS (SELECT 1 FROM content c WHERE c.run_id = r2.id AND c.customer_id = r2.customer_id
                 AND c.status IN ('draft', 'pending_approval'))
            OR EXISTS (SELECT 1 FROM content c WHERE c.run_id = r2.id AND c.customer_id = r2.customer_id AND c.status = 'rejected'))
        LIMIT 100
        FOR UPDATE SKIP LOCKED)
      RETURNING r.id, r.customer_id, r.workflow_id`.pipe(Effect.orDie)
    for (const run of claimed) {
      const executionId = yield* HeraldRun.executionId({ runId: run.id, customerId: run.customerId, workflowId: run.workflowId })
      const token = DurableDeferred.tokenFromExecutionId(ApprovalReviewed, { workflow: HeraldRun, executionId })
      yield* DurableDeferred.succeed(ApprovalReviewed, { token, value: undefined }).pipe(
        Effect.provideService(WorkflowEngine.WorkflowEngine, engine)
      )
    }
  })

  const dispatchStranded = Effect.gen(function*() {
    const stranded = yield* sql<RunRow>`SELECT id, customer_id, workflow_id, status, triggered_by, input, output, error, waiting_for,
        created_at, started_at, completed_at FROM workflow_runs
      WHERE status = 'pending' AND created_at < now() - interval '30 seconds' ORDER BY created_at LIMIT 50`.pipe(Effect.orDie)
    for (const row of stranded) yield* workflows.dispatch(row)
  })

  const guarded = (name: string, effect: Effect.Effect<void>) =>
    effect.pipe(Effect.catchCause((cause) => Effect.logWarning(`workflows: ${name} failed`, cause)))

  const every = Schedule.spaced(`${config.workflowPollIntervalMs} millis`)
  yield* Effect.forkScoped(
    Effect.all([guarded("cron", Effect.asVoid(workflows.fireDue)), guarded("approvals", resumeReviewed)], { discard: true }).pipe(Effect.repeat(every))
  )
  yield* Effect.forkScoped(guarded("stranded runs", dispatchStranded).pipe(Effect.repeat(Schedule.spaced("15 seconds"))))
  yield* Effect.forkScoped(guarded("sweep", Effect.asVoid(workflows.sweep)).pipe(Effect.repeat(Schedule.spaced("1 hour"))))
})
