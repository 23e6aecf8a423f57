import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { call, testApp } from "./support/harness.ts"

layer(testApp(), { timeout: 60_000 })("health and status", (it) => {
  it.effect("liveness answers ok with the service name", () =>
    Effect.gen(function*() {
      const res = yield* call("GET", "/api/health")
      assert.strictEqual(res.status, 200)
      assert.strictEqual(res.json.service, "herald")
      assert.strictEqual(res.json.status, "ok")
      assert.isFalse(Number.isNaN(Date.parse(res.json.timestamp)))
      assert.match(res.headers.get("x-request-id") ?? "", /^req_/)
    }))

  it.effect("readiness hides components without the admin secret", () =>
    Effect.gen(function*() {
      const plain = yield* call("GET", "/api/health/ready")
      assert.strictEqual(plain.status, 200)
      assert.deepStrictEqual(Object.keys(plain.json).sort(), ["service", "status", "timestamp"])
      const wrong = yield* call("GET", "/api/health/ready", { headers: { "x-admin-secret": "nope" } })
      assert.isUndefined(wrong.json.components)
      const admin = yield* call("GET", "/api/health/ready", { headers: { "x-admin-secret": "test-admin-secret" } })
      const names = admin.json.components.map((c: { name: string }) => c.name)
      assert.include(names, "database")
      assert.isNumber(admin.json.components[0].latencyMs)
    }))

  it.effect("public status has numeric uptime from the first probe", () =>
    Effect.gen(function*() {
      const res = yield* call("GET", "/api/public/status")
      assert.strictEqual(res.status, 200)
      assert.strictEqual(res.json.status, "ok")
      assert.strictEqual(res.json.uptime24h, 1)
      assert.strictEqual(res.json.uptime7d, 1)
      // The app runs on the real clock even under @effect/vitest's TestClock.
      assert.isBelow(Math.abs(Date.parse(res.json.timestamp) - Date.now()), 60_000)
      assert.deepStrictEqual(res.json.incidents, [])
      assert.deepInclude(res.json.components, { name: "database", status: "ok" })
    }))
})
