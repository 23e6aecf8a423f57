import { Effect, Layer, Option } from "effect"
import { ClusterWorkflowEngine, RunnerAddress, SingleRunner } from "effect/cluster"
import { Digest } from "effect/crypto"
import type { SqlClient } from "effect/sql"
import { hostname } from "node:os"
import { AppConfig, type AppConfigShape } from "../../Config.ts"
import { databaseTarget, dedicatedPostgresPool } from "../../platform/Database.ts"

/**
 * The durable workflow engine: effect/workflow on effect/cluster with its
 * messages in our database (tables cluster_*). On PostgreSQL the runners are
 * kept in SQL too, each process under its own address, so several processes
 * share the shards; on the embedded PGlite (one process, one connection, on
 * which the SQL runner storage's reserved lock connection would hang) the
 * runner is kept in memory. Stored messages are polled every
 * WORKFLOW_POLL_INTERVAL_MS (default 1 s), which bounds how late a timer or a
 * message from another process is picked up.
 */
const ownPool = <A, E, R>(runner: Layer.Layer<A, E, R>, config: AppConfigShape) =>
  runner.pipe(Layer.provide(dedicatedPostgresPool(3)), Layer.provide(Layer.succeed(AppConfig, config)))

export const WorkflowEngineLive = Layer.unwrap(Effect.gen(function*() {
  const config = yield* AppConfig
  const embedded = databaseTarget(config)._tag === "pglite"
  const address = Option.match(config.workflowRunnerAddress, {
    onNone: () => RunnerAddress.make(hostname(), config.port === 0 ? process.pid : config.port),
    onSome: (text) => {
      const at = text.lastIndexOf(":")
      return RunnerAddress.make(text.slice(0, at), Number(text.slice(at + 1)))
    }
  })
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

/**
 * The engine's runners as its SQL runner storage records them (none on the
 * in-memory storage). The one read of effect/cluster's tables outside the
 * engine, kept here beside it.
 */
export const engineRunners = (sql: SqlClient.SqlClient) =>
  sql<{ address: string; healthy: boolean; lastHeartbeat: Date | null }>`
    SELECT address, healthy, last_heartbeat FROM cluster_runners ORDER BY address`.pipe(
    Effect.catch(() => Effect.succeed([]))
  )

/**
 * Deletes the engine's stored messages (and their replies) of these
 * executions, for these entity types; joins the caller's transaction.
 */
export const deleteEngineMessages = (
  sql: SqlClient.SqlClient,
  entityTypes: ReadonlyArray<string>,
  executionIds: ReadonlyArray<string>
) =>
  Effect.gen(function*() {
    if (executionIds.length === 0) return
    yield* sql`DELETE FROM cluster_replies WHERE request_id IN (SELECT id FROM cluster_messages
      WHERE ${sql.in("entity_type", entityTypes)} AND ${sql.in("entity_id", executionIds)})`
    yield* sql`DELETE FROM cluster_messages WHERE ${sql.in("entity_type", entityTypes)} AND ${
      sql.in("entity_id", executionIds)
    }`
  })
