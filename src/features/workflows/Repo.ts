import { Context, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import type { CustomerId, RunId } from "../../domain/Ids.ts"
import { catalogIds, type RunStatus, type RunStep, type Workflow, type WorkflowRun } from "../../domain/Workflows.ts"

export interface WorkflowRow {
  readonly customerId: CustomerId
  readonly id: string
  readonly name: string
  readonly description: string
  readonly enabled: boolean
  readonly schedule: string | null
  readonly timezone: string
  readonly config: unknown
  readonly nextRunAt: Date | null
  /** The tick fired last (claimed by `claimTick`), null before the first. */
  readonly lastTickAt: Date | null
}

export interface RunRow {
  readonly id: RunId
  readonly customerId: CustomerId
  readonly workflowId: string
  readonly status: RunStatus
  readonly triggeredBy: string
  readonly input: unknown
  readonly output: unknown
  readonly error: string | null
  readonly waitingFor: string | null
  readonly createdAt: Date
  readonly startedAt: Date | null
  readonly completedAt: Date | null
}

interface StepRow {
  readonly name: string
  readonly status: RunStep["status"]
  readonly startedAt: Date
  readonly completedAt: Date | null
  readonly error: string | null
  readonly detail: unknown
}

const json = (value: unknown): Record<string, unknown> =>
  (typeof value === "string" ? JSON.parse(value) : value) as Record<string, unknown>

const iso = (date: Date | null) => date === null ? null : new Date(date).toISOString()

export const toWorkflow = (row: WorkflowRow): Workflow => ({
  id: row.id,
  name: row.name,
  description: row.description,
  enabled: row.enabled,
  schedule: row.schedule,
  timezone: row.timezone,
  config: json(row.config),
  nextRunAt: iso(row.nextRunAt)
})

export const toRun = (row: RunRow): WorkflowRun => ({
  runId: row.id,
  workflow: row.workflowId,
  status: row.status,
  // The instant the run was started (asked for): fixed when the run is created, so every answer and event shows the same one.
  startedAt: new Date(row.createdAt).toISOString(),
  completedAt: iso(row.completedAt),
  error: row.error
})

export const toStep = (row: StepRow): RunStep => ({
  name: row.name,
  status: row.status,
  startedAt: new Date(row.startedAt).toISOString(),
  completedAt: iso(row.completedAt),
  error: row.error,
  detail: row.detail === null ? null : json(row.detail)
})

const catalogOrder = `ARRAY[${catalogIds.map((id) => `'${id}'`).join(", ")}]::text[]`

export const workflowColumns =
  "customer_id, id, name, description, enabled, schedule, timezone, config, next_run_at, last_tick_at"
const runColumns =
  "id, customer_id, workflow_id, status, triggered_by, input, output, error, waiting_for, created_at, started_at, completed_at"

/** The workflows feature's tables. Every method dies on a database failure (answered 503 by the HTTP core). */
export class WorkflowsRepo extends Context.Service<WorkflowsRepo, {
  readonly list: (customerId: CustomerId) => Effect.Effect<ReadonlyArray<WorkflowRow>>
  readonly find: (customerId: CustomerId, id: string) => Effect.Effect<Option.Option<WorkflowRow>>
  readonly save: (row: WorkflowRow) => Effect.Effect<WorkflowRow>
  /** Enabled workflows whose tick is due by `now`, in tick order, after `after` (keyset) when given. */
  readonly due: (now: Date, limit: number, after?: WorkflowRow | undefined) => Effect.Effect<ReadonlyArray<WorkflowRow>>
  /**
   * Moves the tick `row` was read with on to `next`, recording it as the last
   * fired; true for the one process that wins it. The claim names the tick
   * itself rather than "due by now": a concurrent claimer (waiting on the row
   * lock) finds it gone whatever its own clock reads.
   */
  readonly claimTick: (row: WorkflowRow, next: Date | null) => Effect.Effect<boolean>
  readonly insertRun: (run: {
    readonly id: string
    readonly customerId: CustomerId
    readonly workflowId: string
    readonly triggeredBy: string
    readonly input: Record<string, unknown>
    readonly executionId: string
  }) => Effect.Effect<RunRow>
  readonly findRun: (customerId: CustomerId, runId: RunId, forUpdate?: boolean) => Effect.Effect<Option.Option<RunRow>>
  readonly runById: (runId: RunId) => Effect.Effect<Option.Option<RunRow>>
  readonly listRuns: (customerId: CustomerId, query: {
    readonly workflow?: string | undefined
    readonly status?: RunStatus | undefined
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<RunRow>>
  readonly steps: (runId: RunId) => Effect.Effect<ReadonlyArray<RunStep>>
}>()("herald/features/workflows/WorkflowsRepo") {
  static readonly layer = Layer.effect(
    WorkflowsRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const wcols = sql.literal(workflowColumns)
      const rcols = sql.literal(runColumns)

      return WorkflowsRepo.of({
        list: (customerId) =>
          sql<WorkflowRow>`SELECT ${wcols} FROM workflows WHERE customer_id = ${customerId}
          ORDER BY created_at, array_position(${sql.literal(catalogOrder)}, id) NULLS LAST, id`.pipe(
            Effect.orDie
          ),
        find: (customerId, id) =>
          sql<WorkflowRow>`SELECT ${wcols} FROM workflows WHERE customer_id = ${customerId} AND id = ${id}`.pipe(
            Effect.map((rows) => Option.fromNullishOr(rows[0])),
            Effect.orDie
          ),
        save: (row) =>
          sql<
            WorkflowRow
          >`UPDATE workflows SET name = ${row.name}, description = ${row.description}, enabled = ${row.enabled},
            schedule = ${row.schedule}, timezone = ${row.timezone}, config = ${JSON.stringify(row.config)}::jsonb,
            next_run_at = ${row.nextRunAt}, updated_at = now()
          WHERE customer_id = ${row.customerId} AND id = ${row.id}
          RETURNING ${wcols}`.pipe(Effect.map((rows) => rows[0]!), Effect.orDie),
        due: (now, limit, after) =>
          sql<
            WorkflowRow
          >`SELECT ${wcols} FROM workflows WHERE next_run_at IS NOT NULL AND next_run_at <= ${now} AND enabled
            ${
            after === undefined
              ? sql``
              : sql`AND (next_run_at, customer_id, id) > (${after.nextRunAt}, ${after.customerId}, ${after.id})`
          }
          ORDER BY next_run_at, customer_id, id LIMIT ${limit}`.pipe(Effect.orDie),
        claimTick: (row, next) =>
          sql`UPDATE workflows SET next_run_at = ${next}, last_tick_at = next_run_at
          WHERE customer_id = ${row.customerId} AND id = ${row.id} AND enabled
            -- The tick as read, to the millisecond a JavaScript Date keeps (a tick set in SQL has microseconds);
            -- ticks of a cron schedule are a minute apart at least, so this names one tick.
            AND next_run_at > ${row.nextRunAt}::timestamptz - interval '1 millisecond'
            AND next_run_at < ${row.nextRunAt}::timestamptz + interval '1 millisecond'
          RETURNING id`.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie),
        insertRun: (run) =>
          sql<
            RunRow
          >`INSERT INTO workflow_runs (id, customer_id, workflow_id, status, triggered_by, input, execution_id)
          VALUES (${run.id}, ${run.customerId}, ${run.workflowId}, 'pending', ${run.triggeredBy}, ${
            JSON.stringify(run.input)
          }::jsonb, ${run.executionId})
          RETURNING ${rcols}`.pipe(Effect.map((rows) => rows[0]!), Effect.orDie),
        findRun: (customerId, runId, forUpdate = false) =>
          sql<RunRow>`SELECT ${rcols} FROM workflow_runs WHERE customer_id = ${customerId} AND id = ${runId}
          ${forUpdate ? sql`FOR UPDATE` : sql``}`.pipe(
            Effect.map((rows) => Option.fromNullishOr(rows[0])),
            Effect.orDie
          ),
        runById: (runId) =>
          sql<RunRow>`SELECT ${rcols} FROM workflow_runs WHERE id = ${runId}`.pipe(
            Effect.map((rows) => Option.fromNullishOr(rows[0])),
            Effect.orDie
          ),
        listRuns: (customerId, query) =>
          sql<RunRow>`SELECT ${rcols} FROM workflow_runs WHERE customer_id = ${customerId}
          ${query.workflow === undefined ? sql`` : sql`AND workflow_id = ${query.workflow}`}
          ${query.status === undefined ? sql`` : sql`AND status = ${query.status}`}
          ORDER BY created_at DESC, id DESC LIMIT ${query.limit}`.pipe(Effect.orDie),
        steps: (runId) =>
          sql<StepRow>`SELECT name, status, started_at, completed_at, error, detail FROM workflow_steps
          WHERE run_id = ${runId} ORDER BY position, started_at`.pipe(
            Effect.map((rows) => rows.map(toStep)),
            Effect.orDie
          )
      })
    })
  )
}
