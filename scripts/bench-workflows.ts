/**
 * Throughput of the durable workflow engine as configured by the service
 * (effect/workflow on effect/cluster, messages in our database, poll 1 s):
 * starts RUNS (default 1,000) executions of a three-step workflow whose
 * activities do nothing, all at once, and prints runs per second to
 * completion and p50/p99 start-to-finish.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node scripts/bench-workflows.ts
 * Without DATABASE_URL it runs on an in-memory PGlite. `RUNS=200` for a quick look;
 * `START_CONCURRENCY` bounds how many starts are in flight (default: all).
 */
import { Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import { Activity, Workflow, WorkflowEngine } from "effect/workflow"
import { AppConfig, appConfig } from "../src/Config.ts"
import { WorkflowEngineLive } from "../src/features/workflows/Engine.ts"
import { DatabaseLive } from "../src/platform/Database.ts"
import { externalDatabaseUrl, freshSchemaUrl } from "../test/support/harness.ts"
import { runScript } from "./support/bench-kit.ts"

const runs = Number(process.env.RUNS ?? 1000)

const BenchRun = Workflow.make("BenchRun", {
  payload: { id: Schema.Number },
  idempotencyKey: ({ id }) => `bench-${id}`
})

const started = new Map<number, number>()
const finished = new Map<number, number>()
let allDone: (() => void) | undefined

const BenchRunLive = BenchRun.toLayer(Effect.fnUntraced(function*({ id }) {
  yield* Activity.make({ name: "one", execute: Effect.void })
  yield* Activity.make({ name: "two", execute: Effect.void })
  yield* Activity.make({
    name: "three",
    execute: Effect.sync(() => {
      if (!finished.has(id)) finished.set(id, performance.now())
      if (finished.size === runs) allDone?.()
    })
  })
}))

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

runScript(Effect.gen(function*() {
  const external = externalDatabaseUrl()
  const databaseUrl = external === undefined ? "pglite://memory" : yield* freshSchemaUrl(external)
  const base = yield* appConfig
  const config = { ...base, logLevel: "none" as const, databaseUrl: Option.some(Redacted.make(databaseUrl)), port: 0 }
  const layer = BenchRunLive.pipe(
    Layer.provideMerge(WorkflowEngineLive),
    Layer.provideMerge(DatabaseLive),
    Layer.provide(Layer.succeed(AppConfig, config))
  )
  const context = yield* Layer.build(layer)
  const engine = Context.get(context, WorkflowEngine.WorkflowEngine)
  const done = new Promise<void>((resolve) => (allDone = resolve))
  const t0 = performance.now()
  yield* Effect.forEach(Array.from({ length: runs }, (_, i) => i), (id) =>
    Effect.gen(function*() {
      started.set(id, performance.now())
      const executionId = yield* BenchRun.executionId({ id })
      yield* engine.execute(BenchRun, { executionId, payload: { id }, discard: true })
    }), { concurrency: Number(process.env.START_CONCURRENCY ?? runs), discard: true })
  yield* Effect.promise(() => done)
  const elapsed = (performance.now() - t0) / 1000
  const latencies = [...finished.entries()].map(([id, at]) => at - started.get(id)!)
  console.log(JSON.stringify({
    database: external === undefined ? "pglite" : "postgresql",
    runs,
    seconds: Number(elapsed.toFixed(2)),
    runsPerSecond: Number((runs / elapsed).toFixed(1)),
    p50Ms: Math.round(percentile(latencies, 50)),
    p99Ms: Math.round(percentile(latencies, 99))
  }))
}))
