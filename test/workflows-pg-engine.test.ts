import { assert, describe, it, layer } from "@effect/vitest"
import { ConfigProvider, Context, Deferred, Duration, Effect, Exit, Layer, Result, Schema, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { Activity, DurableClock, DurableDeferred, Workflow, WorkflowEngine } from "effect/workflow"
import { AppConfig, appConfig, describeConfigError } from "../src/Config.ts"
import { makePgEngine } from "../src/features/workflows/PgEngine.ts"
import { DatabaseLive } from "../src/platform/Database.ts"
import { testConfig, testDatabaseUrl } from "./support/harness.ts"

describe("WORKFLOW_ENGINE", () => {
  const engineOf = (env: Record<string, string>) =>
    Effect.runPromise(Effect.result(
      Effect.map(appConfig, (config) => config.workflowEngine).pipe(
        Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env)))
      )
    ))

  it("is postgres unless set, cluster when asked, and anything else stops start-up naming it", async () => {
    assert.deepStrictEqual(await engineOf({}), Result.succeed("postgres"))
    assert.deepStrictEqual(await engineOf({ WORKFLOW_ENGINE: "cluster" }), Result.succeed("cluster"))
    const bad = await engineOf({ WORKFLOW_ENGINE: "dbos" })
    assert.isTrue(Result.isFailure(bad))
    if (Result.isFailure(bad)) {
      assert.strictEqual(describeConfigError(bad.failure), "WORKFLOW_ENGINE: must be postgres or cluster")
    }
  })
})

/**
 * The engine on PostgreSQL (`WORKFLOW_ENGINE=postgres`) on its own: several
 * engine instances in this process on one database stand for several
 * processes (each its own runner address), stopped and started as a process
 * would be. Activities count how often their work completed, and which
 * engine did it.
 */
const Db = Layer.unwrap(Effect.gen(function*() {
  const config = yield* testConfig(yield* testDatabaseUrl, 0)
  return DatabaseLive.pipe(Layer.provide(Layer.succeed(AppConfig, config)))
}))

/** How often each activity's work completed, by `execution key/activity`; and by which engine. */
const completed = new Map<string, number>()
const doneBy = new Map<string, WorkflowEngine.WorkflowEngine["Service"]>()
/** Activities waiting at a gate: for keys `hold-*`, the first attempt of steps one and two waits until its gate opens. */
const gates = new Map<string, Deferred.Deferred<void>>()
const arrived = new Set<string>()

const gate = (name: string) => {
  let g = gates.get(name)
  if (g === undefined) {
    g = Deferred.makeUnsafe<void>()
    gates.set(name, g)
  }
  return g
}

const step = (key: string, name: string, value: string) =>
  Activity.make({
    name,
    success: Schema.String,
    execute: Effect.gen(function*() {
      const id = `${key}/${name}`
      if (key.startsWith("hold") && name !== "three" && !arrived.has(id)) {
        arrived.add(id)
        yield* Deferred.await(gate(id))
      }
      completed.set(id, (completed.get(id) ?? 0) + 1)
      doneBy.set(id, yield* WorkflowEngine.WorkflowEngine)
      return `${value}-${Math.random().toString(36).slice(2, 8)}`
    })
  })

const Steps = Workflow.make("Steps", {
  payload: { key: Schema.String },
  success: Schema.String,
  idempotencyKey: ({ key }) => key
})
const StepsLive = Steps.toLayer(Effect.fnUntraced(function*({ key }) {
  const one = yield* step(key, "one", "a")
  const two = yield* step(key, "two", "b")
  const three = yield* step(key, "three", "c")
  return [one, two, three].join(" ")
}))

const Go = DurableDeferred.make("go", { success: Schema.String })
/** Ran, by key: the finalizer's exit (interrupted or not). */
const finalized = new Map<string, Exit.Exit<unknown, unknown>>()
const Waits = Workflow.make("Waits", {
  payload: { key: Schema.String },
  success: Schema.String,
  idempotencyKey: ({ key }) => key
})
const WaitsLive = Waits.toLayer(Effect.fnUntraced(function*({ key }) {
  yield* Workflow.addFinalizer((exit) => Effect.sync(() => void finalized.set(key, exit)))
  yield* step(key, "before", "x")
  const value = yield* DurableDeferred.await(Go)
  yield* step(key, "after", "y")
  return value
}))

const Sleeps = Workflow.make("Sleeps", {
  payload: { key: Schema.String },
  success: Schema.Number,
  idempotencyKey: ({ key }) => key
})
const SleepsLive = Sleeps.toLayer(Effect.fnUntraced(function*({ key }) {
  const at = yield* Activity.make({ name: "at", success: Schema.Number, execute: Effect.sync(() => Date.now()) })
  yield* DurableClock.sleep({ name: "nap", duration: "1 second", inMemoryThreshold: Duration.zero })
  yield* step(key, "woke", "z")
  return Date.now() - at
}))

const Registered = Layer.mergeAll(StepsLive, WaitsLive, SleepsLive)

interface Running {
  readonly engine: WorkflowEngine.WorkflowEngine["Service"]
  /** Stops it as a process stopping would: its runs given up and handed over. */
  readonly stop: Effect.Effect<void>
}

/** An engine instance (one "process") with the test workflows registered; stopped with the test's scope at the latest. */
const startEngine = (address: string, options: { leaseMs?: number; claimBatch?: number } = {}) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const scope = yield* Scope.make()
    yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
    const engineLayer = Layer.effect(
      WorkflowEngine.WorkflowEngine,
      makePgEngine({ address, pollIntervalMs: 100, ...options })
    )
    const context = yield* Layer.buildWithScope(
      Registered.pipe(Layer.provideMerge(engineLayer), Layer.provide(Layer.succeed(SqlClient.SqlClient, sql))),
      scope
    )
    return {
      engine: Context.get(context, WorkflowEngine.WorkflowEngine),
      stop: Scope.close(scope, Exit.void)
    } satisfies Running
  })

const within = <A, E, R>(effect: Effect.Effect<A, E, R>, what: string) =>
  effect.pipe(Effect.timeoutOrElse({ duration: "20 seconds", orElse: () => Effect.die(`timed out: ${what}`) }))

/** Polls until `done` holds (20 s at most). */
const until = (done: () => boolean, what: string) =>
  within(
    Effect.gen(function*() {
      while (!done()) yield* Effect.sleep("20 millis")
    }),
    what
  )

const executionOwner = (executionId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ owner: string | null; status: string }>`SELECT owner, status FROM wf_executions
      WHERE execution_id = ${executionId}`
    return row
  })

layer(Db, { timeout: 120_000, excludeTestServices: true })("the workflow engine on PostgreSQL", (it) => {
  it.effect("a run stores its execution, each activity's result and its end; executing it again answers the result", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const { engine } = yield* startEngine("plain:1")
      const result = yield* Steps.execute({ key: "plain" }).pipe(
        Effect.provideService(WorkflowEngine.WorkflowEngine, engine)
      )
      assert.match(result, /^a-\w+ b-\w+ c-\w+$/)
      const executionId = yield* Steps.executionId({ key: "plain" })
      const [row] = yield* sql<{ status: string; owner: string | null }>`SELECT status, owner FROM wf_executions
        WHERE execution_id = ${executionId}`
      assert.deepStrictEqual(row, { status: "complete", owner: null })
      const results = yield* sql<{ name: string }>`SELECT name FROM wf_activities WHERE execution_id = ${executionId}
        ORDER BY name`
      assert.deepStrictEqual(results.map((r) => r.name), ["one", "three", "two"])
      // Executing it again answers the stored result without running anything.
      const again = yield* Steps.execute({ key: "plain" }).pipe(
        Effect.provideService(WorkflowEngine.WorkflowEngine, engine)
      )
      assert.strictEqual(again, result)
      assert.strictEqual(completed.get("plain/one"), 1)
      const polled = yield* Steps.poll(executionId).pipe(Effect.provideService(WorkflowEngine.WorkflowEngine, engine))
      assert.strictEqual(polled._tag, "Some")
    }))

  it.effect("a run stopped mid-step is replayed by the next process: completed activities answered, not run again", () =>
    Effect.gen(function*() {
      const a = yield* startEngine("restart-a:1")
      const key = "hold-restart"
      const executionId = yield* Steps.execute({ key }, { discard: true }).pipe(
        Effect.provideService(WorkflowEngine.WorkflowEngine, a.engine)
      )
      yield* until(() => arrived.has(`${key}/one`), "step one reached")
      yield* Deferred.succeed(gate(`${key}/one`), undefined)
      yield* until(() => arrived.has(`${key}/two`), "step two reached")
      // The process stops while step two runs: the run is handed over (owner cleared).
      yield* a.stop
      assert.deepStrictEqual(yield* executionOwner(executionId), { owner: null, status: "running" })
      const b = yield* startEngine("restart-b:1")
      const result = yield* within(
        Steps.execute({ key }).pipe(Effect.provideService(WorkflowEngine.WorkflowEngine, b.engine)),
        "the run completed on b"
      )
      assert.match(result, /^a-\w+ b-\w+ c-\w+$/)
      // One completed on a and was answered from its result; two was cut off on a and ran on b; three on b.
      assert.strictEqual(completed.get(`${key}/one`), 1)
      assert.strictEqual(completed.get(`${key}/two`), 1)
      assert.strictEqual(completed.get(`${key}/three`), 1)
      assert.strictEqual(doneBy.get(`${key}/one`), a.engine)
      assert.strictEqual(doneBy.get(`${key}/two`), b.engine)
      assert.strictEqual(doneBy.get(`${key}/three`), b.engine)
    }))

  it.effect("a process whose lease lapsed loses its run to another; its late result is refused and it stops there", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      // A long lease: heartbeats every 12 s, so the lapse set below stands.
      const a = yield* startEngine("zombie-a:1", { leaseMs: 60_000 })
      const key = "hold-zombie"
      yield* Deferred.succeed(gate(`${key}/one`), undefined)
      const executionId = yield* Steps.execute({ key }, { discard: true }).pipe(
        Effect.provideService(WorkflowEngine.WorkflowEngine, a.engine)
      )
      yield* until(() => arrived.has(`${key}/two`), "step two reached on a")
      const b = yield* startEngine("zombie-b:1")
      yield* sql`UPDATE wf_runners SET lease_until = now() - interval '1 second' WHERE address = 'zombie-a:1'`
      const result = yield* within(
        Steps.execute({ key }).pipe(Effect.provideService(WorkflowEngine.WorkflowEngine, b.engine)),
        "b took the run over and completed it"
      )
      assert.strictEqual(doneBy.get(`${key}/three`), b.engine)
      // a's step two finishes late: its result is refused (b's stands) and a does not go on to step three.
      yield* Deferred.succeed(gate(`${key}/two`), undefined)
      yield* until(() => completed.get(`${key}/two`) === 2, "a's late step two ended")
      yield* Effect.sleep("300 millis")
      assert.strictEqual(completed.get(`${key}/one`), 1)
      assert.strictEqual(completed.get(`${key}/three`), 1)
      const [stored] = yield* sql<{ result: string }>`SELECT result FROM wf_activities
        WHERE execution_id = ${executionId} AND name = 'two'`
      assert.include(result, JSON.parse(stored!.result).value)
      assert.deepStrictEqual(yield* executionOwner(executionId), { owner: null, status: "complete" })
    }))

  it.effect("a run suspended on a deferred resumes where it is completed, on whichever process completes it", () =>
    Effect.gen(function*() {
      const a = yield* startEngine("deferred-a:1")
      const executionId = yield* Waits.execute({ key: "wait" }, { discard: true }).pipe(
        Effect.provideService(WorkflowEngine.WorkflowEngine, a.engine)
      )
      yield* within(
        Effect.gen(function*() {
          while ((yield* executionOwner(executionId))?.status !== "suspended") yield* Effect.sleep("20 millis")
        }),
        "suspended"
      )
      const b = yield* startEngine("deferred-b:1")
      const token = DurableDeferred.tokenFromExecutionId(Go, { workflow: Waits, executionId })
      yield* DurableDeferred.succeed(Go, { token, value: "green" }).pipe(
        Effect.provideService(WorkflowEngine.WorkflowEngine, b.engine)
      )
      const result = yield* within(
        Waits.execute({ key: "wait" }).pipe(Effect.provideService(WorkflowEngine.WorkflowEngine, a.engine)),
        "resumed"
      )
      assert.strictEqual(result, "green")
      assert.strictEqual(completed.get("wait/before"), 1)
      assert.strictEqual(doneBy.get("wait/after"), b.engine)
      assert.isTrue(Exit.isSuccess(finalized.get("wait")!))
    }))

  it.effect("a durable clock wakes its run, also after the process that set it stopped", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const a = yield* startEngine("clock-a:1")
      const slept = yield* within(
        Sleeps.execute({ key: "nap" }).pipe(Effect.provideService(WorkflowEngine.WorkflowEngine, a.engine)),
        "woke"
      )
      assert.isAtLeast(slept, 1000)
      // Set, then the process stops before it is due: the next process's loop fires it.
      const executionId = yield* Sleeps.execute({ key: "nap-restart" }, { discard: true }).pipe(
        Effect.provideService(WorkflowEngine.WorkflowEngine, a.engine)
      )
      yield* within(
        Effect.gen(function*() {
          while ((yield* executionOwner(executionId))?.status !== "suspended") yield* Effect.sleep("20 millis")
        }),
        "suspended on its clock"
      )
      const [clock] = yield* sql<{ name: string }>`SELECT name FROM wf_clocks WHERE execution_id = ${executionId}`
      assert.strictEqual(clock?.name, "nap")
      yield* a.stop
      const b = yield* startEngine("clock-b:1")
      const later = yield* within(
        Sleeps.execute({ key: "nap-restart" }).pipe(Effect.provideService(WorkflowEngine.WorkflowEngine, b.engine)),
        "woke on b"
      )
      assert.isAtLeast(later, 1000)
      assert.strictEqual(doneBy.get("nap-restart/woke"), b.engine)
      assert.lengthOf(yield* sql`SELECT 1 FROM wf_clocks WHERE execution_id = ${executionId}`, 0)
    }))

  it.effect("an interrupted run ends interrupted: a suspended one at once, a running one before its next activity", () =>
    Effect.gen(function*() {
      const a = yield* startEngine("interrupt-a:1", { leaseMs: 1000 })
      const b = yield* startEngine("interrupt-b:1")
      const onA = <A, E>(effect: Effect.Effect<A, E, WorkflowEngine.WorkflowEngine>) =>
        Effect.provideService(effect, WorkflowEngine.WorkflowEngine, a.engine)
      // Suspended on its deferred, interrupted from the other process.
      const suspended = yield* onA(Waits.execute({ key: "cancel-waiting" }, { discard: true }))
      yield* within(
        Effect.gen(function*() {
          while ((yield* executionOwner(suspended))?.status !== "suspended") yield* Effect.sleep("20 millis")
        }),
        "suspended"
      )
      yield* Waits.interrupt(suspended).pipe(Effect.provideService(WorkflowEngine.WorkflowEngine, b.engine))
      const exit = yield* within(Effect.exit(onA(Waits.execute({ key: "cancel-waiting" }))), "interrupted")
      assert.isTrue(Exit.isFailure(exit) && exit.cause.reasons.some((r) => r._tag === "Interrupt"), String(exit))
      assert.isTrue(Exit.isFailure(finalized.get("cancel-waiting")!))
      assert.isUndefined(completed.get("cancel-waiting/after"))

      // Running on a (held in step two), interrupted from b: a learns it at its next heartbeat; step three never runs.
      const key = "hold-cancel-running"
      yield* Deferred.succeed(gate(`${key}/one`), undefined)
      const running = yield* onA(Steps.execute({ key }, { discard: true }))
      yield* until(() => arrived.has(`${key}/two`), "step two reached")
      yield* Steps.interrupt(running).pipe(Effect.provideService(WorkflowEngine.WorkflowEngine, b.engine))
      yield* Effect.sleep("500 millis")
      yield* Deferred.succeed(gate(`${key}/two`), undefined)
      const ended = yield* within(Effect.exit(onA(Steps.execute({ key }))), "interrupted while running")
      assert.isTrue(Exit.isFailure(ended) && ended.cause.reasons.some((r) => r._tag === "Interrupt"), String(ended))
      assert.strictEqual(completed.get(`${key}/two`), 1)
      assert.isUndefined(completed.get(`${key}/three`))
    }))

  it.effect("two processes share the runs of a stopped third, each run on one of them, no activity twice", () =>
    Effect.gen(function*() {
      const a = yield* startEngine("share-a:1")
      const keys = Array.from({ length: 30 }, (_, i) => `hold-share-${i}`)
      for (const key of keys) {
        yield* Steps.execute({ key }, { discard: true }).pipe(
          Effect.provideService(WorkflowEngine.WorkflowEngine, a.engine)
        )
      }
      yield* until(() => keys.every((key) => arrived.has(`${key}/one`)), "every run at its first step")
      yield* a.stop
      for (const key of keys) yield* Deferred.succeed(gate(`${key}/one`), undefined)
      for (const key of keys) arrived.add(`${key}/two`)
      // Small claims, so both take part.
      const b = yield* startEngine("share-b:1", { claimBatch: 3 })
      const c = yield* startEngine("share-c:1", { claimBatch: 3 })
      for (const key of keys) {
        yield* within(
          Steps.execute({ key }).pipe(Effect.provideService(WorkflowEngine.WorkflowEngine, b.engine)),
          `run ${key}`
        )
      }
      for (const key of keys) {
        for (const name of ["one", "two", "three"]) {
          assert.strictEqual(completed.get(`${key}/${name}`), 1, `${key}/${name}`)
        }
        // A run goes on where it was claimed: its three steps on one process.
        assert.strictEqual(doneBy.get(`${key}/two`), doneBy.get(`${key}/one`))
        assert.strictEqual(doneBy.get(`${key}/three`), doneBy.get(`${key}/one`))
      }
      const byB = keys.filter((key) => doneBy.get(`${key}/one`) === b.engine).length
      const byC = keys.filter((key) => doneBy.get(`${key}/one`) === c.engine).length
      assert.strictEqual(byB + byC, keys.length)
      assert.isAbove(byB, 0)
      assert.isAbove(byC, 0)
    }))
})
