import { assert, describe, it } from "@effect/vitest"
import { CronExpressionParser } from "cron-parser"
import fc from "fast-check"
import { cronProblem, isTimeZone, nextFire, wallTime } from "../src/domain/Cron.ts"

const field = (min: number, max: number) =>
  fc.oneof(
    fc.constant("*"),
    fc.integer({ min, max }).map(String),
    fc.tuple(fc.integer({ min, max }), fc.integer({ min, max })).map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`),
    fc.integer({ min: 1, max: Math.max(1, Math.floor((max - min) / 2)) }).map((k) => `*/${k}`),
    fc.uniqueArray(fc.integer({ min, max }), { minLength: 2, maxLength: 4 }).map((xs) =>
      xs.sort((a, b) => a - b).join(",")
    )
  )

const expression = fc.tuple(field(0, 59), field(0, 23), field(1, 28), field(1, 12), field(0, 6)).map((fs) =>
  fs.join(" ")
)

// Instants from 2020 to 2030, whole seconds.
const instant = fc.integer({ min: Date.UTC(2020, 0, 1) / 1000, max: Date.UTC(2030, 0, 1) / 1000 }).map((s) =>
  new Date(s * 1000)
)

/** Fire times from `from` until `to`, each computed from the previous one (as the scheduler does after a tick). */
const firesBetween = (expr: string, zone: string, from: Date, to: Date) => {
  const out: Array<string> = []
  for (let at = nextFire(expr, zone, from); at !== undefined && at < to; at = nextFire(expr, zone, at)) {
    out.push(at.toISOString())
  }
  return out
}

describe("cron next fire", () => {
  it("agrees with cron-parser in UTC for any 5-field expression and instant", () => {
    fc.assert(
      fc.property(expression, instant, (expr, at) => {
        const ours = nextFire(expr, "UTC", at)
        const theirs = CronExpressionParser.parse(expr, { currentDate: at, tz: "UTC" }).next().toDate()
        assert.strictEqual(ours?.toISOString(), theirs.toISOString(), `${expr} after ${at.toISOString()}`)
      }),
      { numRuns: 400 }
    )
  })

  it("agrees with cron-parser in zones away from daylight-saving changes", () => {
    fc.assert(
      fc.property(
        expression,
        fc.constantFrom("Asia/Tokyo", "Asia/Kolkata", "America/Sao_Paulo", "Africa/Nairobi"),
        instant,
        (expr, zone, at) => {
          const ours = nextFire(expr, zone, at)
          const theirs = CronExpressionParser.parse(expr, { currentDate: at, tz: zone }).next().toDate()
          assert.strictEqual(ours?.toISOString(), theirs.toISOString(), `${expr} in ${zone} after ${at.toISOString()}`)
        }
      ),
      { numRuns: 200 }
    )
  })

  it("validates expressions and zones", () => {
    assert.isUndefined(cronProblem("0 9 * * 1"))
    assert.isUndefined(cronProblem("*/15 8-18 * * 1-5"))
    assert.isString(cronProblem("0 9 * *"))
    assert.isString(cronProblem("0 9 * * * *"))
    assert.isString(cronProblem("61 9 * * *"))
    assert.isString(cronProblem(""))
    assert.isString(cronProblem("0 0 31 2 *"))
    assert.isTrue(isTimeZone("Europe/Berlin"))
    assert.isTrue(isTimeZone("UTC"))
    assert.isFalse(isTimeZone("Mars/Olympus"))
    assert.isFalse(isTimeZone(""))
  })
})

describe("cron across daylight-saving changes", () => {
  it("Europe/Berlin spring forward: 02:30 does not exist on 29 March; it runs once, at 03:00 CEST", () => {
    const fires = firesBetween(
      "30 2 * * *",
      "Europe/Berlin",
      new Date("2026-03-27T12:00:00Z"),
      new Date("2026-03-31T12:00:00Z")
    )
    assert.deepStrictEqual(fires, [
      "2026-03-28T01:30:00.000Z", // 02:30 CET
      "2026-03-29T01:00:00.000Z", // 03:00 CEST, the first valid instant after 02:30
      "2026-03-30T00:30:00.000Z", // 02:30 CEST
      "2026-03-31T00:30:00.000Z"
    ])
  })

  it("Europe/Berlin fall back: 02:30 happens twice on 25 October; it runs once, at the first", () => {
    const fires = firesBetween(
      "30 2 * * *",
      "Europe/Berlin",
      new Date("2026-10-24T12:00:00Z"),
      new Date("2026-10-27T12:00:00Z")
    )
    assert.deepStrictEqual(fires, [
      "2026-10-25T00:30:00.000Z", // 02:30 CEST
      "2026-10-26T01:30:00.000Z", // 02:30 CET
      "2026-10-27T01:30:00.000Z"
    ])
    // An every-30-minutes schedule runs the repeated hour's wall times once.
    const half = firesBetween(
      "*/30 * * * *",
      "Europe/Berlin",
      new Date("2026-10-24T23:50:00Z"),
      new Date("2026-10-25T02:10:00Z")
    )
    const walls = half.map((f) => wallTime(new Date(f), "Europe/Berlin").slice(-5))
    assert.deepStrictEqual(walls, ["02:00", "02:30", "03:00"])
    assert.strictEqual(new Set(walls).size, walls.length)
  })

  it("America/New_York: 02:30 on 8 March runs at 03:00 EDT; 01:30 on 1 November runs once", () => {
    const spring = firesBetween(
      "30 2 * * *",
      "America/New_York",
      new Date("2026-03-07T00:00:00Z"),
      new Date("2026-03-09T12:00:00Z")
    )
    assert.deepStrictEqual(spring, ["2026-03-07T07:30:00.000Z", "2026-03-08T07:00:00.000Z", "2026-03-09T06:30:00.000Z"])
    const fall = firesBetween(
      "30 1 * * *",
      "America/New_York",
      new Date("2026-10-31T12:00:00Z"),
      new Date("2026-11-02T12:00:00Z")
    )
    assert.deepStrictEqual(fall, ["2026-11-01T05:30:00.000Z", "2026-11-02T06:30:00.000Z"])
    const hourly = firesBetween(
      "0 * * * *",
      "America/New_York",
      new Date("2026-11-01T04:30:00Z"),
      new Date("2026-11-01T08:30:00Z")
    )
    assert.deepStrictEqual(hourly.map((f) => wallTime(new Date(f), "America/New_York").slice(-5)), [
      "01:00",
      "02:00",
      "03:00"
    ])
  })

  it("never fires twice for one wall time, and never skips a day, for daily schedules across any year's changes", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 59 }),
        fc.integer({ min: 0, max: 23 }),
        fc.constantFrom("Europe/Berlin", "America/New_York", "Australia/Sydney", "Europe/London"),
        fc.integer({ min: 2024, max: 2028 }),
        (minute, hour, zone, year) => {
          const fires = firesBetween(
            `${minute} ${hour} * * *`,
            zone,
            new Date(Date.UTC(year, 0, 1)),
            new Date(Date.UTC(year + 1, 0, 1))
          )
          const days = fires.map((f) => wallTime(new Date(f), zone).slice(0, 10))
          assert.strictEqual(new Set(days).size, days.length)
          assert.isAtLeast(days.length, 364)
        }
      ),
      { numRuns: 8 }
    )
  })
})
