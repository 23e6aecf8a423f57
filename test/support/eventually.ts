import { Effect } from "effect"

export const sleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

/** Polls `check` every 50 ms until it returns a value, for at most `ms`; then the test dies. */
export const eventually = <A, R>(check: Effect.Effect<A | undefined, never, R>, ms = 15_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + ms
    for (;;) {
      const value = yield* check
      if (value !== undefined) return value
      if (Date.now() > deadline) return yield* Effect.die(new Error("condition not met in time"))
      yield* sleep(50)
    }
  })
