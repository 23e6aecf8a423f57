import { Effect } from "effect"
import { vi } from "vitest"

/** The JSON log lines written while `body` runs (console.log is where the app's logger writes). */
export const capturingLogs = <A, E, R>(body: (lines: Array<string>) => Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const lines: Array<string> = []
    const spy = vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) => {
      lines.push(args.map(String).join(" "))
    })
    return yield* body(lines).pipe(Effect.ensuring(Effect.sync(() => spy.mockRestore())))
  })
