import { Context, Data, Effect, Layer } from "effect"
import { type ChildProcess, fork } from "node:child_process"
import { AppConfig } from "../Config.ts"

/** Why a job gave no answer: it threw, overran its time, ran out of memory or its worker died. */
export class JobFailed extends Data.TaggedError("JobFailed")<{ readonly reason: string }> {}

/**
 * A job: a function exported by a module (by file URL), called in a worker
 * with `input`. Input and answer cross processes by structured clone: plain
 * data only.
 */
export interface PageJob {
  readonly module: string
  readonly name: string
  readonly input: unknown
}

export interface PoolLimits {
  readonly workers: number
  /** Jobs that may wait for a worker; one more fails at once. */
  readonly maxQueue: number
  readonly memoryMb: number
  readonly timeoutMs: number
}

/**
 * Where third-party pages are fetched and parsed: a bounded pool of worker
 * processes (child processes of this one, each with its own heap limit, so
 * not even a native crash of a parser reaches the service). A job runs alone
 * in its worker with a wall-clock limit; one that throws fails; one that
 * overruns its time or heap, or whose worker dies, takes the worker down
 * with it (a fresh one replaces it on demand) and fails with a reason a
 * person can read. The request loop only passes messages: a page that makes
 * a parser loop for minutes costs one worker for `timeoutMs`, never the
 * service. Jobs beyond the pool's size wait their turn in order, up to
 * `maxQueue`; past that a job fails at once.
 */
export class PagePool extends Context.Service<PagePool, {
  readonly run: <A>(job: PageJob) => Effect.Effect<A, JobFailed>
}>()("herald/platform/PagePool") {
  static readonly layer = Layer.effect(PagePool, Effect.gen(function*() {
    const config = yield* AppConfig
    return yield* makePool({
      workers: config.scanWorkers,
      // Room for every scan the global bound admits, and as many brand extractions again.
      maxQueue: 2 * (config.scanMaxConcurrent + config.scanQueueMax),
      memoryMb: config.scanWorkerMemoryMb,
      timeoutMs: config.scanJobTimeoutMs
    })
  }))
}

interface Pending {
  readonly id: number
  readonly job: PageJob
  readonly settle: (outcome: { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: string }) => void
  timer?: ReturnType<typeof setTimeout>
}

interface Slot {
  readonly worker: ChildProcess
  /** False until the worker has loaded its modules: a job's clock starts when a ready worker takes it. */
  ready: boolean
  current: Pending | undefined
  idleTimer?: ReturnType<typeof setTimeout>
}

const entry = new URL("./pageWorker.ts", import.meta.url)

/** A worker with nothing to do for this long exits, giving its memory back; the next job starts another. */
const idleMs = 60_000

/** A worker's end as a person reads it: V8 aborts (SIGABRT, exit 134) when the heap limit is reached. */
const describeExit = (code: number | null, signal: NodeJS.Signals | null): string =>
  signal === "SIGABRT" || code === 134
    ? "processing the page ran out of memory"
    : `the worker processing the page stopped (${signal ?? `exit code ${code}`})`

type Outcome = Parameters<Pending["settle"]>[0]

export const makePool = (limits: PoolLimits) => Effect.gen(function*() {
  const slots = new Set<Slot>()
  const queue: Array<Pending> = []
  // Modules jobs have named so far: a new worker loads them before it says it is ready.
  const modules = new Set<string>()
  let nextId = 0
  let closed = false

  const finish = (pending: Pending, outcome: Outcome) => {
    if (pending.timer !== undefined) clearTimeout(pending.timer)
    pending.settle(outcome)
  }

  /** Ends a slot's worker; the job it held (if any) fails with `reason`. */
  const retire = (slot: Slot, reason: string) => {
    if (!slots.delete(slot)) return
    if (slot.idleTimer !== undefined) clearTimeout(slot.idleTimer)
    const pending = slot.current
    slot.current = undefined
    slot.worker.kill("SIGKILL")
    if (pending !== undefined) finish(pending, { ok: false, reason })
    dispatch()
  }

  const idle = (slot: Slot) => {
    slot.current = undefined
    slot.idleTimer = setTimeout(() => retire(slot, "idle"), idleMs)
    slot.idleTimer.unref()
  }

  const spawn = () => {
    const worker = fork(entry, [...modules], {
      execArgv: [`--max-old-space-size=${limits.memoryMb}`, "--max-semi-space-size=16", "--stack-size=4000"],
      serialization: "advanced",
      stdio: ["ignore", "inherit", "inherit", "ipc"]
    })
    const slot: Slot = { worker, ready: false, current: undefined }
    // An idle worker does not keep the process alive.
    worker.unref()
    worker.channel?.unref()
    worker.on("message", (message: { id?: number; ready?: true; ok?: boolean; value?: unknown; reason?: string }) => {
      if (message.ready === true) {
        slot.ready = true
        idle(slot)
        return dispatch()
      }
      const pending = slot.current
      if (pending === undefined || pending.id !== message.id) return
      idle(slot)
      finish(pending, message.ok === true ? { ok: true, value: message.value } : { ok: false, reason: message.reason ?? "processing the page failed" })
      dispatch()
    })
    worker.on("error", (error) => retire(slot, `the worker processing the page failed (${error.message})`))
    worker.on("exit", (code, signal) => retire(slot, describeExit(code, signal)))
    slots.add(slot)
  }

  const dispatch = () => {
    if (closed) return
    for (const slot of slots) {
      if (queue.length === 0) return
      if (!slot.ready || slot.current !== undefined) continue
      if (slot.idleTimer !== undefined) clearTimeout(slot.idleTimer)
      const pending = queue.shift()!
      slot.current = pending
      pending.timer = setTimeout(
        () => retire(slot, `processing the page took longer than ${Math.round(limits.timeoutMs / 1000)} s`),
        limits.timeoutMs
      )
      slot.worker.send({ id: pending.id, module: pending.job.module, name: pending.job.name, input: pending.job.input }, (error) => {
        if (error !== null) retire(slot, `the worker processing the page could not be reached (${error.message})`)
      })
    }
    // Workers still starting will take the jobs waiting; start more for the rest and one spare, so that
    // the next job rarely waits for a worker to load (seconds on a busy machine).
    const free = [...slots].filter((slot) => !slot.ready || slot.current === undefined).length
    for (let missing = queue.length + 1 - free; missing > 0 && slots.size < limits.workers; missing--) spawn()
  }

  const run = <A>(job: PageJob): Effect.Effect<A, JobFailed> =>
    Effect.callback<A, JobFailed>((resume) => {
      if (closed) return resume(Effect.fail(new JobFailed({ reason: "the service is shutting down" })))
      if (queue.length >= limits.maxQueue) {
        return resume(Effect.fail(new JobFailed({ reason: "too many pages are waiting to be processed; try again shortly" })))
      }
      const pending: Pending = {
        id: nextId++,
        job,
        settle: (outcome) => resume(outcome.ok ? Effect.succeed(outcome.value as A) : Effect.fail(new JobFailed({ reason: outcome.reason })))
      }
      modules.add(job.module)
      queue.push(pending)
      dispatch()
      // An abandoned job frees its place: out of the queue, or its worker ended (its work is no one's).
      return Effect.sync(() => {
        const waiting = queue.indexOf(pending)
        if (waiting >= 0) return void queue.splice(waiting, 1)
        for (const slot of slots) {
          if (slot.current === pending) {
            slot.current = undefined
            if (pending.timer !== undefined) clearTimeout(pending.timer)
            retire(slot, "abandoned")
          }
        }
      })
    })

  yield* Effect.addFinalizer(() =>
    Effect.sync(() => {
      closed = true
      for (const pending of queue.splice(0)) finish(pending, { ok: false, reason: "the service is shutting down" })
      for (const slot of [...slots]) retire(slot, "the service is shutting down")
    })
  )

  return PagePool.of({ run })
})
