import { Effect, Layer, Option } from "effect"
import { ClusterWorkflowEngine, RunnerAddress, SingleRunner } from "effect/cluster"
import { Digest } from "effect/crypto"
import { SqlClient } from "effect/sql"
import { WorkflowEngine } from "effect/workflow"
import { hostname } from "node:os"
import { AppConfig, type AppConfigShape } from "../../Config.ts"
import { databaseTarget, dedicatedPostgresPool } from "../../platform/Database.ts"
import { deletePgEngineRows, makePgEngine, pgEngineRunners } from "./PgEngine.ts"

/**
 * The engine WORKFLOW_ENGINE=cluster selects: effect/workflow on
 * effect/cluster with its messages in our database (tables cluster_*). On
 * PostgreSQL the runners are
 * kept in SQL too, each process under its own address, so several processes
 * share the shards; on the embedded PGlite (one process, one connection, on
 * which the SQL runner storage's reserved lock connection would hang) the
 * runner is kept in memory. Stored messages are polled every
 * WORKFLOW_POLL_INTERVAL_MS (default 1 s), which bounds how late a timer or a
 * message from another process is picked up.
 */
const ownPool = <A, E, R>(runner: Layer.Layer<A, E, R>, config: AppConfigShape) =>
  runner.pipe(Layer.provide(dedicatedPostgresPool(3)), Layer.provide(Layer.succeed(AppConfig, config)))

const ClusterEngineLive = Layer.unwrap(Effect.gen(function*() {
  const config = yield* AppConfig
  const embedded = databaseTarget(config)._tag === "pglite"
  const address = runnerAddress(config)
  const storage = Option.getOrElse(config.workflowRunnerStorage, () => embedded ? "memory" as const : "sql" as const)
  const runner = SingleRunner.layer({
    runnerStorage: storage,
    shardingConfig: {
      runnerAddress: Option.some(address),
      entityMessagePollInterval: `${config.workflowPollIntervalMs} millis`,
      // Messages are encoded for storage anyway; the extra local round trip only costs CPU.
      simulateRemoteSerialization: false,
      // The final reply of each stored message waits on a lock check of its shard, shared by the writers
      // of that shard: 32 shards (not the default 300) for a handful of processes share far more of those
      // checks (1,000 runs: 1,400 -> 600 checks, 200 -> 230 runs/s). Stored messages carry their shard:
      // this number is fixed for a database's life.
      shardsPerGroup: 32
    }
  })
  return ClusterWorkflowEngine.layer.pipe(
    // The SQL runner storage gets a pool of its own: it reserves a connection
    // for its locks, which must not be one of the app's.
    Layer.provideMerge(storage === "sql" ? ownPool(runner, config) : runner),
    Layer.provide(Digest.layerWebCrypto)
  )
}))

/** This process's runner address: WORKFLOW_RUNNER_ADDRESS, else the host and the port (the pid on port 0). */
const runnerAddress = (config: AppConfigShape) =>
  Option.match(config.workflowRunnerAddress, {
    onNone: () => RunnerAddress.make(hostname(), config.port === 0 ? process.pid : config.port),
    onSome: (text) => {
      const at = text.lastIndexOf(":")
      return RunnerAddress.make(text.slice(0, at), Number(text.slice(at + 1)))
    }
  })

/**
 * The engine on PostgreSQL (`PgEngine.ts`): runs in its own tables (wf_*) on
 * the app's pool, each run owned by the process running it under a lease.
 */
const PostgresEngineLive = Layer.effect(
  WorkflowEngine.WorkflowEngine,
  Effect.gen(function*() {
    const config = yield* AppConfig
    const address = runnerAddress(config)
    return yield* makePgEngine({
      address: `${address.host}:${address.port}`,
      pollIntervalMs: config.workflowPollIntervalMs
    })
  })
)

/** The durable workflow engine WORKFLOW_ENGINE names. */
export const WorkflowEngineLive = Layer.unwrap(
  Effect.map(AppConfig, (config) => config.workflowEngine === "postgres" ? PostgresEngineLive : ClusterEngineLive)
)

/**
 * The engine's runners as it records them (none on effect/cluster's
 * in-memory runner storage). The one read of the engine's tables outside the
 * engine, kept here beside it.
 */
export const engineRunners = (sql: SqlClient.SqlClient, engine: AppConfigShape["workflowEngine"]) =>
  (engine === "postgres"
    ? pgEngineRunners(sql)
    : sql<{ address: string; healthy: boolean; lastHeartbeat: Date | null }>`
    SELECT address, healthy, last_heartbeat FROM cluster_runners ORDER BY address`).pipe(
      Effect.catch(() => Effect.succeed([]))
    )

/** effect/cluster's entity for DurableClock sleeps (ClusterWorkflowEngine's ClockEntity), one per execution. */
const clockEntityType = "Workflow/-/DurableClock"

/**
 * Deletes what the engine stored of these executions of `workflow` (on
 * effect/cluster: the run's messages and their replies, and its durable
 * clock's); joins the caller's transaction.
 */
export const deleteEngineRows = (
  sql: SqlClient.SqlClient,
  engine: AppConfigShape["workflowEngine"],
  workflow: string,
  executionIds: ReadonlyArray<string>
) =>
  Effect.gen(function*() {
    if (executionIds.length === 0) return
    if (engine === "postgres") return yield* deletePgEngineRows(sql, executionIds)
    const entityTypes = [`Workflow/${workflow}`, clockEntityType]
    yield* sql`DELETE FROM cluster_replies WHERE request_id IN (SELECT id FROM cluster_messages
      WHERE ${sql.in("entity_type", entityTypes)} AND ${sql.in("entity_id", executionIds)})`
    yield* sql`DELETE FROM cluster_messages WHERE ${sql.in("entity_type", entityTypes)} AND ${
      sql.in("entity_id", executionIds)
    }`
  })
