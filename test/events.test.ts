import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { call, testApp } from "./support/harness.ts"
import { assertError, bearer, invite, provision } from "./support/processes.ts"

layer(testApp({ trustProxy: true }), { timeout: 60_000 })("events log", (it) => {
  it.effect("newest first, limit bounds and default, since exclusive", () =>
    Effect.gen(function*() {
      const a = yield* provision()
      // provision writes customer.status_changed; each invite writes team.invited.
      const members = []
      for (let i = 0; i < 4; i++) members.push(yield* invite(a, "viewer"))
      const all = yield* call("GET", `/api/events/${a.customerId}`, { headers: bearer(a.apiKey) })
      assert.strictEqual(all.status, 200)
      assert.deepStrictEqual(Object.keys(all.json), ["events"])
      const events = all.json.events as Array<{ type: string; timestamp: string; data: any }>
      assert.strictEqual(events.length, 5)
      assert.deepStrictEqual(events.map((e) => e.type), [
        "team.invited", "team.invited", "team.invited", "team.invited", "customer.status_changed"
      ])
      assert.deepStrictEqual(events.slice(0, 4).map((e) => e.data.memberId), members.map((m) => m.memberId).reverse())
      for (const e of events) {
        assert.deepStrictEqual(Object.keys(e).sort(), ["data", "timestamp", "type"])
        assert.strictEqual(new Date(e.timestamp).toISOString(), e.timestamp)
      }
      for (let i = 1; i < events.length; i++) assert.isTrue(events[i - 1].timestamp >= events[i].timestamp)

      const two = yield* call("GET", `/api/events/${a.customerId}?limit=2`, { headers: bearer(a.apiKey) })
      assert.deepStrictEqual(two.json.events, events.slice(0, 2))
      const max = yield* call("GET", `/api/events/${a.customerId}?limit=200`, { headers: bearer(a.apiKey) })
      assert.strictEqual(max.json.events.length, 5)
      const one = yield* call("GET", `/api/events/${a.customerId}?limit=1`, { headers: bearer(a.apiKey) })
      assert.strictEqual(one.json.events.length, 1)

      // since is exclusive: an event's own timestamp excludes it.
      const pivot = events[2]
      const since = yield* call("GET", `/api/events/${a.customerId}?since=${encodeURIComponent(pivot.timestamp)}`, {
        headers: bearer(a.apiKey)
      })
      assert.strictEqual(since.status, 200, since.text)
      assert.deepStrictEqual(since.json.events, events.filter((e) => e.timestamp > pivot.timestamp))
      const newest = yield* call("GET", `/api/events/${a.customerId}?since=${encodeURIComponent(events[0].timestamp)}`, {
        headers: bearer(a.apiKey)
      })
      assert.deepStrictEqual(newest.json.events, [])
      const old = yield* call("GET", `/api/events/${a.customerId}?since=2000-01-01T00:00:00Z&limit=3`, { headers: bearer(a.apiKey) })
      assert.deepStrictEqual(old.json.events, events.slice(0, 3))
      const offset = yield* call("GET", `/api/events/${a.customerId}?since=${encodeURIComponent("2000-01-01T01:00:00+01:00")}`, {
        headers: bearer(a.apiKey)
      })
      assert.strictEqual(offset.json.events.length, 5)
    }))

  it.effect("bad limit or since is 400 E_VALIDATION with details", () =>
    Effect.gen(function*() {
      const a = yield* provision()
      for (const query of ["limit=0", "limit=201", "limit=x", "limit=1.5", "limit=", "limit=-1", "since=yesterday", "since=2024-13-01T00:00:00Z", "since=2024-01-01"]) {
        const res = yield* call("GET", `/api/events/${a.customerId}?${query}`, { headers: bearer(a.apiKey) })
        assertError(res, 400, "E_VALIDATION")
        assert.isArray(res.json.details, `${query}: ${res.text}`)
        assert.isAtLeast(res.json.details.length, 1)
        const field = query.split("=")[0]
        assert.strictEqual(res.json.details[0].path, `query.${field}`, `${query}: ${res.text}`)
        assert.include(res.json.error, field)
      }
      // An integer out of range says so, whatever its sign.
      for (const limit of ["0", "-1", "-0", "201", "1000000"]) {
        const res = yield* call("GET", `/api/events/${a.customerId}?limit=${limit}`, { headers: bearer(a.apiKey) })
        assert.strictEqual(res.json.details[0].message, "must be between 1 and 200", `${limit}: ${res.text}`)
      }
    }))

  it.effect("a viewer reads the log; another customer cannot; the log is per customer", () =>
    Effect.gen(function*() {
      const a = yield* provision()
      const b = yield* provision()
      const viewer = yield* invite(a, "viewer")
      const res = yield* call("GET", `/api/events/${a.customerId}`, { headers: bearer(viewer.apiKey) })
      assert.strictEqual(res.status, 200)
      const cross = yield* call("GET", `/api/events/${a.customerId}`, { headers: bearer(b.apiKey) })
      assertError(cross, 403, "E_FORBIDDEN")
      const own = yield* call("GET", `/api/events/${b.customerId}`, { headers: bearer(b.apiKey) })
      assert.deepStrictEqual(own.json.events.map((e: { type: string }) => e.type), ["customer.status_changed"])
    }))
})
