import { Effect } from "effect"
import { vi } from "vitest"

/**
 * For the scope, this process's `Date` reads `ms` behind the real time and
 * runs on from there, as the clock of a service whose machine disagrees with
 * its database's would. Only `Date` is faked: timers stay real, and the
 * database keeps its own clock.
 */
export const clockBehind = (ms: number) =>
  Effect.acquireRelease(
    Effect.sync(() => void vi.useFakeTimers({ toFake: ["Date"], now: Date.now() - ms, shouldAdvanceTime: true })),
    () => Effect.sync(() => void vi.useRealTimers())
  )
