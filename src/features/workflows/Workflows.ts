import { Clock, Context, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { WorkflowEngine } from "effect/workflow"
import { hostname } from "node:os"
import { AppConfig } from "../../Config.ts"
import { nextFire } from "../../domain/Cron.ts"
import { Conflict, NotFound, type ValidationError } from "../../domain/Errors.ts"
import { type CustomerId, newRunId, type RunId } from "../../domain/Ids.ts"
import {
  catalogIds,
  isCatalogId,
  type RunStatus,
  type Workflow,
  type WorkflowRun,
  type WorkflowRunDetail,
  type WorkflowUpdate
} from "../../domain/Workflows.ts"
import { Events } from "../../platform/Events.ts"
import { Content } from "../content/Content.ts"
import { Customers } from "../customers/Customers.ts"
import { checkOptions } from "./Catalog.ts"
import { deleteEngineRows, engineRunners } from "./Engine.ts"
import { RunLifecycle } from "./Lifecycle.ts"
import { type RunRow, toRun, toWorkflow, workflowColumns, type WorkflowRow, WorkflowsRepo } from "./Repo.ts"
import { HeraldRun } from "./Run.ts"

/** What started a run: a person (REST), cron, the orchestrator, or an agent (an MCP or chat tool call). */
export type Trigger = "manual" | "cron" | "orchestrator" | "agent"

export interface RunQuery {
  readonly workflow?: string | undefined
  readonly status?: RunStatus | undefined
  readonly limit: number
}

export interface Registrations {
  /** The workflow ids a run may be started for. */
  readonly workflows: ReadonlyArray<string>
  /** The durable workflows registered on the engine (every catalog run is one HeraldRun execution). */
  readonly engineWorkflows: ReadonlyArray<string>
  readonly schedules: ReadonlyArray<{
    readonly customerId: CustomerId
    readonly workflow: string
    readonly schedule: string
    readonly timezone: string
    readonly nextRunAt: string
  }>
  readonly runners: ReadonlyArray<
    { readonly address: string; readonly healthy: boolean; readonly lastHeartbeat: string | null }
  >
}

const workflowNotFound = () => new NotFound({ error: "Workflow not found" })
const runNotFound = () => new NotFound({ error: "Run not found" })

/** The review note of a piece rejected because its run was cancelled. */
export const cancelledNote = "run cancelled"

/**
 * The next tick of a workflow from `now`, and always after the tick it fired
 * last: a process whose clock runs behind the one that fired it cannot bring
 * that tick back. Null when disabled or unscheduled.
 */
export const nextRunFor = (
  row: Pick<WorkflowRow, "enabled" | "schedule" | "timezone" | "lastTickAt">,
  now: Date
): Date | null => {
  if (!row.enabled || row.schedule === null) return null
  const last = row.lastTickAt === null ? undefined : new Date(row.lastTickAt)
  return nextFire(row.schedule, row.timezone, last !== undefined && last > now ? last : now) ?? null
}

/** Whether an edit leaves the schedule as it was: then its next tick stays, whatever this process's clock reads. */
const sameSchedule = (before: WorkflowRow, after: WorkflowRow) =>
  before.enabled === after.enabled && before.schedule === after.schedule && before.timezone === after.timezone

/**
 * Each customer's workflows and their runs: configuration, schedules (cron in
 * the workflow's time zone, one tick fired once however many processes run),
 * starting runs on the durable engine, reading and cancelling them.
 */
export class Workflows extends Context.Service<Workflows, {
  readonly list: (customerId: CustomerId) => Effect.Effect<ReadonlyArray<Workflow>>
  /** `config` is checked against the workflow's options schema (400 naming the option). */
  readonly update: (
    customerId: CustomerId,
    workflowId: string,
    patch: WorkflowUpdate
  ) => Effect.Effect<Workflow, NotFound | ValidationError>
  readonly toggle: (customerId: CustomerId, workflowId: string, enabled: boolean) => Effect.Effect<Workflow, NotFound>
  readonly start: (
    customerId: CustomerId,
    workflowId: string,
    input: Record<string, unknown>,
    trigger: Trigger,
    /** Where the input sits in the request, for a validation error's path (default `body.input`). */
    inputPath?: string
  ) => Effect.Effect<WorkflowRun, NotFound | ValidationError>
  readonly listRuns: (customerId: CustomerId, query: RunQuery) => Effect.Effect<ReadonlyArray<WorkflowRun>>
  readonly getRun: (customerId: CustomerId, runId: RunId) => Effect.Effect<WorkflowRunDetail, NotFound>
  readonly cancel: (customerId: CustomerId, runId: RunId) => Effect.Effect<WorkflowRun, NotFound | Conflict>
  /** Recomputes every enabled schedule's next tick from now (the orchestrator's PUT). */
  readonly resync: Effect.Effect<number>
  readonly registrations: Effect.Effect<Registrations>
  /**
   * Fires the ticks due by the clock's now (claimed by compare-and-set, so
   * once across processes; a tick missed while no process ran fires once,
   * the next computed from now). Answers the runs started.
   */
  readonly fireDue: Effect.Effect<number>
  /** Hands a stored run to the engine (a crash between insert and dispatch leaves it pending). */
  readonly dispatch: (row: RunRow) => Effect.Effect<void>
  /** Deletes the engine's stored messages of runs ended longer ago than WORKFLOW_RETENTION_HOURS; answers the runs swept. */
  readonly sweep: Effect.Effect<number>
}>()("herald/features/workflows/Workflows") {
  static readonly layer = Layer.effect(
    Workflows,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const repo = yield* WorkflowsRepo
      const engine = yield* WorkflowEngine.WorkflowEngine
      const lifecycle = yield* RunLifecycle
      const events = yield* Events
      const config = yield* AppConfig
      const customers = yield* Customers
      const content = yield* Content

      const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

      const find = (customerId: CustomerId, workflowId: string) =>
        Effect.flatMap(
          repo.find(customerId, workflowId),
          Option.match({
            onNone: () => Effect.fail(workflowNotFound()),
            onSome: Effect.succeed
          })
        )

      const save = (before: WorkflowRow, row: WorkflowRow, change: Record<string, unknown>) =>
        Effect.gen(function*() {
          // An edit of the name or options keeps the pending tick: recomputed on a clock ahead of the one that
          // set it, a tick due in a moment would be skipped.
          const keep = sameSchedule(before, row) && row.nextRunAt !== null
          const next = { ...row, nextRunAt: keep ? row.nextRunAt : nextRunFor(row, yield* now) }
          const saved = yield* repo.save(next).pipe(
            Effect.tap((s) => events.record(s.customerId, "workflow.updated", { workflow: s.id, ...change })),
            sql.withTransaction,
            Effect.orDie
          )
          return toWorkflow(saved)
        })

      const list = (customerId: CustomerId) => Effect.map(repo.list(customerId), (rows) => rows.map(toWorkflow))

      const update = Effect.fn("Workflows.update")(
        function*(customerId: CustomerId, workflowId: string, patch: WorkflowUpdate) {
          const row = yield* find(customerId, workflowId)
          if (patch.config !== undefined && isCatalogId(workflowId)) {
            yield* checkOptions(workflowId, patch.config, "body.config")
          }
          return yield* save(row, {
            ...row,
            ...(patch.name === undefined ? {} : { name: patch.name }),
            ...(patch.description === undefined ? {} : { description: patch.description }),
            ...(patch.schedule === undefined ? {} : { schedule: patch.schedule?.trim().replace(/\s+/g, " ") ?? null }),
            ...(patch.timezone === undefined ? {} : { timezone: patch.timezone }),
            ...(patch.config === undefined ? {} : { config: patch.config })
          }, { changed: Object.keys(patch) })
        }
      )

      const toggle = Effect.fn("Workflows.toggle")(
        function*(customerId: CustomerId, workflowId: string, enabled: boolean) {
          const row = yield* find(customerId, workflowId)
          return yield* save(row, { ...row, enabled }, { enabled })
        }
      )

      const executionIdOf = (row: Pick<RunRow, "id" | "customerId" | "workflowId">) =>
        HeraldRun.executionId({ runId: row.id, customerId: row.customerId, workflowId: row.workflowId })

      const insertRun = (
        customerId: CustomerId,
        workflowId: string,
        input: Record<string, unknown>,
        trigger: Trigger
      ) =>
        Effect.gen(function*() {
          const id = newRunId()
          const executionId = yield* executionIdOf({ id, customerId, workflowId })
          return yield* repo.insertRun({ id, customerId, workflowId, triggeredBy: trigger, input, executionId })
        })

      const dispatch = (row: RunRow) =>
        Effect.gen(function*() {
          const executionId = yield* executionIdOf(row)
          yield* engine.execute(HeraldRun, {
            executionId,
            payload: { runId: row.id, customerId: row.customerId, workflowId: row.workflowId },
            discard: true
          })
        })

      const start = Effect.fn("Workflows.start")(
        function*(
          customerId: CustomerId,
          workflowId: string,
          input: Record<string, unknown>,
          trigger: Trigger,
          inputPath = "body.input"
        ) {
          yield* find(customerId, workflowId)
          if (isCatalogId(workflowId)) yield* checkOptions(workflowId, input, inputPath)
          const row = yield* insertRun(customerId, workflowId, input, trigger)
          yield* dispatch(row)
          return toRun(row)
        }
      )

      const listRuns = (customerId: CustomerId, query: RunQuery) =>
        Effect.map(repo.listRuns(customerId, query), (rows) => rows.map(toRun))

      const getRun = Effect.fn("Workflows.getRun")(function*(customerId: CustomerId, runId: RunId) {
        const found = yield* repo.findRun(customerId, runId)
        if (Option.isNone(found)) return yield* runNotFound()
        const steps = yield* repo.steps(runId)
        const output = found.value.output
        return {
          ...toRun(found.value),
          steps,
          output: output === null
            ? null
            : (typeof output === "string" ? JSON.parse(output) : output) as Record<string, unknown>
        }
      })

      const cancel = Effect.fn("Workflows.cancel")(function*(customerId: CustomerId, runId: RunId) {
        const found = yield* repo.findRun(customerId, runId)
        if (Option.isNone(found)) return yield* runNotFound()
        // The run ends and its pieces still awaiting approval are rejected (event and webhook as any rejection) together.
        const cancelled = yield* Effect.gen(function*() {
          if (!(yield* lifecycle.fail(runId, "cancelled"))) return false
          for (const piece of yield* content.ofRun(customerId, runId)) {
            if (piece.status !== "pending_approval") continue
            // A piece decided meanwhile keeps that decision.
            yield* content.review(customerId, piece.id, "reject", cancelledNote).pipe(
              Effect.catchTags({ NotFound: () => Effect.void, InvalidTransition: () => Effect.void })
            )
          }
          return true
        }).pipe(sql.withTransaction, Effect.orDie)
        if (!cancelled) return yield* new Conflict({ error: `The run has already ended (${found.value.status})` })
        const executionId = yield* executionIdOf(found.value)
        // The run is failed in our table first: a step that still runs finds it ended and stops.
        yield* engine.interrupt(HeraldRun, executionId).pipe(
          Effect.timeout("5 seconds"),
          Effect.catchCause((cause) => Effect.logWarning("interrupting a cancelled run failed", cause))
        )
        const after = yield* repo.findRun(customerId, runId)
        return toRun(Option.getOrElse(after, () => found.value))
      })

      const resync = Effect.gen(function*() {
        const at = yield* now
        const rows = yield* sql<
          WorkflowRow
        >`SELECT ${sql.literal(workflowColumns)} FROM workflows WHERE enabled AND schedule IS NOT NULL`.pipe(
          Effect.orDie
        )
        let changed = 0
        for (const row of rows) {
          const next = nextRunFor(row, at)
          // A tick already due stays due (it fires once); others move to the schedule's next time.
          if (row.nextRunAt !== null && new Date(row.nextRunAt) <= at) continue
          if (next?.getTime() !== (row.nextRunAt === null ? undefined : new Date(row.nextRunAt).getTime())) {
            yield* sql`UPDATE workflows SET next_run_at = ${next} WHERE customer_id = ${row.customerId} AND id = ${row.id}`
              .pipe(Effect.orDie)
            changed++
          }
        }
        yield* sql`UPDATE workflows SET next_run_at = NULL WHERE next_run_at IS NOT NULL AND (NOT enabled OR schedule IS NULL)`
          .pipe(Effect.orDie)
        return changed
      })

      const registrations = Effect.gen(function*() {
        const rows = yield* sql<
          WorkflowRow
        >`SELECT ${
          sql.literal(workflowColumns)
        } FROM workflows WHERE next_run_at IS NOT NULL ORDER BY next_run_at LIMIT 1000`.pipe(Effect.orDie)
        const found = yield* engineRunners(sql, config.workflowEngine)
        const runners = found.length > 0
          ? found.map((r) => ({
            address: r.address,
            healthy: Boolean(r.healthy),
            lastHeartbeat: r.lastHeartbeat === null ? null : new Date(r.lastHeartbeat).toISOString()
          }))
          : [{
            address: Option.getOrElse(config.workflowRunnerAddress, () => `${hostname()}:${config.port}`),
            healthy: true,
            lastHeartbeat: null
          }]
        return {
          workflows: [...catalogIds],
          engineWorkflows: [HeraldRun._tag],
          schedules: rows.map((r) => ({
            customerId: r.customerId,
            workflow: r.id,
            schedule: r.schedule ?? "",
            timezone: r.timezone,
            nextRunAt: new Date(r.nextRunAt!).toISOString()
          })),
          runners
        }
      })

      /** How many pages of due ticks one poll reads at most (ticks of suspended accounts stay due, and are passed over). */
      const maxDuePages = 10

      const fireDue = Effect.gen(function*() {
        const at = yield* now
        let fired = 0
        let after: WorkflowRow | undefined
        for (let page = 0; page < maxDuePages; page++) {
          const due = yield* repo.due(at, 100, after)
          if (due.length === 0) break
          const statuses = yield* customers.statuses([...new Set(due.map((row) => row.customerId))])
          for (const row of due) {
            const status = statuses.get(row.customerId)
            // A suspended account's tick waits until it is active again; a cancelled one (for ever) has no more ticks.
            if (status === "suspended") continue
            const next = status === "onboarding" || status === "active" ? nextRunFor(row, at) : null
            const run = yield* Effect.gen(function*() {
              if (!(yield* repo.claimTick(row, next))) return Option.none<RunRow>()
              if (next === null && status !== "onboarding" && status !== "active") return Option.none<RunRow>()
              return Option.some(yield* insertRun(row.customerId, row.id, {}, "cron"))
            }).pipe(sql.withTransaction, Effect.orDie)
            if (Option.isNone(run)) continue
            yield* dispatch(run.value)
            fired++
          }
          if (due.length < 100) break
          after = due[due.length - 1]
        }
        return fired
      })

      const sweep = Effect.gen(function*() {
        const ended = yield* sql<{ id: string; executionId: string | null }>`SELECT id, execution_id FROM workflow_runs
        WHERE completed_at IS NOT NULL AND NOT engine_swept
          AND completed_at < now() - make_interval(hours => ${config.workflowRetentionHours})
        ORDER BY completed_at LIMIT 500`.pipe(Effect.orDie)
        if (ended.length === 0) return 0
        const ids = ended.flatMap((r) => r.executionId === null ? [] : [r.executionId])
        yield* Effect.gen(function*() {
          // Everything the engine keeps of the run, its durable clocks (budget waits) included.
          yield* deleteEngineRows(sql, config.workflowEngine, HeraldRun._tag, ids)
          yield* sql`UPDATE workflow_runs SET engine_swept = true WHERE ${sql.in("id", ended.map((r) => r.id))}`
        }).pipe(sql.withTransaction, Effect.orDie)
        return ended.length
      })

      return Workflows.of({
        list,
        update,
        toggle,
        start,
        listRuns,
        getRun,
        cancel,
        resync,
        registrations,
        fireDue,
        sweep,
        dispatch
      })
    })
  )
}
