import { Duration, Effect, Exit, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { Activity, DurableClock, DurableDeferred, Workflow } from "effect/workflow"
import { AppConfig } from "../../Config.ts"
import { CustomerId, RunId } from "../../domain/Ids.ts"
import { isCatalogId } from "../../domain/Workflows.ts"
import { Content } from "../content/Content.ts"
import { catalog, runOptions } from "./Catalog.ts"
import { RunLifecycle } from "./Lifecycle.ts"
import { StepHooks } from "./StepHooks.ts"
import {
  type RunContext,
  type StepDefinition,
  StepError,
  StepFailed,
  StepOutcome,
  type StepServices
} from "./steps/Step.ts"
import { beginStep, stepCrashedError } from "./StepStarts.ts"

/**
 * Every catalog run is one execution of this durable workflow, keyed by the
 * run id. Its steps are activities: a completed step's result is stored by
 * the engine and read back on replay after a crash, never executed again.
 */
export const HeraldRun = Workflow.make("HeraldRun", {
  payload: { runId: RunId, customerId: CustomerId, workflowId: Schema.String },
  idempotencyKey: (payload) => payload.runId
})

/** Resolved (by the approval watcher) when every piece of a suspended run is decided in review. */
export const ApprovalReviewed = DurableDeferred.make("approval-reviewed")

/** The error of a run whose every piece was rejected in review. */
export const rejectedInReview = "rejected in review"

const Counts = Schema.Struct({ pending: Schema.Number, rejected: Schema.Number, approved: Schema.Number })
const Started = Schema.Struct({ alive: Schema.Boolean, options: Schema.Record(Schema.String, Schema.Unknown) })

const asRecord = (value: unknown): Record<string, unknown> => {
  const parsed = typeof value === "string" ? JSON.parse(value) : value
  return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
    ? parsed as Record<string, unknown>
    : {}
}

const HeraldRunHandler = HeraldRun.toLayer(Effect.fnUntraced(function*(payload) {
  const sql = yield* SqlClient.SqlClient
  const lifecycle = yield* RunLifecycle
  const services = yield* Effect.context<StepServices>()
  const config = yield* AppConfig
  const hooks = yield* StepHooks
  const { runId, customerId } = payload

  const recordStepEnd = (
    name: string,
    status: "succeeded" | "skipped" | "failed",
    detail: Record<string, unknown> | null,
    error: string | null
  ) =>
    sql`UPDATE workflow_steps SET status = ${status}, completed_at = clock_timestamp(), error = ${error}, unfinished_starts = 0,
      detail = ${detail === null ? null : JSON.stringify(detail)}::jsonb WHERE run_id = ${runId} AND name = ${name}`
      .pipe(Effect.orDie)

  const started = yield* Activity.make({
    name: "start",
    success: Started,
    execute: Effect.gen(function*() {
      const row = yield* lifecycle.start(runId)
      if (Option.isNone(row)) return { alive: false, options: {} }
      const [workflow] = yield* sql<{ config: unknown }>`SELECT config FROM workflows
        WHERE customer_id = ${customerId} AND id = ${row.value.workflowId}`.pipe(Effect.orDie)
      return { alive: true, options: { ...asRecord(workflow?.config), ...asRecord(row.value.input) } }
    })
  })
  if (!started.alive || !isCatalogId(payload.workflowId)) {
    if (started.alive) {
      yield* Activity.make({
        name: "fail",
        execute: Effect.asVoid(lifecycle.fail(runId, `unknown workflow ${payload.workflowId}`))
      })
    }
    return
  }
  const workflowId = payload.workflowId
  const ctx: RunContext = { runId, customerId, workflowId, options: runOptions(workflowId, started.options) }

  /** One attempt of a step as an activity; its outcome or problem is stored by the engine. */
  const attempt = (step: StepDefinition, position: number, n: number) =>
    Activity.make({
      name: `${step.name}#${n}`,
      success: StepOutcome,
      error: StepError,
      execute: Effect.gen(function*() {
        if (yield* lifecycle.isEnded(runId)) return yield* new StepFailed({ message: "cancelled" })
        if (!(yield* beginStep(sql, runId, step.name, position))) {
          // The step's earlier starts all died with their process: failing the run here (the step's end and the
          // run's in one transaction) is what stops it from taking the process down at every start.
          yield* Effect.andThen(
            recordStepEnd(step.name, "failed", null, stepCrashedError),
            lifecycle.fail(runId, stepCrashedError)
          )
            .pipe(sql.withTransaction, Effect.orDie)
          return yield* new StepFailed({ message: stepCrashedError })
        }
        yield* hooks.reached(step.name)
        const exit = yield* Effect.exit(step.run(ctx).pipe(Effect.provideContext(services)))
        if (Exit.isSuccess(exit)) {
          yield* recordStepEnd(step.name, exit.value.status, exit.value.detail, null)
          return exit.value
        }
        const problem = Exit.findErrorOption(exit)
        const message = Option.isSome(problem) ? problem.value.message : "the step failed unexpectedly"
        yield* recordStepEnd(step.name, "failed", null, message)
        if (Option.isSome(problem)) return yield* problem.value
        return yield* new StepFailed({ message })
      })
    })

  /**
   * Runs a step; over budget the run suspends (once, with the reason), waits
   * durably, and tries again while suspended; it resumes when an attempt gets
   * past the budget.
   */
  const runStep = (step: StepDefinition, position: number) =>
    Effect.gen(function*() {
      for (let n = 0;; n++) {
        const result = yield* Effect.exit(attempt(step, position, n))
        const problem = Exit.isFailure(result) ? Exit.findErrorOption(result) : Option.none<StepError>()
        const overBudget = Option.isSome(problem) && problem.value._tag === "OverBudget"
        if (n > 0 && !overBudget) {
          yield* Activity.make({ name: `resume-budget-${step.name}`, execute: lifecycle.resume(runId) })
        }
        if (Exit.isSuccess(result)) return Option.some(result.value as StepOutcome)
        if (!overBudget) {
          const message = Option.isSome(problem) ? problem.value.message : "the step failed unexpectedly"
          yield* Activity.make({
            name: `fail-${step.name}`,
            execute: Effect.asVoid(lifecycle.fail(runId, `${step.name}: ${message}`))
          })
          return Option.none<StepOutcome>()
        }
        if (n === 0) {
          yield* Activity.make({
            name: `suspend-budget-${step.name}`,
            execute: lifecycle.suspend(runId, "budget", Option.isSome(problem) ? problem.value.message : "budget")
          })
        }
        // Stored however short (DurableClock keeps waits under a minute in memory by default): a restart
        // mid-wait neither loses the wait nor starts it over, and the sweep finds it with the run's messages.
        yield* DurableClock.sleep({
          name: `budget-wait-${step.name}#${n}`,
          duration: `${config.workflowBudgetRetrySeconds} seconds`,
          inMemoryThreshold: Duration.zero
        })
      }
    })

  const countPieces = Effect.gen(function*() {
    const counts = yield* (yield* Content).reviewCounts([runId])
    return counts.get(runId) ?? { pending: 0, rejected: 0, approved: 0 }
  }).pipe(Effect.provideContext(services))

  /**
   * Suspends until every piece the run wrote is decided in review. Rejected
   * pieces are dropped and the run goes on with the approved ones; only when
   * every piece was rejected does the run fail. Answers the counts, or None
   * when the run failed.
   */
  const awaitApproval = (position: number) =>
    Effect.gen(function*() {
      const before = yield* Activity.make({
        name: "await-approval:check",
        success: Counts,
        execute: Effect.andThen(beginStep(sql, runId, "await-approval", position, false), countPieces)
      })
      let counts = before
      if (before.pending > 0) {
        yield* Activity.make({
          name: "await-approval:suspend",
          execute: lifecycle.suspend(runId, "approval", `${before.pending} piece(s) await approval`)
        })
        yield* DurableDeferred.await(ApprovalReviewed)
        counts = yield* Activity.make({
          name: "await-approval:resume",
          success: Counts,
          execute: Effect.andThen(lifecycle.resume(runId), countPieces)
        })
      }
      const allRejected = counts.rejected > 0 && counts.approved === 0
      yield* Activity.make({
        name: "await-approval:end",
        execute: Effect.gen(function*() {
          yield* recordStepEnd(
            "await-approval",
            allRejected ? "failed" : "succeeded",
            { ...counts },
            allRejected ? `all ${counts.rejected} piece(s) rejected in review` : null
          )
          if (allRejected) yield* lifecycle.fail(runId, rejectedInReview)
        })
      })
      return allRejected ? Option.none<typeof Counts.Type>() : Option.some(counts)
    })

  const plan = catalog[workflowId].steps
  const outputs: Record<string, unknown> = {}
  let reviewed: { approved: number; rejected: number } | undefined
  for (const [position, step] of plan.entries()) {
    if (step.name === "await-approval") {
      const counts = yield* awaitApproval(position)
      if (Option.isNone(counts)) return
      reviewed = { approved: counts.value.approved, rejected: counts.value.rejected }
      outputs[step.name] = { status: "succeeded", detail: counts.value }
      continue
    }
    const outcome = yield* runStep(step, position)
    if (Option.isNone(outcome)) return
    outputs[step.name] = outcome.value
  }
  // The report the run wrote (an audit, a brief, a performance report) is named at the top of its output.
  const reportIds = Object.values(outputs).flatMap((outcome) => {
    const reportId = (outcome as StepOutcome).detail["reportId"]
    return typeof reportId === "string" ? [reportId] : []
  })
  const report = reportIds.length === 0
    ? {}
    : { reportId: reportIds.at(-1)!, ...(reportIds.length > 1 ? { reportIds } : {}) }
  yield* Activity.make({
    name: "finish",
    execute: lifecycle.succeed(runId, { ...reviewed, ...report, steps: outputs })
  })
}))

/** The run's workflow registered on the engine; its steps call the services WorkflowsServices provides (Live.ts). */
export const HeraldRunLive = HeraldRunHandler.pipe(Layer.provide(RunLifecycle.layer))
