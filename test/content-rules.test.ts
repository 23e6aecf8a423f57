import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import fc from "fast-check"
import { initialStatusForLevel, resolveLevel } from "../src/domain/Autonomy.ts"
import { adSpend, exceededCap, type Spent, toMicros, windowStarts } from "../src/domain/Budget.ts"
import {
  allowedMoves,
  type ContentAction,
  type ContentStatus,
  deleteRefusal,
  describeForbiddenMove,
  initialStatuses,
  transition
} from "../src/domain/Content.ts"
import { type Autonomy, type Budget, skillNames } from "../src/domain/Settings.ts"

const statuses: ReadonlyArray<ContentStatus> = ["draft", "pending_approval", "approved", "published", "rejected"]
const actions: ReadonlyArray<ContentAction> = ["approve", "reject", "edit", "publish", "submit"]
const types = ["blog", "social", "email", "ad", "outreach"] as const

// The table of moves (docs/api-rules.md) written out independently of the implementation's table.
const contract = new Set([
  "draft>approved",
  "pending_approval>approved",
  "draft>rejected",
  "pending_approval>rejected",
  "rejected>draft",
  "approved>published",
  "draft>draft",
  "pending_approval>pending_approval",
  "draft>pending_approval"
])
// Submitting is the draft's own move: a pending piece's self-move is an edit, never a submission.
const allowedByContract = (from: ContentStatus, action: ContentAction, to: ContentStatus) =>
  contract.has(`${from}>${to}`) && (action !== "submit" || from === "draft")

describe("content state machine", () => {
  it("no sequence of actions leaves the table; published is final", () => {
    fc.assert(fc.property(
      fc.constantFrom(...initialStatuses),
      fc.array(fc.constantFrom(...actions), { maxLength: 30 }),
      (start, sequence) => {
        let status = start
        for (const action of sequence) {
          const next = transition(status, action)
          if (Result.isSuccess(next)) {
            assert.isTrue(contract.has(`${status}>${next.success}`), `${status} -${action}-> ${next.success}`)
            assert.notStrictEqual(status, "published")
            status = next.success
          } else {
            assert.strictEqual(next.failure.from, status)
          }
        }
      }
    ))
  })

  it("every status/action pair is allowed exactly when the table lists its target", () => {
    for (const from of statuses) {
      for (const action of actions) {
        const next = transition(from, action)
        const to = Result.isSuccess(next) ? next.success : next.failure.to
        assert.strictEqual(
          Result.isSuccess(next),
          allowedMoves[from].includes(to) && (action !== "submit" || from === "draft")
        )
        assert.strictEqual(Result.isSuccess(next), allowedByContract(from, action, to), `${from} -${action}-> ${to}`)
      }
    }
    for (const action of actions) assert.isTrue(Result.isFailure(transition("published", action)))
  })

  it("refusals say what a person tried: editing approved or published content, submitting a non-draft", () => {
    for (const from of ["approved", "published"] as const) {
      const next = transition(from, "edit")
      assert.isTrue(Result.isFailure(next))
      if (Result.isFailure(next)) {
        assert.match(describeForbiddenMove(next.failure), new RegExp(`^${from} content cannot be edited`))
      }
    }
    const submitted = transition("pending_approval", "submit")
    assert.isTrue(Result.isFailure(submitted))
    if (Result.isFailure(submitted)) {
      assert.include(describeForbiddenMove(submitted.failure), "Only a draft can be submitted")
    }
    assert.deepStrictEqual(statuses.filter((s) => deleteRefusal(s) === undefined), ["draft", "rejected"])
    assert.strictEqual(
      deleteRefusal("pending_approval"),
      "pending approval content cannot be deleted (only draft and rejected pieces can)"
    )
  })
})

const level = fc.integer({ min: 1, max: 5 })
const autonomyArb: fc.Arbitrary<Autonomy> = fc.record({
  globalDefault: level,
  categories: fc.dictionary(fc.constantFrom(...types), level),
  skills: fc.dictionary(fc.constantFrom(...skillNames), level)
})

describe("autonomy resolver", () => {
  it("skill override, else category override, else the global default", () => {
    fc.assert(fc.property(
      autonomyArb,
      fc.option(fc.constantFrom(...types), { nil: undefined }),
      fc.option(fc.constantFrom(...skillNames, "not_a_skill"), { nil: undefined }),
      (autonomy, category, skill) => {
        const skills: Record<string, number | undefined> = autonomy.skills
        const expected = (skill === undefined ? undefined : skills[skill]) ??
          (category === undefined ? undefined : autonomy.categories[category]) ??
          autonomy.globalDefault
        assert.strictEqual(resolveLevel(autonomy, { category, skill }), expected)
      }
    ))
  })

  it("maps levels onto starting statuses", () => {
    assert.deepStrictEqual([1, 2, 3, 4, 5].map(initialStatusForLevel), [
      "draft",
      "pending_approval",
      "pending_approval",
      "approved",
      "approved"
    ])
  })
})

const cents = fc.integer({ min: 0, max: 1_000_000 }).map((n) => n / 100)
const cap = fc.option(cents, { nil: null })

describe("budget cap arithmetic", () => {
  it("refuses exactly when some cap would be passed, whatever the decimals", () => {
    fc.assert(fc.property(
      fc.record({ daily: cap, weekly: cap, monthly: cap }),
      fc.option(cents, { nil: undefined }),
      fc.array(cents, { maxLength: 20 }),
      cents,
      (caps, channelCap, history, amount) => {
        const budget: Budget = { ...caps, channels: channelCap === undefined ? {} : { ads: channelCap } }
        // Whole cents summed as integers: the reference the micros arithmetic must agree with.
        const spentCents = history.reduce((sum, x) => sum + Math.round(x * 100), 0)
        const spent: Spent = {
          daily: toMicros(spentCents / 100),
          weekly: toMicros(spentCents / 100),
          monthly: toMicros(spentCents / 100),
          channel: toMicros(spentCents / 100)
        }
        const limits = [caps.daily, caps.weekly, caps.monthly, channelCap ?? null]
        const passes = limits.some((limit) =>
          limit !== null && spentCents + Math.round(amount * 100) > Math.round(limit * 100)
        )
        assert.strictEqual(exceededCap(budget, "ads", spent, amount) !== undefined, passes)
        // A charge on another channel ignores the ads cap.
        const other = [caps.daily, caps.weekly, caps.monthly]
          .some((limit) => limit !== null && spentCents + Math.round(amount * 100) > Math.round(limit * 100))
        assert.strictEqual(exceededCap(budget, "model", spent, amount) !== undefined, other)
      }
    ))
  })

  it("an ad's spend is its metadata.spend when that is an amount above 0; other pieces cost nothing", () => {
    const ad = (spend: unknown) => adSpend({ type: "ad", metadata: { spend } })
    assert.strictEqual(ad(12.5), 12.5)
    assert.strictEqual(ad("12.5"), 12.5)
    assert.strictEqual(ad(" 7 "), 7)
    for (
      const none of [0, -3, "-3", "", "  ", "ten", Number.NaN, Number.POSITIVE_INFINITY, "Infinity", null, true, [5], {
        amount: 5
      }, undefined]
    ) {
      assert.strictEqual(ad(none), 0, String(none))
    }
    assert.strictEqual(adSpend({ type: "ad", metadata: {} }), 0)
    assert.strictEqual(adSpend({ type: "social", metadata: { spend: 12.5 } }), 0)
  })

  it("0.1 + 0.2 fits under a cap of 0.3", () => {
    const budget: Budget = { daily: 0.3, weekly: null, monthly: null, channels: {} }
    const spent = toMicros(0.1)
    assert.isUndefined(exceededCap(budget, "x", { daily: spent, weekly: spent, monthly: spent, channel: spent }, 0.2))
  })

  it("windows are UTC calendar day, ISO week and month containing the instant", () => {
    fc.assert(
      fc.property(fc.date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }), (now) => {
        const { day, week, month } = windowStarts(now)
        assert.isTrue(day <= now && now.getTime() - day.getTime() < 86_400_000)
        assert.strictEqual(day.getUTCHours() + day.getUTCMinutes() + day.getUTCMilliseconds(), 0)
        assert.strictEqual(week.getUTCDay(), 1)
        assert.isTrue(now.getTime() - week.getTime() < 7 * 86_400_000 && week <= now)
        assert.strictEqual(month.getUTCDate(), 1)
        assert.strictEqual(month.getUTCMonth(), now.getUTCMonth())
      })
    )
  })
})
