import { assert, layer } from "@effect/vitest"
import { Clock, Context, Effect } from "effect"
import type { CustomerId } from "../src/domain/Ids.ts"
import { Workflows } from "../src/features/workflows/Workflows.ts"
import { call, testApp, TestServer } from "./support/harness.ts"

/**
 * A clock the test moves by hand; sleeps stay real, so whatever the scheduler
 * hands to the engine runs as it would (TestClock would stop it).
 */
const manualClock = () => {
  const real = Clock.Clock.defaultValue()
  let ms = 0
  const clock: Clock.Clock = {
    currentTimeMillisUnsafe: () => ms,
    currentTimeMillis: Effect.sync(() => ms),
    currentTimeNanosUnsafe: () => BigInt(ms) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(ms) * 1_000_000n),
    monotonicTimeNanosUnsafe: () => real.monotonicTimeNanosUnsafe(),
    monotonicTimeNanos: real.monotonicTimeNanos,
    sleep: (duration) => real.sleep(duration)
  }
  return { clock, set: (iso: string) => void (ms = Date.parse(iso)), now: () => ms }
}

interface Scenario {
  readonly title: string
  readonly schedule: string
  readonly timezone: string
  readonly from: string
  readonly to: string
  /** The instants the scheduler must start a run at (a missing wall time once at the next valid instant, a repeated one once at its first). */
  readonly fires: ReadonlyArray<string>
}

const scenarios: ReadonlyArray<Scenario> = [
  {
    title: "New York spring forward: 02:30 does not exist on 8 March",
    schedule: "30 2 * * *",
    timezone: "America/New_York",
    from: "2026-03-07T12:00:00Z",
    to: "2026-03-09T12:00:00Z",
    fires: ["2026-03-08T07:00:00.000Z", "2026-03-09T06:30:00.000Z"]
  },
  {
    title: "Berlin spring forward: 02:30 does not exist on 29 March",
    schedule: "30 2 * * *",
    timezone: "Europe/Berlin",
    from: "2026-03-28T12:00:00Z",
    to: "2026-03-30T12:00:00Z",
    fires: ["2026-03-29T01:00:00.000Z", "2026-03-30T00:30:00.000Z"]
  },
  {
    title: "Berlin fall back: 02:30 happens twice on 25 October",
    schedule: "30 2 * * *",
    timezone: "Europe/Berlin",
    from: "2026-10-24T12:00:00Z",
    to: "2026-10-26T12:00:00Z",
    fires: ["2026-10-25T00:30:00.000Z", "2026-10-26T01:30:00.000Z"]
  },
  {
    title: "New York fall back: 01:30 happens twice on 1 November",
    schedule: "30 1 * * *",
    timezone: "America/New_York",
    from: "2026-10-31T12:00:00Z",
    to: "2026-11-02T12:00:00Z",
    fires: ["2026-11-01T05:30:00.000Z", "2026-11-02T06:30:00.000Z"]
  }
]

/** Five minutes: every tick of these schedules is on a five-minute boundary, so each fires at its own instant. */
const step = 5 * 60_000

/** The workflows service and the test database, a manual clock the service's calls run on, and a fresh customer. */
const onManualClock = Effect.gen(function*() {
  const { services, sql } = yield* TestServer
  const time = manualClock()
  return {
    workflows: Context.get(services, Workflows),
    sql,
    time,
    onClock: <A, E>(effect: Effect.Effect<A, E>) => Effect.provideService(effect, Clock.Clock, time.clock),
    provisioned: (email: string) =>
      Effect.map(
        call("POST", "/api/admin/provision", { headers: { "x-admin-secret": "test-admin-secret" }, body: { email } }),
        (res) => {
          assert.strictEqual(res.status, 200, res.text)
          return res.json.customerId as CustomerId
        }
      )
  }
})

// The app's own loop polls hourly here, so only the test's calls fire ticks, each at the manual clock's time.
layer(testApp({ workflowPollIntervalMs: 3_600_000 }), { timeout: 180_000, excludeTestServices: true })(
  "cron driven by a manual clock",
  (it) => {
    it.effect("across both daylight-saving changes in Europe/Berlin and America/New_York: each wall time once, none skipped", () =>
      Effect.gen(function*() {
        const { onClock, provisioned, sql, time, workflows } = yield* onManualClock

        for (const [i, scenario] of scenarios.entries()) {
          const customerId = yield* provisioned(`dst-${i}@example.com`)
          time.set(scenario.from)
          yield* onClock(
            workflows.update(customerId, "performance-report", {
              schedule: scenario.schedule,
              timezone: scenario.timezone
            })
          )
          const enabled = yield* onClock(workflows.toggle(customerId, "performance-report", true))
          assert.strictEqual(enabled.nextRunAt, scenario.fires[0], scenario.title)

          const firedAt: Array<string> = []
          for (let at = Date.parse(scenario.from); at <= Date.parse(scenario.to); at += step) {
            time.set(new Date(at).toISOString())
            const fired = yield* onClock(workflows.fireDue)
            for (let n = 0; n < fired; n++) firedAt.push(new Date(at).toISOString())
          }
          assert.deepStrictEqual(firedAt, scenario.fires, scenario.title)
          const runs = yield* sql<
            { triggeredBy: string }
          >`SELECT triggered_by FROM workflow_runs WHERE customer_id = ${customerId}`
          assert.deepStrictEqual(runs.map((r) => r.triggeredBy), scenario.fires.map(() => "cron"), scenario.title)
          // Off again: a disabled workflow never fires, however late the clock.
          yield* onClock(workflows.toggle(customerId, "performance-report", false))
          time.set("2027-06-01T00:00:00Z")
          assert.strictEqual(yield* onClock(workflows.fireDue), 0, scenario.title)
        }
      }))

    it.effect("clocks seconds apart: an edit neither brings a fired tick back nor skips a pending one, and a tick fires once", () =>
      Effect.gen(function*() {
        const { onClock, provisioned, sql, time, workflows } = yield* onManualClock
        const customerId = yield* provisioned("skew@example.com")
        const id = "performance-report"
        time.set("2026-12-01T08:50:00Z")
        yield* onClock(workflows.update(customerId, id, { schedule: "0 * * * *", timezone: "UTC" }))
        assert.strictEqual(
          (yield* onClock(workflows.toggle(customerId, id, true))).nextRunAt,
          "2026-12-01T09:00:00.000Z"
        )

        // Three seconds before the tick, through a process whose clock is five seconds ahead.
        time.set("2026-12-01T09:00:02Z")
        const renamed = yield* onClock(workflows.update(customerId, id, { name: "Renamed" }))
        assert.strictEqual(renamed.nextRunAt, "2026-12-01T09:00:00.000Z", "a pending tick is kept")

        time.set("2026-12-01T09:00:00Z")
        assert.strictEqual(yield* onClock(workflows.fireDue), 1)

        // Two seconds after it, through a process whose clock is five seconds behind.
        time.set("2026-12-01T08:59:57Z")
        const described = yield* onClock(workflows.update(customerId, id, { description: "Edited" }))
        assert.strictEqual(described.nextRunAt, "2026-12-01T10:00:00.000Z", "a fired tick is not brought back")
        yield* onClock(workflows.resync)
        const rescheduled = yield* onClock(workflows.update(customerId, id, { schedule: "*/30 * * * *" }))
        assert.strictEqual(
          rescheduled.nextRunAt,
          "2026-12-01T09:30:00.000Z",
          "a new schedule starts after the last tick"
        )
        time.set("2026-12-01T09:00:03Z")
        assert.strictEqual(yield* onClock(workflows.fireDue), 0)

        const runs = yield* sql<{ triggeredBy: string }>`SELECT triggered_by FROM workflow_runs
          WHERE customer_id = ${customerId} AND workflow_id = ${id}`
        assert.deepStrictEqual(runs.map((r) => r.triggeredBy), ["cron"])
      }))
  }
)
