import { assert, describe, it, layer } from "@effect/vitest"
import { Clock, Effect, Exit } from "effect"
import fc from "fast-check"
import { type CapName, exceededCap, type Spent, toMicros } from "../src/domain/Budget.ts"
import type { Budget as BudgetCaps } from "../src/domain/Settings.ts"
import { Customers } from "../src/features/customers/Customers.ts"
import { Budget } from "../src/features/settings/Budget.ts"
import { Settings } from "../src/features/settings/Settings.ts"
import { testServices } from "./support/services.ts"

const cents = fc.integer({ min: 0, max: 100_000 })
const cap = fc.option(cents, { nil: null })

describe("budget caps compare each window with its own spend", () => {
  it("every cap is checked against the spend of its own window (different per window)", () => {
    fc.assert(fc.property(
      // Spend only grows with the window: day <= week-or-month, and the channel's is part of the month's.
      fc.tuple(cents, cents, cents, cents).map(([d, w, m, c]) => ({
        daily: d,
        weekly: d + w,
        monthly: d + w + m,
        channel: Math.min(c, d + w + m)
      })),
      fc.record({ daily: cap, weekly: cap, monthly: cap, channel: cap }),
      cents,
      (spentCents, caps, amountCents) => {
        const spent: Spent = {
          daily: toMicros(spentCents.daily / 100),
          weekly: toMicros(spentCents.weekly / 100),
          monthly: toMicros(spentCents.monthly / 100),
          channel: toMicros(spentCents.channel / 100)
        }
        const budget: BudgetCaps = {
          daily: caps.daily === null ? null : caps.daily / 100,
          weekly: caps.weekly === null ? null : caps.weekly / 100,
          monthly: caps.monthly === null ? null : caps.monthly / 100,
          channels: caps.channel === null ? {} : { ads: caps.channel / 100 }
        }
        // The reference, in whole cents: the first window whose own spend plus the charge passes its cap.
        const order: ReadonlyArray<CapName> = ["daily", "weekly", "monthly", "channel"]
        const expected = order.find((name) => caps[name] !== null && spentCents[name] + amountCents > caps[name]!)
        const result = exceededCap(budget, "ads", spent, amountCents / 100)
        assert.strictEqual(result?.cap, expected)
        if (result !== undefined) assert.strictEqual(toMicros(result.spent), spent[result.cap])
      }
    ))
  })
})

/**
 * A clock stopped at `iso` for the charges (TestClock would run every
 * periodic task of the services across the decades it jumps).
 */
const stoppedAt = (iso: string): Clock.Clock => {
  const real = Clock.Clock.defaultValue()
  const ms = Date.parse(iso)
  return {
    currentTimeMillisUnsafe: () => ms,
    currentTimeMillis: Effect.succeed(ms),
    currentTimeNanosUnsafe: () => BigInt(ms) * 1_000_000n,
    currentTimeNanos: Effect.succeed(BigInt(ms) * 1_000_000n),
    monotonicTimeNanosUnsafe: () => real.monotonicTimeNanosUnsafe(),
    monotonicTimeNanos: real.monotonicTimeNanos,
    sleep: (duration) => real.sleep(duration)
  }
}

layer(testServices, { timeout: 60_000, excludeTestServices: true })("budget windows over the ledger", (it) => {
  const customer = Effect.gen(function*() {
    const { customer } = yield* (yield* Customers).provision({ email: `budget-${crypto.randomUUID()}@example.com` })
    return customer.id
  })
  const refused = (effect: Effect.Effect<unknown, unknown>) =>
    Effect.map(Effect.exit(effect), (exit) => {
      assert.isTrue(Exit.isFailure(exit), "the charge should have been refused")
      return JSON.stringify(exit)
    })

  it.effect("spend earlier in the month counts for the monthly cap only; earlier in the week for weekly and monthly", () =>
    Effect.gen(function*() {
      const budget = yield* Budget
      const settings = yield* Settings
      const id = yield* customer
      let now = ""
      const at = (iso: string) => Effect.sync(() => void (now = iso))
      const charge = (amount: number) =>
        Effect.suspend(() => Effect.provideService(budget.charge(id, "model", amount), Clock.Clock, stoppedAt(now)))
      // Tuesday 3 November 2026 (the week of Monday 2 November), then Tuesday 24 and Wednesday 25 (week of Monday 23).
      yield* at("2026-11-03T10:00:00Z")
      yield* charge(5)
      yield* at("2026-11-24T10:00:00Z")
      yield* charge(2)
      yield* at("2026-11-25T10:00:00Z")
      yield* settings.updateBudget(id, { daily: 1, weekly: 3, monthly: 8 })
      // Today: nothing spent yet, so 1 fits the daily cap; the week holds 2 (Tuesday), so 1 more fits 3.
      yield* charge(1)
      assert.include(yield* refused(charge(0.5)), "daily")
      yield* settings.updateBudget(id, { daily: null })
      // The week holds 3 now: anything more passes the weekly cap, though the month holds 8 of 8.
      assert.include(yield* refused(charge(0.01)), "weekly")
      yield* settings.updateBudget(id, { weekly: null })
      assert.include(yield* refused(charge(0.01)), "monthly")
      yield* settings.updateBudget(id, { monthly: null, weekly: 4 })
      // A new week in the same month: the weekly window starts again at Monday 30 November.
      yield* at("2026-11-30T09:00:00Z")
      yield* charge(4)
      assert.include(yield* refused(charge(0.01)), "weekly")
      // A week that straddles two months: Tuesday 1 December counts Monday 30 November in its week, not its month.
      yield* settings.updateBudget(id, { weekly: null, monthly: 1 })
      yield* at("2026-12-01T09:00:00Z")
      yield* charge(1)
      assert.include(yield* refused(charge(0.01)), "monthly")
      yield* settings.updateBudget(id, { monthly: null, weekly: 5 })
      assert.include(yield* refused(charge(0.01)), "weekly")
    }))
})
