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
      assert.deepStrictEqual(Object.keys(all.json), ["events", "nextCursor"])
      assert.isNull(all.json.nextCursor)
      const events = all.json.events as Array<{ type: string; timestamp: string; data: any }>
      assert.strictEqual(events.length, 5)
      assert.deepStrictEqual(events.map((e) => e.type), [
        "team.invited",
        "team.invited",
        "team.invited",
        "team.invited",
        "customer.status_changed"
      ])
      assert.deepStrictEqual(events.slice(0, 4).map((e) => e.data.memberId), members.map((m) => m.memberId).reverse())
      for (const e of events) {
        assert.deepStrictEqual(Object.keys(e).sort(), ["actor", "data", "id", "timestamp", "type"])
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
      const newest = yield* call(
        "GET",
        `/api/events/${a.customerId}?since=${encodeURIComponent(events[0].timestamp)}`,
        {
          headers: bearer(a.apiKey)
        }
      )
      assert.deepStrictEqual(newest.json.events, [])
      const old = yield* call("GET", `/api/events/${a.customerId}?since=2000-01-01T00:00:00Z&limit=3`, {
        headers: bearer(a.apiKey)
      })
      assert.deepStrictEqual(old.json.events, events.slice(0, 3))
      const offset = yield* call(
        "GET",
        `/api/events/${a.customerId}?since=${encodeURIComponent("2000-01-01T01:00:00+01:00")}`,
        {
          headers: bearer(a.apiKey)
        }
      )
      assert.strictEqual(offset.json.events.length, 5)
    }))

  it.effect("bad limit or since is 400 E_VALIDATION with details", () =>
    Effect.gen(function*() {
      const a = yield* provision()
      for (
        const query of [
          "limit=0",
          "limit=201",
          "limit=x",
          "limit=1.5",
          "limit=",
          "limit=-1",
          "since=yesterday",
          "since=2024-13-01T00:00:00Z",
          "since=2024-01-01"
        ]
      ) {
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

  it.effect("pages with a signed keyset cursor: every event read back once, in order, with since", () =>
    Effect.gen(function*() {
      const a = yield* provision()
      for (let i = 0; i < 6; i++) yield* invite(a, "viewer")
      const all = (yield* call("GET", `/api/events/${a.customerId}?limit=200`, { headers: bearer(a.apiKey) })).json
        .events as Array<any>
      assert.strictEqual(all.length, 7)
      assert.strictEqual(new Set(all.map((e) => e.id)).size, 7)
      for (const e of all) assert.match(e.id, /^ev_[0-9a-f]{32}$/)

      const seen: Array<any> = []
      let cursor: string | null = null
      let pages = 0
      do {
        const query: string = cursor === null ? "limit=3" : `limit=3&cursor=${encodeURIComponent(cursor)}`
        const page = yield* call("GET", `/api/events/${a.customerId}?${query}`, { headers: bearer(a.apiKey) })
        assert.strictEqual(page.status, 200, page.text)
        seen.push(...page.json.events)
        cursor = page.json.nextCursor
        pages++
        // Events written while paging never shift a page: they are newer than the cursor.
        if (pages === 1) yield* invite(a, "viewer")
      } while (cursor !== null)
      assert.strictEqual(pages, 3)
      assert.deepStrictEqual(seen, all)

      // An exact page boundary: the last full page says there is nothing more.
      const exact = yield* call("GET", `/api/events/${a.customerId}?limit=8`, { headers: bearer(a.apiKey) })
      assert.strictEqual(exact.json.events.length, 8)
      assert.isNull(exact.json.nextCursor)

      // since and cursor together: the older bound stays exclusive.
      const pivot = all[4]
      const first = yield* call(
        "GET",
        `/api/events/${a.customerId}?limit=2&since=${encodeURIComponent(pivot.timestamp)}`,
        {
          headers: bearer(a.apiKey)
        }
      )
      const second = yield* call(
        "GET",
        `/api/events/${a.customerId}?limit=2&since=${encodeURIComponent(pivot.timestamp)}&cursor=${
          encodeURIComponent(first.json.nextCursor)
        }`,
        { headers: bearer(a.apiKey) }
      )
      const newer = yield* call(
        "GET",
        `/api/events/${a.customerId}?limit=200&since=${encodeURIComponent(pivot.timestamp)}`,
        {
          headers: bearer(a.apiKey)
        }
      )
      assert.deepStrictEqual([...first.json.events, ...second.json.events], newer.json.events.slice(0, 4))
      assert.isFalse(newer.json.events.some((e: any) => e.id === pivot.id))

      // Tampered, foreign or content cursors are 400 E_INVALID_CURSOR.
      const b = yield* provision()
      yield* invite(b, "viewer")
      yield* invite(b, "viewer")
      const bCursor =
        (yield* call("GET", `/api/events/${b.customerId}?limit=1`, { headers: bearer(b.apiKey) })).json.nextCursor
      assert.isString(bCursor)
      const [payload, signature] = (bCursor as string).split(".")
      for (const bad of [bCursor, `${payload}x.${signature}`, "nonsense", `${payload}.${signature}.x`]) {
        const res = yield* call("GET", `/api/events/${a.customerId}?cursor=${encodeURIComponent(bad)}`, {
          headers: bearer(a.apiKey)
        })
        assertError(res, 400, "E_INVALID_CURSOR")
      }
    }))

  it.effect("each event names its actor: owner, member, admin or system", () =>
    Effect.gen(function*() {
      const a = yield* provision()
      const admin = yield* invite(a, "admin")
      const byMember = yield* call("POST", `/api/team/${a.customerId}/members`, {
        headers: bearer(admin.apiKey),
        body: { email: `m-${crypto.randomUUID()}@example.com`, role: "viewer" }
      })
      assert.strictEqual(byMember.status, 200)
      const rotated = yield* call("POST", `/api/customer/${a.customerId}/rotate-key`, {
        headers: bearer(a.apiKey),
        body: {}
      })
      assert.strictEqual(rotated.status, 200)
      const events = (yield* call("GET", `/api/events/${a.customerId}`, { headers: bearer(rotated.json.apiKey) })).json
        .events as Array<any>
      assert.deepStrictEqual(events.map((e) => [e.type, e.actor]), [
        ["key.rotated", { type: "owner", id: a.customerId }],
        ["team.invited", { type: "member", id: admin.memberId }],
        ["team.invited", { type: "owner", id: a.customerId }],
        ["customer.status_changed", { type: "admin", id: null }]
      ])
    }))
})
