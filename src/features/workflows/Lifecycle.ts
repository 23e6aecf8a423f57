import { Context, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import type { RunId } from "../../domain/Ids.ts"
import { Events } from "../../platform/Events.ts"
import { Outbox } from "../../platform/Outbox.ts"
import { type RunRow, toRun, WorkflowsRepo } from "./Repo.ts"

const ended = (status: string) => status === "succeeded" || status === "failed"

/**
 * The run state machine (docs/api-rules.md, "Workflows and runs"): pending -> running ->
 * succeeded | failed; running <-> suspended; suspended -> failed. Each move
 * locks the run row, is skipped when the run is no longer where the move
 * starts (so a step replayed after a crash, or a cancelled run, changes
 * nothing), and writes its event (and the workflow.completed webhook) in the
 * same transaction.
 */
export class RunLifecycle extends Context.Service<RunLifecycle, {
  /** pending -> running; None when the run has already ended (cancelled before it started). */
  readonly start: (runId: RunId) => Effect.Effect<Option.Option<RunRow>>
  readonly suspend: (runId: RunId, waitingFor: "approval" | "budget", reason: string) => Effect.Effect<void>
  readonly resume: (runId: RunId) => Effect.Effect<void>
  readonly succeed: (runId: RunId, output: Record<string, unknown>) => Effect.Effect<void>
  /** Ends a run that has not ended as failed; false when it had already ended. */
  readonly fail: (runId: RunId, error: string) => Effect.Effect<boolean>
  readonly isEnded: (runId: RunId) => Effect.Effect<boolean>
}>()("herald/features/workflows/RunLifecycle") {
  static readonly layer = Layer.effect(
    RunLifecycle,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const events = yield* Events
      const outbox = yield* Outbox
      const repo = yield* WorkflowsRepo

      const locked = (runId: RunId) =>
        sql<RunRow>`SELECT id, customer_id, workflow_id, status, triggered_by, input, output, error, waiting_for,
          created_at, started_at, completed_at FROM workflow_runs WHERE id = ${runId} FOR UPDATE`.pipe(
          Effect.map((rows) => Option.fromNullishOr(rows[0]))
        )

      const transact = <A>(effect: Effect.Effect<A, unknown>) => effect.pipe(sql.withTransaction, Effect.orDie)

      const eventData = (row: RunRow, extra: Record<string, unknown> = {}) => ({ ...toRun(row), ...extra })

      const start = (runId: RunId) =>
        transact(Effect.gen(function*() {
          const found = yield* locked(runId)
          if (Option.isNone(found) || ended(found.value.status)) return Option.none<RunRow>()
          if (found.value.status !== "pending") return found
          const [row] = yield* sql<RunRow>`UPDATE workflow_runs SET status = 'running', started_at = clock_timestamp()
          WHERE id = ${runId} RETURNING id, customer_id, workflow_id, status, triggered_by, input, output, error,
          waiting_for, created_at, started_at, completed_at`
          yield* events.record(row!.customerId, "workflow.started", eventData(row!, { trigger: row!.triggeredBy }))
          return Option.some(row!)
        }))

      const suspend = (runId: RunId, waitingFor: "approval" | "budget", reason: string) =>
        transact(Effect.gen(function*() {
          const found = yield* locked(runId)
          if (Option.isNone(found) || found.value.status !== "running") return
          yield* sql`UPDATE workflow_runs SET status = 'suspended', waiting_for = ${waitingFor}, resume_requested_at = NULL
          WHERE id = ${runId}`
          yield* events.record(
            found.value.customerId,
            "workflow.suspended",
            eventData({ ...found.value, status: "suspended" }, { waitingFor, reason })
          )
        }))

      const resume = (runId: RunId) =>
        transact(Effect.gen(function*() {
          const found = yield* locked(runId)
          if (Option.isNone(found) || found.value.status !== "suspended") return
          yield* sql`UPDATE workflow_runs SET status = 'running', waiting_for = NULL, resume_requested_at = NULL WHERE id = ${runId}`
          yield* events.record(
            found.value.customerId,
            "workflow.resumed",
            eventData({ ...found.value, status: "running" })
          )
        }))

      const finish = (
        runId: RunId,
        status: "succeeded" | "failed",
        output: Record<string, unknown> | null,
        error: string | null
      ) =>
        transact(Effect.gen(function*() {
          const found = yield* locked(runId)
          if (Option.isNone(found) || ended(found.value.status)) return false
          const [row] = yield* sql<RunRow>`UPDATE workflow_runs SET status = ${status}, output = ${
            output === null ? null : JSON.stringify(output)
          }::jsonb,
            error = ${error}, waiting_for = NULL, completed_at = clock_timestamp(), started_at = coalesce(started_at, clock_timestamp())
          WHERE id = ${runId} RETURNING id, customer_id, workflow_id, status, triggered_by, input, output, error,
          waiting_for, created_at, started_at, completed_at`
          const data = eventData(row!)
          yield* events.record(row!.customerId, status === "succeeded" ? "workflow.completed" : "workflow.failed", data)
          yield* outbox.emit(row!.customerId, "workflow.completed", data)
          return true
        }))

      const isEnded = (runId: RunId) =>
        Effect.map(repo.runById(runId), (row) => Option.isNone(row) || ended(row.value.status))

      return RunLifecycle.of({
        start,
        suspend,
        resume,
        succeed: (runId, output) => Effect.asVoid(finish(runId, "succeeded", output, null)),
        fail: (runId, error) => finish(runId, "failed", null, error),
        isEnded
      })
    })
  )
}
