/**
 * The workflow benchmarks' workload, shared by `bench-workflows.ts` (the
 * engine alone) and `bench-peer-workflows.ts` (the engine against DBOS): a
 * three-step workflow whose steps do nothing, run as a burst (all started at
 * once) and one at a time, each run timed from its start until its result is
 * recorded and handed back to the caller.
 */
import { Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import { Activity, Workflow, WorkflowEngine } from "effect/workflow"
import { AppConfig, appConfig } from "../../src/Config.ts"
import { WorkflowEngineLive } from "../../src/features/workflows/Engine.ts"
import { DatabaseLive } from "../../src/platform/Database.ts"

/** Starts run `id` and resolves once its result is recorded. */
export type RunOne = (id: number) => Promise<unknown>

export const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

const cpuMs = () => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

export interface Phase {
  readonly runs: number
  readonly seconds: number
  readonly runsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  /** CPU time of this process (all threads) per run. */
  readonly cpuMsPerRun: number
}

const phase = (latencies: ReadonlyArray<number>, elapsedMs: number, cpu: number): Phase => ({
  runs: latencies.length,
  seconds: Number((elapsedMs / 1000).toFixed(2)),
  runsPerSecond: Number((latencies.length / (elapsedMs / 1000)).toFixed(1)),
  p50Ms: Number(percentile(latencies, 50).toFixed(1)),
  p99Ms: Number(percentile(latencies, 99).toFixed(1)),
  cpuMsPerRun: Number((cpu / latencies.length).toFixed(2))
})

/** `runs` runs (ids from `firstId`) started at once. */
export const burst = async (runOne: RunOne, runs: number, firstId = 0): Promise<Phase> => {
  const latencies: Array<number> = []
  const cpu0 = cpuMs()
  const t0 = performance.now()
  await Promise.all(Array.from({ length: runs }, async (_, i) => {
    const at = performance.now()
    await runOne(firstId + i)
    latencies.push(performance.now() - at)
  }))
  return phase(latencies, performance.now() - t0, cpuMs() - cpu0)
}

/** `runs` runs (ids from `firstId`), each started once the previous one's result is recorded. */
export const oneAtATime = async (runOne: RunOne, runs: number, firstId = 0): Promise<Phase> => {
  const latencies: Array<number> = []
  const cpu0 = cpuMs()
  const t0 = performance.now()
  for (let i = 0; i < runs; i++) {
    const at = performance.now()
    await runOne(firstId + i)
    latencies.push(performance.now() - at)
  }
  return phase(latencies, performance.now() - t0, cpuMs() - cpu0)
}

const BenchRun = Workflow.make("BenchRun", {
  payload: { id: Schema.Number },
  idempotencyKey: ({ id }) => `bench-${id}`
})

const BenchRunLive = BenchRun.toLayer(Effect.fnUntraced(function*() {
  yield* Activity.make({ name: "one", execute: Effect.void })
  yield* Activity.make({ name: "two", execute: Effect.void })
  yield* Activity.make({ name: "three", execute: Effect.void })
}))

/**
 * Herald's engine as the service configures it, on `databaseUrl`
 * (`pglite://memory` for an in-memory PGlite), with the workload registered;
 * stops with the scope. `engine` overrides WORKFLOW_ENGINE.
 */
export const heraldRunner = (databaseUrl: string, engineName?: "postgres" | "cluster") =>
  Effect.gen(function*() {
    const base = yield* appConfig
    const config = {
      ...base,
      logLevel: "none" as const,
      databaseUrl: Option.some(Redacted.make(databaseUrl)),
      port: 0,
      workflowEngine: engineName ?? base.workflowEngine
    }
    const context = yield* Layer.build(BenchRunLive.pipe(
      Layer.provideMerge(WorkflowEngineLive),
      Layer.provideMerge(DatabaseLive),
      Layer.provide(Layer.succeed(AppConfig, config))
    ))
    const engine = Context.get(context, WorkflowEngine.WorkflowEngine)
    const runOne: RunOne = (id) =>
      Effect.runPromise(Effect.gen(function*() {
        const executionId = yield* BenchRun.executionId({ id })
        return yield* engine.execute(BenchRun, { executionId, payload: { id } })
      }))
    return runOne
  })
