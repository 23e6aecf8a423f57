import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { appConfig } from "../../src/Config.ts"

/**
 * What the durable engine in use (WORKFLOW_ENGINE, read as the service reads
 * it; service processes the tests start inherit it) keeps of one execution:
 * the run's own rows (effect/cluster: its entity's messages; on PostgreSQL:
 * its execution, activity results and deferreds) and its durable clocks'
 * (effect/cluster: the clock entity's messages; on PostgreSQL: clocks not yet
 * fired and fired clocks' completions).
 */
export const engineRowsOf = (sql: SqlClient.SqlClient, executionId: string) =>
  Effect.gen(function*() {
    const { workflowEngine } = yield* Effect.orDie(appConfig)
    if (workflowEngine === "cluster") {
      const rows = yield* sql<{ entityType: string; n: number }>`SELECT entity_type, count(*)::int AS n
        FROM cluster_messages WHERE entity_id = ${executionId} GROUP BY entity_type`
      const count = (type: string) => rows.find((r) => r.entityType === type)?.n ?? 0
      return { run: count("Workflow/HeraldRun"), clock: count("Workflow/-/DurableClock") }
    }
    const [row] = yield* sql<{ run: number; clock: number }>`SELECT
      (SELECT count(*) FROM wf_executions WHERE execution_id = ${executionId})::int
        + (SELECT count(*) FROM wf_activities WHERE execution_id = ${executionId})::int
        + (SELECT count(*) FROM wf_deferreds WHERE execution_id = ${executionId} AND name NOT LIKE 'DurableClock/%')::int
        AS run,
      (SELECT count(*) FROM wf_clocks WHERE execution_id = ${executionId})::int
        + (SELECT count(*) FROM wf_deferreds WHERE execution_id = ${executionId} AND name LIKE 'DurableClock/%')::int
        AS clock`
    return row!
  })

/** How many runners the engine in use has recorded. */
export const engineRunnerCount = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    const { workflowEngine } = yield* Effect.orDie(appConfig)
    const [row] = yield* (workflowEngine === "cluster"
      ? sql<{ n: number }>`SELECT count(*)::int AS n FROM cluster_runners`
      : sql<{ n: number }>`SELECT count(*)::int AS n FROM wf_runners`)
    return row!.n
  })
