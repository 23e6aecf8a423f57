import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { JobFailed, makePool, PoolBusy } from "../src/platform/PagePool.ts"

const jobs = new URL("./support/pool-jobs.ts", import.meta.url).href
const job = (name: string, input: unknown = {}) => ({ module: jobs, name, input })

const limits = { workers: 1, maxQueue: 4, memoryMb: 128, timeoutMs: 30_000 }

describe("page pool jobs are isolated from each other", () => {
  it.live(
    "a job's late exception does not fail the job after it: that one is run again in a fresh worker",
    () =>
      Effect.gen(function*() {
        const pool = yield* makePool(limits)
        const first = yield* pool.run<number>(job("leaveLateThrow", { delayMs: 300 }))
        // Dispatched to the same worker, which dies 300 ms into it of the first job's leftover.
        const second = yield* pool.run<number>(job("slow", { ms: 1_500 }))
        assert.notStrictEqual(second, first, "the second job finished in another worker")
      }).pipe(Effect.scoped),
    60_000
  )

  it.live("a late rejection nobody awaited is treated the same way", () =>
    Effect.gen(function*() {
      const pool = yield* makePool(limits)
      const first = yield* pool.run<number>(job("leaveLateRejection", { delayMs: 300 }))
      const second = yield* pool.run<number>(job("slow", { ms: 1_500 }))
      assert.notStrictEqual(second, first)
    }).pipe(Effect.scoped), 60_000)

  it.live(
    "a job that throws fails with its reason, and its worker is not given the next job",
    () =>
      Effect.gen(function*() {
        const pool = yield* makePool(limits)
        const before = yield* pool.run<number>(job("pid"))
        const failed = yield* Effect.flip(pool.run(job("throws")))
        assert.instanceOf(failed, JobFailed)
        assert.strictEqual(failed.reason, "processing the page failed (the page made the parser throw)")
        const after = yield* pool.run<number>(job("pid"))
        assert.notStrictEqual(after, before)
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "a worker whose channel closed while idle is given no job: the job waits for a live worker",
    () =>
      Effect.gen(function*() {
        const dir = mkdtempSync(join(tmpdir(), "leaving-worker-"))
        process.env["LEAVING_WORKER_DIR"] = dir
        const pool = yield* makePool({
          ...limits,
          workers: 2,
          entry: new URL("./support/leaving-worker.ts", import.meta.url)
        })
        // The first job starts both workers and keeps the one that stays busy; the other goes idle, then leaves.
        const busy = yield* Effect.forkChild(pool.run<number>(job("slow", { ms: 2_000 })))
        for (let i = 0; i < 600 && !existsSync(join(dir, "left")); i++) yield* Effect.sleep("50 millis")
        assert.isTrue(existsSync(join(dir, "left")), "the idle worker left")
        // A turn of the loop for the pool to see the channel close; the worker's exit is not coming.
        yield* Effect.sleep("200 millis")
        const next = yield* pool.run<number>(job("pid"))
        assert.isNumber(next, "the job ran in a live worker")
        assert.isNumber(yield* Fiber.join(busy))
      }).pipe(Effect.scoped),
    60_000
  )

  it.live("a job that succeeds leaves its worker for the next one", () =>
    Effect.gen(function*() {
      const pool = yield* makePool(limits)
      const one = yield* pool.run<number>(job("pid"))
      const two = yield* pool.run<number>(job("pid"))
      assert.strictEqual(two, one)
    }).pipe(Effect.scoped), 60_000)
})

describe("a pool with no room is busy, not a failed page", () => {
  it.live("no worker can start: the job fails PoolBusy", () =>
    Effect.gen(function*() {
      const pool = yield* makePool({ ...limits, entry: new URL("./support/dead-worker.ts", import.meta.url) })
      const error = yield* Effect.flip(pool.run(job("pid")))
      assert.instanceOf(error, PoolBusy)
      assert.strictEqual(error.reason, "no worker could be started to process the page; try again shortly")
    }).pipe(Effect.scoped), 60_000)

  it.live("a full queue: the job past it fails PoolBusy at once; the others run", () =>
    Effect.gen(function*() {
      const pool = yield* makePool({ ...limits, maxQueue: 2 })
      // Both wait while the worker starts: the queue is full.
      const results = yield* Effect.all(
        [pool.run(job("slow", { ms: 500 })), pool.run(job("slow", { ms: 500 })), Effect.flip(pool.run(job("pid")))],
        { concurrency: "unbounded" }
      )
      assert.instanceOf(results[2], PoolBusy)
      assert.strictEqual(results[2].reason, "too many pages are waiting to be processed; try again shortly")
      assert.isNumber(results[0])
      assert.isNumber(results[1])
    }).pipe(Effect.scoped), 60_000)
})
