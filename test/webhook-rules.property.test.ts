import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { recoverySinceProblem, recoveryWindowDays } from "../src/domain/Webhooks.ts"

const day = 86_400_000

describe("the recovery window", () => {
  it("accepts exactly the instants from the window's start up to now", () => {
    fc.assert(fc.property(
      fc.date({ min: new Date("2020-01-01T00:00:00Z"), max: new Date("2040-01-01T00:00:00Z"), noInvalidDate: true }),
      fc.integer({ min: -30 * day, max: 30 * day }),
      (now, offset) => {
        const problem = recoverySinceProblem(new Date(now.getTime() - offset), now)
        if (offset < 0) return problem === "must not be in the future"
        if (offset > recoveryWindowDays * day) return problem === `must be within the last ${recoveryWindowDays} days`
        return problem === undefined
      }
    ))
  })

  it("both ends belong to the window; a millisecond beyond either does not", () => {
    const now = new Date("2026-06-01T12:00:00Z")
    const start = now.getTime() - recoveryWindowDays * day
    assert.isUndefined(recoverySinceProblem(now, now))
    assert.isUndefined(recoverySinceProblem(new Date(start), now))
    assert.strictEqual(recoverySinceProblem(new Date(now.getTime() + 1), now), "must not be in the future")
    assert.strictEqual(
      recoverySinceProblem(new Date(start - 1), now),
      `must be within the last ${recoveryWindowDays} days`
    )
  })
})
