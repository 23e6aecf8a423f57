import { Context, Data, Effect, Layer, Semaphore } from "effect"
import { type ChildProcess, fork } from "node:child_process"
import { AppConfig } from "../Config.ts"
import { Unavailable } from "../domain/Errors.ts"
import { addResponseHeaders } from "./http/RequestContext.ts"

/** Why a job gave no answer: it threw, overran its time, ran out of memory or its worker died. */
export class JobFailed extends Data.TaggedError("JobFailed")<{ readonly reason: string }> {
  override get message() {
    return this.reason
  }
}

/**
 * The pool had no room for the job (its queue is full, no worker could be
 * started, or the service is stopping): nothing is wrong with the page, the
 * service is busy. Callers answer 503 with Retry-After, never a page failure.
 */
export class PoolBusy extends Data.TaggedError("PoolBusy")<{ readonly reason: string }> {
  override get message() {
    return this.reason
  }
}

/**
 * A job: a function exported by a module (by file URL), called in a worker
 * with `input`. Input and answer cross processes by structured clone: plain
 * data only.
 */
export interface PageJob {
  readonly module: string
  readonly name: string
  readonly input: unknown
  /** The job's wall-clock limit, when not the pool's: work with its own, longer timeouts (a screenshot). */
  readonly timeoutMs?: number
}

export interface PoolLimits {
  readonly workers: number
  /** Jobs that may wait for a worker; one more fails at once. */
  readonly maxQueue: number
  readonly memoryMb: number
  readonly timeoutMs: number
  /** The worker module: the pool's own, unless a test starts another. */
  readonly entry?: URL
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
  readonly run: <A>(job: PageJob) => Effect.Effect<A, JobFailed | PoolBusy>
}>()("herald/platform/PagePool") {
  static readonly layer = Layer.effect(
    PagePool,
    Effect.gen(function*() {
      const config = yield* AppConfig
      return yield* makePool({
        workers: config.scanWorkers,
        // Room for every page job the global bound admits, and as many again (a scan's job and its
        // screenshot's are queued one after the other, never both at once).
        maxQueue: 2 * (config.scanMaxConcurrent + config.scanQueueMax),
        memoryMb: config.scanWorkerMemoryMb,
        timeoutMs: config.scanJobTimeoutMs
      })
    })
  )
}

/** Seconds a page job refused for want of room is told to wait (Retry-After). */
export const busyRetrySeconds = 10

const busy = (error = "Too many pages are being processed; try again shortly") =>
  addResponseHeaders({ "retry-after": String(busyRetrySeconds) }).pipe(
    Effect.andThen(Effect.fail(new Unavailable({ error })))
  )

/** A pool with no room for a job (PoolBusy) is the service being busy: 503 E_UNAVAILABLE with Retry-After. */
export const busyAsUnavailable = <A, E, R>(
  effect: Effect.Effect<A, E | PoolBusy, R>
): Effect.Effect<A, Exclude<E, PoolBusy> | Unavailable, R> =>
  Effect.catchIf(
    effect,
    (error): error is PoolBusy => error instanceof PoolBusy,
    () => busy()
  ) as Effect.Effect<A, Exclude<E, PoolBusy> | Unavailable, R>

/**
 * The global bound on work with third-party pages across customers (scans
 * and brand extractions together): `scanMaxConcurrent` run at once and
 * `scanQueueMax` more may wait. `refuseWhenFull` answers Unavailable (503,
 * Retry-After) before the work starts when every place is taken; `wait`
 * (background work, which has no one to answer) takes its turn however long
 * the line. Per-customer limits are checked before this one, so that one
 * customer's backlog waits at its own gate and never fills these places.
 */
export class PageAdmission extends Context.Service<PageAdmission, {
  readonly refuseWhenFull: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | Unavailable, R>
  readonly wait: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>()("herald/platform/PageAdmission") {
  static readonly layer = Layer.effect(
    PageAdmission,
    Effect.gen(function*() {
      const config = yield* AppConfig
      // Admitted and not finished, running or waiting; the semaphore lets `scanMaxConcurrent` run.
      let admitted = 0
      const running = Semaphore.makeUnsafe(config.scanMaxConcurrent)
      const wait = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        Effect.suspend(() => {
          admitted++
          return running.withPermits(1)(effect).pipe(Effect.ensuring(Effect.sync(() => admitted--)))
        })
      const refuseWhenFull = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | Unavailable, R> =>
        Effect.suspend((): Effect.Effect<A, E | Unavailable, R> =>
          admitted >= config.scanMaxConcurrent + config.scanQueueMax
            ? busy("Too many scans are running; try again shortly")
            : wait(effect)
        )
      return PageAdmission.of({ refuseWhenFull, wait })
    })
  )
}

interface Pending {
  readonly id: number
  readonly job: PageJob
  readonly settle: (
    outcome: { readonly ok: true; readonly value: unknown } | {
      readonly ok: false
      readonly busy?: true
      readonly reason: string
    }
  ) => void
  timer?: ReturnType<typeof setTimeout>
  /** Times this job was put back because its worker died of an earlier job's leftovers. */
  requeued: number
  /** Times this job was handed to a worker that had already gone (its message never reached it). */
  undelivered: number
}

interface Slot {
  readonly worker: ChildProcess
  /** False until the worker has loaded its modules: a job's clock starts when a ready worker takes it. */
  ready: boolean
  current: Pending | undefined
  idleTimer?: ReturnType<typeof setTimeout>
  /**
   * The job whose leftovers (a late exception or rejection) ended this worker,
   * as the worker said before exiting: when it is not the job the worker
   * holds now, that job is not the one at fault and goes back to the queue.
   */
  crashedBy?: number
  crashReason?: string
}

/** Messages a worker sends; every one about a job carries the job's id. */
type WorkerMessage =
  | { readonly ready: true }
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly reason: string }
  | { readonly crashed: true; readonly id: number | null; readonly reason: string }

const entry = new URL("./pageWorker.ts", import.meta.url)

/** Times a job may be handed to a worker that turns out to be gone before it fails. */
const maxUndelivered = 3

/** Workers in a row that die before they are ready, after which waiting jobs are refused as busy. */
const maxFailedStarts = 3

/** A worker with nothing to do for this long exits, giving its memory back; the next job starts another. */
const idleMs = 60_000

/** A worker's end as a person reads it: V8 aborts (SIGABRT, exit 134) when the heap limit is reached. */
const describeExit = (code: number | null, signal: NodeJS.Signals | null): string =>
  signal === "SIGABRT" || code === 134
    ? "processing the page ran out of memory"
    : `the worker processing the page stopped (${signal ?? `exit code ${code}`})`

type Outcome = Parameters<Pending["settle"]>[0]

export const makePool = (limits: PoolLimits) =>
  Effect.gen(function*() {
    const slots = new Set<Slot>()
    const queue: Array<Pending> = []
    // Modules jobs have named so far: a new worker loads them before it says it is ready.
    const modules = new Set<string>()
    let nextId = 0
    let closed = false
    // Workers in a row that ended before saying they were ready: past a few, nothing can be run now.
    let failedStarts = 0

    const finish = (pending: Pending, outcome: Outcome) => {
      if (pending.timer !== undefined) clearTimeout(pending.timer)
      pending.settle(outcome)
    }

    /**
     * Ends a slot's worker; the job it held (if any) fails with `reason`, unless
     * the worker said an earlier job's leftovers ended it: then the job held is
     * put back at the head of the queue (once) for another worker.
     */
    const retire = (slot: Slot, reason: string) => {
      if (!slots.delete(slot)) return
      if (slot.idleTimer !== undefined) clearTimeout(slot.idleTimer)
      const pending = slot.current
      slot.current = undefined
      slot.worker.kill("SIGKILL")
      if (pending !== undefined) {
        const innocent = slot.crashedBy !== undefined && slot.crashedBy !== pending.id && pending.requeued === 0
        if (innocent) {
          if (pending.timer !== undefined) clearTimeout(pending.timer)
          pending.requeued++
          queue.unshift(pending)
        } else {
          finish(pending, {
            ok: false,
            reason: slot.crashReason !== undefined && slot.crashedBy === pending.id ? slot.crashReason : reason
          })
        }
      }
      if (!slot.ready) failedStarts++
      dispatch()
    }

    const idle = (slot: Slot) => {
      slot.current = undefined
      slot.idleTimer = setTimeout(() => retire(slot, "idle"), idleMs)
      slot.idleTimer.unref()
    }

    const spawn = () => {
      let worker: ChildProcess
      try {
        worker = fork(limits.entry ?? entry, [...modules], {
          execArgv: [`--max-old-space-size=${limits.memoryMb}`, "--max-semi-space-size=16", "--stack-size=4000"],
          serialization: "advanced",
          stdio: ["ignore", "inherit", "inherit", "ipc"]
        })
      } catch {
        // No process could be started (EAGAIN, ENOMEM): counted as a failed start.
        failedStarts++
        return
      }
      const slot: Slot = { worker, ready: false, current: undefined }
      // An idle worker does not keep the process alive.
      worker.unref()
      worker.channel?.unref()
      worker.on("message", (message: WorkerMessage) => {
        if ("ready" in message) {
          slot.ready = true
          failedStarts = 0
          idle(slot)
          return dispatch()
        }
        if ("crashed" in message) {
          // The exit follows; `retire` then decides whose failure it was.
          if (message.id !== null) slot.crashedBy = message.id
          slot.crashReason = message.reason
          return
        }
        const pending = slot.current
        // An answer for a job this worker no longer holds (abandoned, timed out) is stale: dropped.
        if (pending === undefined || pending.id !== message.id) return
        if (message.ok) {
          idle(slot)
          finish(pending, { ok: true, value: message.value })
          return dispatch()
        }
        // A job that threw may have left anything behind (timers, sockets, patched globals): its worker is
        // not given another job.
        // (Retired before the job is settled: its caller may ask for another job at once.)
        slot.current = undefined
        retire(slot, "recycled after a failed job")
        finish(pending, { ok: false, reason: message.reason })
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
        // A worker whose channel has closed is dying (its exit may come later in the same turn of the loop, or,
        // were it stuck, not at all): it is retired now, and retiring dispatches the queue again without it.
        if (!slot.worker.connected) return retire(slot, "the worker processing the page went away")
        if (slot.idleTimer !== undefined) clearTimeout(slot.idleTimer)
        const pending = queue.shift()!
        slot.current = pending
        const timeoutMs = pending.job.timeoutMs ?? limits.timeoutMs
        pending.timer = setTimeout(
          () => retire(slot, `processing the page took longer than ${Math.round(timeoutMs / 1000)} s`),
          timeoutMs
        )
        slot.worker.send({
          id: pending.id,
          module: pending.job.module,
          name: pending.job.name,
          input: pending.job.input
        }, (error) => {
          if (error === null) return
          // The job never reached the worker (it went between its last message and this one): nothing of
          // it ran, so it goes back to the head of the queue for another worker, a few times at most.
          if (slot.current === pending && pending.undelivered < maxUndelivered) {
            slot.current = undefined
            clearTimeout(pending.timer)
            pending.undelivered++
            queue.unshift(pending)
          }
          retire(slot, `the worker processing the page could not be reached (${error.message})`)
        })
      }
      if (failedStarts >= maxFailedStarts && [...slots].every((slot) => !slot.ready)) {
        failedStarts = 0
        for (const pending of queue.splice(0)) {
          finish(pending, {
            ok: false,
            busy: true,
            reason: "no worker could be started to process the page; try again shortly"
          })
        }
        return
      }
      // Workers still starting will take the jobs waiting; start more for the rest and one spare, so that
      // the next job rarely waits for a worker to load (seconds on a busy machine).
      const free = [...slots].filter((slot) => !slot.ready || slot.current === undefined).length
      for (let missing = queue.length + 1 - free; missing > 0 && slots.size < limits.workers; missing--) spawn()
    }

    const run = <A>(job: PageJob): Effect.Effect<A, JobFailed | PoolBusy> =>
      Effect.callback<A, JobFailed | PoolBusy>((resume) => {
        if (closed) return resume(Effect.fail(new PoolBusy({ reason: "the service is shutting down" })))
        if (queue.length >= limits.maxQueue) {
          return resume(
            Effect.fail(new PoolBusy({ reason: "too many pages are waiting to be processed; try again shortly" }))
          )
        }
        const pending: Pending = {
          id: nextId++,
          job,
          requeued: 0,
          undelivered: 0,
          settle: (outcome) =>
            resume(
              outcome.ok
                ? Effect.succeed(outcome.value as A)
                : outcome.busy === true
                ? Effect.fail(new PoolBusy({ reason: outcome.reason }))
                : Effect.fail(new JobFailed({ reason: outcome.reason }))
            )
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
        for (const pending of queue.splice(0)) {
          finish(pending, { ok: false, busy: true, reason: "the service is shutting down" })
        }
        for (const slot of [...slots]) {
          retire(slot, "the service is shutting down")
        }
      })
    )

    return PagePool.of({ run })
  })
