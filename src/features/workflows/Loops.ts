import { Duration, Effect, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import { DurableDeferred, WorkflowEngine } from "effect/workflow"
import { AppConfig } from "../../Config.ts"
import type { CustomerId, RunId } from "../../domain/Ids.ts"
import { forkPeriodic } from "../../platform/Periodic.ts"
import { Content } from "../content/Content.ts"
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
export const workflowLoops = (workflows: Workflows["Service"]) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const engine = yield* WorkflowEngine.WorkflowEngine
    const config = yield* AppConfig
    const content = yield* Content

    // Where the last look at suspended runs stopped: each poll looks at the next ones, so every run is seen in turn.
    let seenUpTo = ""
    const resumeReviewed = Effect.gen(function*() {
      const waiting = yield* sql<{ id: RunId }>`SELECT id FROM workflow_runs
      WHERE status = 'suspended' AND waiting_for = 'approval' AND id > ${seenUpTo}
        AND (resume_requested_at IS NULL OR resume_requested_at < now() - interval '30 seconds')
      ORDER BY id LIMIT 500`.pipe(Effect.orDie)
      seenUpTo = waiting.length < 500 ? "" : waiting[waiting.length - 1]!.id
      if (waiting.length === 0) return
      const counts = yield* content.reviewCounts(waiting.map((run) => run.id))
      const reviewed = waiting.filter((run) => {
        const c = counts.get(run.id)
        return c === undefined || c.pending === 0
      })
      if (reviewed.length === 0) return
      const claimed = yield* sql<{ id: RunId; customerId: CustomerId; workflowId: string }>`
      UPDATE workflow_runs SET resume_requested_at = now()
      WHERE ${sql.in("id", reviewed.map((run) => run.id))} AND status = 'suspended' AND waiting_for = 'approval'
        AND (resume_requested_at IS NULL OR resume_requested_at < now() - interval '30 seconds')
      RETURNING id, customer_id, workflow_id`.pipe(Effect.orDie)
      for (const run of claimed) {
        const executionId = yield* HeraldRun.executionId({
          runId: run.id,
          customerId: run.customerId,
          workflowId: run.workflowId
        })
        const token = DurableDeferred.tokenFromExecutionId(ApprovalReviewed, { workflow: HeraldRun, executionId })
        yield* DurableDeferred.succeed(ApprovalReviewed, { token, value: undefined }).pipe(
          Effect.provideService(WorkflowEngine.WorkflowEngine, engine)
        )
      }
    })

    const dispatchStranded = Effect.gen(function*() {
      const stranded = yield* sql<
        RunRow
      >`SELECT id, customer_id, workflow_id, status, triggered_by, input, output, error, waiting_for,
        created_at, started_at, completed_at FROM workflow_runs
      WHERE status = 'pending' AND created_at < now() - interval '30 seconds' ORDER BY created_at LIMIT 50`.pipe(
        Effect.orDie
      )
      for (const row of stranded) yield* workflows.dispatch(row)
    })

    const guarded = (name: string, effect: Effect.Effect<void>) =>
      effect.pipe(Effect.catchCause((cause) => Effect.logWarning(`workflows: ${name} failed`, cause)))

    const every = Schedule.spaced(`${config.workflowPollIntervalMs} millis`)
    yield* Effect.forkScoped(
      Effect.all([guarded("cron", Effect.asVoid(workflows.fireDue)), guarded("approvals", resumeReviewed)], {
        discard: true
      }).pipe(Effect.repeat(every))
    )
    yield* Effect.forkScoped(
      guarded("stranded runs", dispatchStranded).pipe(Effect.repeat(Schedule.spaced("15 seconds")))
    )
    // Once an hour across every process on the database, not once per process.
    yield* forkPeriodic({ name: "workflows: sweep", period: Duration.hours(1), run: Effect.asVoid(workflows.sweep) })
  })
