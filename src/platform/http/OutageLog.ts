import { Duration, Effect, Schedule, type Scope } from "effect"

/** While an outage lasts, each cause gets one line per this many ms with the requests it failed since its last line. */
export const outageLogIntervalMs = 10_000

/** How often, once requests stop failing, the database is asked whether it is back. */
export const outageCheckMs = 1_000

export interface OutageLogOptions {
  readonly intervalMs: number
  readonly checkMs: number
  /** Whether the database answers and takes writes now; a failure or `false` means not yet. */
  readonly probe: Effect.Effect<boolean, unknown>
}

interface Outage {
  readonly startedAt: number
  lastFailureAt: number
  lastLineAt: number
  total: number
  /** Failures per cause over the whole outage. */
  readonly byCause: Map<string, number>
  /** Failures per cause not yet in a line. */
  readonly unlogged: Map<string, number>
}

const unavailable = (cause: string, requests: number, requestId?: string) =>
  Effect.logWarning("database unavailable; answering 503").pipe(
    Effect.annotateLogs(requestId === undefined ? { cause, requests } : { cause, requests, requestId })
  )

/**
 * The log of database outages the service expects and answers (503): never a
 * line with a stack per request, and numbers that add up. The first failure
 * of an outage (and of each new cause within it) is logged at once; then,
 * while it lasts, each cause gets one line per interval with the requests it
 * failed since its previous line; when requests stop failing and the probe
 * finds the database back, what was not yet logged is, followed by one line
 * with the outage's total, its causes and its duration. So the `requests` of
 * a cause's lines sum to its count in the closing line.
 */
export const makeOutageLog = (
  options: OutageLogOptions
): Effect.Effect<{ readonly report: (cause: string, requestId: string) => Effect.Effect<void> }, never, Scope.Scope> =>
  Effect.gen(function*() {
    let outage: Outage | undefined

    const report = (cause: string, requestId: string) =>
      Effect.suspend(() => {
        const now = Date.now()
        if (outage === undefined) {
          outage = {
            startedAt: now,
            lastFailureAt: now,
            lastLineAt: now,
            total: 1,
            byCause: new Map([[cause, 1]]),
            unlogged: new Map()
          }
          return unavailable(cause, 1, requestId)
        }
        outage.total++
        outage.lastFailureAt = now
        const seen = outage.byCause.get(cause)
        outage.byCause.set(cause, (seen ?? 0) + 1)
        if (seen === undefined) return unavailable(cause, 1, requestId)
        outage.unlogged.set(cause, (outage.unlogged.get(cause) ?? 0) + 1)
        return Effect.void
      })

    /** One line per cause with failures not yet logged. */
    const flush = (current: Outage) =>
      Effect.suspend(() => {
        const lines = [...current.unlogged].filter(([, n]) => n > 0)
        current.unlogged.clear()
        current.lastLineAt = Date.now()
        return Effect.forEach(lines, ([cause, n]) => unavailable(cause, n), { discard: true })
      })

    const check = Effect.gen(function*() {
      const current = outage
      if (current === undefined) return
      if (Date.now() - current.lastLineAt >= options.intervalMs) yield* flush(current)
      // Requests still failing: the database is not back, and asking it would only add to the load.
      if (Date.now() - current.lastFailureAt < options.checkMs) return
      const asked = Date.now()
      const back = yield* options.probe.pipe(
        Effect.timeoutOrElse({ duration: Duration.millis(5_000), orElse: () => Effect.succeed(false) }),
        Effect.orElseSucceed(() => false)
      )
      // A request that failed while the probe was out says otherwise.
      if (!back || outage !== current || current.lastFailureAt >= asked) return
      outage = undefined
      yield* flush(current)
      // A warning like the lines it closes, so a log filtered to warnings shows the end of what it showed begin.
      yield* Effect.logWarning("database available again").pipe(Effect.annotateLogs({
        requests: current.total,
        causes: Object.fromEntries(current.byCause),
        startedAt: new Date(current.startedAt).toISOString(),
        durationMs: Date.now() - current.startedAt
      }))
    })

    yield* check.pipe(
      Effect.catchCause(() => Effect.void),
      Effect.repeat(Schedule.spaced(Duration.millis(options.checkMs))),
      Effect.forkScoped
    )
    return { report }
  })
