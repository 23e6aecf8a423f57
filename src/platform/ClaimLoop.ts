import { Cause, Duration, Effect, FiberSet, Latch, type Scope } from "effect"

export interface ClaimLoopOptions<J, E, R> {
  /** Named in the warning a failed poll logs. */
  readonly name: string
  /** Jobs run at once by this process. */
  readonly maxInFlight: number
  readonly pollInterval: Duration.Duration
  /** Claims up to `limit` due jobs (FOR UPDATE SKIP LOCKED and a lease, so other processes skip them). */
  readonly claim: (limit: number) => Effect.Effect<ReadonlyArray<J>, E, R>
  /** Runs one claimed job; it handles its own failures (an unrecorded one is claimed again when its lease lapses). */
  readonly run: (job: J) => Effect.Effect<void, never, R>
}

/**
 * The worker loop of a PostgreSQL-claimed queue (webhook deliveries, social
 * posts): claims as many due jobs as there are free slots, runs each in its
 * own fiber, claims again at once after a full batch, else waits for the poll
 * interval or a freed slot. Forked into the caller's scope.
 */
export const forkClaimLoop = <J, E, R>(
  options: ClaimLoopOptions<J, E, R>
): Effect.Effect<void, never, R | Scope.Scope> =>
  Effect.gen(function*() {
    const fibers = yield* FiberSet.make()
    const slotFreed = yield* Latch.make()
    let inFlight = 0
    const poll = Effect.gen(function*() {
      yield* slotFreed.close
      const free = options.maxInFlight - inFlight
      if (free === 0) return yield* Effect.timeoutOption(slotFreed.await, options.pollInterval)
      const jobs = yield* options.claim(free)
      for (const job of jobs) {
        inFlight++
        yield* FiberSet.run(
          fibers,
          options.run(job).pipe(
            Effect.ensuring(Effect.suspend(() => {
              inFlight--
              return slotFreed.open
            }))
          )
        )
      }
      // A full batch means more may be due: claim again at once.
      if (jobs.length < free) yield* Effect.sleep(options.pollInterval)
    }).pipe(
      Effect.catchCause((cause) =>
        Effect.andThen(
          Effect.logWarning(`${options.name} poll failed`, { cause: Cause.pretty(cause) }),
          Effect.sleep(options.pollInterval)
        )
      )
    )
    yield* Effect.forkScoped(Effect.forever(poll))
  })
