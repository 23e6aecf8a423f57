import { Effect } from "effect"
import { format } from "node:util"
import { vi } from "vitest"

/**
 * The log lines written while `body` runs (console.log is where the app's logger writes, and
 * where Effect's default logger writes its message and fields), each as the console would show it.
 */
export const capturingLogs = <A, E, R>(body: (lines: Array<string>) => Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const lines: Array<string> = []
    const spy = vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) => {
      lines.push(format(...args))
    })
    return yield* body(lines).pipe(Effect.ensuring(Effect.sync(() => spy.mockRestore())))
  })
