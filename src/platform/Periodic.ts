import { Cause, Duration, Effect, Schedule, type Scope } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Claims this period of the job `name` for the calling process: moves its
 * `scheduled_jobs` row to `now() + period` if it was due (or creates it), in
 * one statement on one row, so of all the processes sharing the database that
 * find it due, exactly one is answered true. The period is taken before the
 * work: a process that dies mid-run leaves the rest of that period undone,
 * and the next period runs it again (at most once per period, never twice).
 */
export const claimPeriod = (name: string, period: Duration.Duration) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`INSERT INTO scheduled_jobs (name, next_run_at)
      VALUES (${name}, now() + make_interval(secs => ${Duration.toMillis(period) / 1000}))
      ON CONFLICT (name) DO UPDATE SET next_run_at = EXCLUDED.next_run_at
      WHERE scheduled_jobs.next_run_at <= now()
      RETURNING name`.pipe(Effect.map((rows) => rows.length > 0)))

export interface PeriodicOptions<R> {
  /** The job's row in `scheduled_jobs`, and the name its failures are logged under. */
  readonly name: string
  readonly period: Duration.Duration
  /** The work of one period; its failures are logged and wait for the next period. */
  readonly run: Effect.Effect<void, unknown, R>
}

/** How often a process asks whether a period is due: a small query, so a late start or a lost winner costs seconds. */
const checkEvery = (period: Duration.Duration) => Duration.min(period, Duration.seconds(5))

/**
 * Runs `run` once per `period` across every process on the database (the
 * metrics refresh, sweeps): each process checks every few seconds, the one
 * that claims the period runs it. Forked into the caller's scope.
 */
export const forkPeriodic = <R>(
  options: PeriodicOptions<R>
): Effect.Effect<void, never, R | SqlClient.SqlClient | Scope.Scope> =>
  Effect.gen(function*() {
    const once = Effect.gen(function*() {
      if (yield* claimPeriod(options.name, options.period)) yield* options.run
    }).pipe(Effect.catchCause((cause) => Effect.logWarning(`${options.name} failed`, { cause: Cause.pretty(cause) })))
    yield* once.pipe(Effect.repeat(Schedule.spaced(checkEvery(options.period))), Effect.forkScoped)
  })
