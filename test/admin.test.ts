import { assert, layer } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { call, testApp } from "./support/harness.ts"
import { adminSecret, assertError, awaitFreshWindow, bearer, randomIp } from "./support/processes.ts"

/** `secret: null` sends no X-Admin-Secret header. */
const provisionFrom = (ip: string, body: unknown, secret: string | null = adminSecret) =>
  call("POST", "/api/admin/provision", {
    headers: { "x-forwarded-for": ip, ...(secret === null ? {} : { "x-admin-secret": secret }) },
    body
  })

layer(testApp({ trustProxy: true, adminSecret: Option.some(Redacted.make(adminSecret)) }), { timeout: 60_000 })(
  "admin provisioning",
  (it) => {
    it.effect("provisions into any status and returns the key once with its MCP endpoint", () =>
      Effect.gen(function*() {
        const ip = randomIp()
        const res = yield* provisionFrom(ip, { email: "ops@example.com", brandName: "Ops" })
        assert.strictEqual(res.status, 200, res.text)
        assert.deepStrictEqual(Object.keys(res.json).sort(), ["apiKey", "customerId", "email", "mcpEndpoint"])
        assert.match(res.json.customerId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
        assert.match(res.json.apiKey, /^svc_live_[0-9a-f]{64}$/)
        assert.isTrue(res.json.mcpEndpoint.endsWith(`/mcp/sse?token=${res.json.apiKey}`))
        const customer = yield* call("GET", `/api/customer/${res.json.customerId}`, {
          headers: bearer(res.json.apiKey)
        })
        assert.strictEqual(customer.json.status, "onboarding")
        assert.strictEqual(customer.json.brandName, "Ops")
        for (const status of ["onboarding", "active", "suspended", "cancelled"]) {
          const r = yield* provisionFrom(ip, { email: `${status}@example.com`, status })
          assert.strictEqual(r.status, 200, r.text)
        }
      }))

    it.effect("a missing or wrong secret is 401 E_ADMIN_AUTH, without a Bearer challenge", () =>
      Effect.gen(function*() {
        for (const secret of [null, "wrong", "", `${adminSecret}x`, adminSecret.toUpperCase()]) {
          const res = yield* provisionFrom(randomIp(), { email: "x@example.com" }, secret)
          assertError(res, 401, "E_ADMIN_AUTH")
          assert.isNull(res.headers.get("www-authenticate"))
        }
      }))

    it.effect("the body is validated: bad email, unknown status, extra property, wrong types", () =>
      Effect.gen(function*() {
        const ip = randomIp()
        for (
          const body of [
            { email: "not-an-email" },
            { email: "<script>@example.com" },
            { email: "a@localhost" },
            {},
            { email: "x@example.com", status: "deleted" },
            { email: "x@example.com", extra: 1 },
            { email: "x@example.com", brandName: 5 },
            { email: "x@example.com", brandName: "" },
            { email: 42 }
          ]
        ) {
          const res = yield* provisionFrom(ip, body)
          assertError(res, 400, "E_VALIDATION")
          assert.isArray(res.json.details, JSON.stringify(body))
          assert.match(res.json.details[0].path, /^body/)
        }
        const malformed = yield* call("POST", "/api/admin/provision", {
          headers: { "x-forwarded-for": randomIp(), "x-admin-secret": adminSecret, "content-type": "application/json" },
          body: "{",
          raw: true
        })
        assertError(malformed, 400, "E_MALFORMED_JSON")
      }))

    it.effect("the 11th provisioning call in a minute from one address is 429 (wrong secrets count too)", () =>
      Effect.gen(function*() {
        yield* awaitFreshWindow(15)
        const ip = randomIp()
        for (let n = 1; n <= 10; n++) {
          const res = n % 2 === 0
            ? yield* provisionFrom(ip, { email: `n${n}@example.com` })
            : yield* provisionFrom(ip, { email: `n${n}@example.com` }, "wrong")
          assert.strictEqual(res.status, n % 2 === 0 ? 200 : 401, res.text)
          assert.strictEqual(res.headers.get("ratelimit-policy"), `"admin";q=10;w=60`)
        }
        const res = yield* provisionFrom(ip, { email: "n11@example.com" })
        assertError(res, 429, "E_RATE_LIMITED", "Rate limit exceeded")
        assert.isAtLeast(Number(res.headers.get("retry-after")), 1)
        const other = yield* provisionFrom(randomIp(), { email: "other@example.com" })
        assert.strictEqual(other.status, 200)
      }))
  }
)

layer(testApp({ adminSecret: Option.none() }), { timeout: 60_000 })("admin routes without ADMIN_SECRET", (it) => {
  it.effect("answer 404 whatever the header", () =>
    Effect.gen(function*() {
      for (const secret of [null, "test-admin-secret", ""]) {
        const res = yield* provisionFrom("203.0.113.9", { email: "x@example.com" }, secret)
        assertError(res, 404, "E_NOT_FOUND")
      }
      // Whatever the method: a 405 would tell that the route exists.
      for (const method of ["GET", "PUT", "DELETE", "OPTIONS"]) {
        const res = yield* call(method, "/api/admin/provision")
        assertError(res, 404, "E_NOT_FOUND")
        assert.isNull(res.headers.get("allow"))
      }
    }))
})
