import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { call, type Reply, testApp } from "./support/harness.ts"
import { assertError, awaitFreshWindow, bearer, invite, provision, randomIp } from "./support/processes.ts"

const limited = (res: Reply, policy: string, q: number) => {
  assertError(res, 429, "E_RATE_LIMITED", "Rate limit exceeded")
  const retryAfter = res.headers.get("retry-after") ?? ""
  assert.match(retryAfter, /^\d+$/)
  assert.isAtLeast(Number(retryAfter), 1)
  assert.isAtMost(Number(retryAfter), 60)
  assert.strictEqual(res.headers.get("ratelimit-policy"), `"${policy}";q=${q};w=60`)
  assert.match(res.headers.get("ratelimit") ?? "", new RegExp(`^"${policy}";r=0;t=\\d+$`))
}

const remaining = (res: Reply) => Number(/;r=(\d+);/.exec(res.headers.get("ratelimit") ?? "")?.[1])

layer(testApp({ trustProxy: true }), { timeout: 60_000 })("rate limits (in memory)", (it) => {
  it.effect("REST: 60 requests per customer pass, shared by all its keys; the 61st is 429", () =>
    Effect.gen(function*() {
      yield* awaitFreshWindow(20)
      const a = yield* provision()
      const other = yield* provision()
      const viewer = yield* invite(a, "viewer") // request 1 of the customer's budget
      const ip = randomIp()
      for (let n = 2; n <= 60; n++) {
        const key = n % 2 === 0 ? a.apiKey : viewer.apiKey
        const res = yield* call("GET", `/api/customer/${a.customerId}`, {
          headers: bearer(key, { "x-forwarded-for": ip })
        })
        assert.strictEqual(res.status, 200, `request ${n}: ${res.text}`)
        assert.strictEqual(res.headers.get("ratelimit-policy"), `"rest";q=60;w=60`)
        assert.strictEqual(remaining(res), 60 - n)
      }
      for (const key of [a.apiKey, viewer.apiKey]) {
        const res = yield* call("GET", `/api/customer/${a.customerId}`, {
          headers: bearer(key, { "x-forwarded-for": randomIp() })
        })
        limited(res, "rest", 60)
      }
      // Over the limit, even a 403 or a bad path is 429 for this customer (limit before tenant and role checks).
      const cross = yield* call("GET", `/api/customer/${other.customerId}`, { headers: bearer(a.apiKey) })
      limited(cross, "rest", 60)
      // Another customer, from the same address, is untouched.
      const fine = yield* call("GET", `/api/customer/${other.customerId}`, {
        headers: bearer(other.apiKey, { "x-forwarded-for": ip })
      })
      assert.strictEqual(fine.status, 200)
      assert.strictEqual(remaining(fine), 59)
    }))

  it.effect("pre-auth: a valid key passes after exactly 20 failures; the 21st failure is 429, and so is everything after", () =>
    Effect.gen(function*() {
      yield* awaitFreshWindow(15)
      const { customerId, apiKey } = yield* provision()
      const ip = randomIp()
      const unknown = "svc_live_" + "0".repeat(64)
      for (let n = 1; n <= 20; n++) {
        const headers: Record<string, string> = n % 3 === 0
          ? { "x-forwarded-for": ip }
          : n % 3 === 1
          ? bearer(unknown, { "x-forwarded-for": ip })
          : { authorization: "Basic abc", "x-forwarded-for": ip }
        const res = yield* call("GET", `/api/customer/${customerId}`, { headers })
        assert.strictEqual(res.status, 401, `attempt ${n}`)
        assert.strictEqual(res.headers.get("ratelimit-policy"), `"pre-auth";q=20;w=60`)
        assert.strictEqual(remaining(res), 20 - n)
      }
      const ok = yield* call("GET", `/api/customer/${customerId}`, {
        headers: bearer(apiKey, { "x-forwarded-for": ip })
      })
      assert.strictEqual(ok.status, 200, ok.text)
      assert.strictEqual(ok.headers.get("ratelimit-policy"), `"rest";q=60;w=60`)
      const again = yield* call("GET", `/api/customer/${customerId}`, {
        headers: bearer(apiKey, { "x-forwarded-for": ip })
      })
      assert.strictEqual(again.status, 200, "successes do not count against pre-auth")

      const the21st = yield* call("GET", `/api/customer/${customerId}`, {
        headers: bearer(unknown, { "x-forwarded-for": ip })
      })
      limited(the21st, "pre-auth", 20)
      const valid = yield* call("GET", `/api/customer/${customerId}`, {
        headers: bearer(apiKey, { "x-forwarded-for": ip })
      })
      limited(valid, "pre-auth", 20)
      const missing = yield* call("GET", `/api/customer/${customerId}`, { headers: { "x-forwarded-for": ip } })
      limited(missing, "pre-auth", 20)
      // Another address is unaffected.
      const elsewhere = yield* call("GET", `/api/customer/${customerId}`, {
        headers: bearer(apiKey, { "x-forwarded-for": randomIp() })
      })
      assert.strictEqual(elsewhere.status, 200)
    }))

  it.effect("with one trusted proxy the client is the rightmost X-Forwarded-For entry; entries the client wrote do not count", () =>
    Effect.gen(function*() {
      yield* awaitFreshWindow(10)
      const { customerId } = yield* provision()
      const ip = randomIp()
      for (let n = 1; n <= 3; n++) {
        const res = yield* call("GET", `/api/customer/${customerId}`, {
          headers: { "x-forwarded-for": `192.0.2.${n}, ${ip}` }
        })
        assert.strictEqual(remaining(res), 20 - n)
      }
    }))
})

layer(testApp(), { timeout: 60_000 })("rate limits without a trusted proxy", (it) => {
  it.effect("X-Forwarded-For is ignored: every hop shares the socket address's budget", () =>
    Effect.gen(function*() {
      yield* awaitFreshWindow(10)
      const first = yield* call("GET", "/api/customer/x", { headers: { "x-forwarded-for": randomIp() } })
      const second = yield* call("GET", "/api/customer/x", { headers: { "x-forwarded-for": randomIp() } })
      assert.strictEqual(first.status, 401)
      assert.strictEqual(remaining(second), remaining(first) - 1)
    }))
})
