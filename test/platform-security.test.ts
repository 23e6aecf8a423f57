import { assert, describe, it as plain, layer } from "@effect/vitest"
import { Effect } from "effect"
import { connect } from "node:net"
import { clientAddress } from "../src/platform/http/Server.ts"
import { call, testApp, TestServer } from "./support/harness.ts"
import { adminSecret, assertError, bearer, invite, provision, randomIp, uniqueEmail } from "./support/processes.ts"

describe("client address behind proxies (TRUST_PROXY)", () => {
  plain("counts hops from the right; the client's own entries never decide", () => {
    assert.strictEqual(clientAddress(undefined, "10.0.0.1", 0), "10.0.0.1")
    assert.strictEqual(clientAddress("1.1.1.1", "10.0.0.1", 0), "10.0.0.1", "no hop trusted: the socket")
    assert.strictEqual(clientAddress("6.6.6.6, 1.2.3.4", "10.0.0.1", 1), "1.2.3.4", "one hop: the rightmost")
    assert.strictEqual(clientAddress("6.6.6.6,1.2.3.4, 10.9.9.9", "10.0.0.1", 2), "1.2.3.4", "two hops")
    assert.strictEqual(clientAddress("1.2.3.4", "10.0.0.1", 3), "1.2.3.4", "fewer entries than hops: the leftmost")
    assert.strictEqual(clientAddress(undefined, undefined, 1), "unknown")
  })
})

/** A response's header, or the empty string. */
const header = (headers: Headers, name: string) => headers.get(name) ?? ""

layer(testApp({ trustProxy: 1 }), { timeout: 60_000 })(
  "security headers, idempotency scope, admin limit on readiness",
  (it) => {
    it.effect("every response says nosniff; key-carrying answers and their replays are no-store, others are not", () =>
      Effect.gen(function*() {
        for (
          const res of [
            yield* call("GET", "/api/health"),
            yield* call("GET", "/nowhere"),
            yield* call("GET", "/openapi.json")
          ]
        ) assert.strictEqual(header(res.headers, "x-content-type-options"), "nosniff")

        const ip = randomIp()
        const email = uniqueEmail("nostore")
        const provisioned = yield* call("POST", "/api/admin/provision", {
          headers: { "x-admin-secret": adminSecret, "x-forwarded-for": ip, "idempotency-key": "prov-1" },
          body: { email }
        })
        assert.strictEqual(provisioned.status, 200, provisioned.text)
        assert.strictEqual(header(provisioned.headers, "cache-control"), "no-store")
        const replay = yield* call("POST", "/api/admin/provision", {
          headers: { "x-admin-secret": adminSecret, "x-forwarded-for": ip, "idempotency-key": "prov-1" },
          body: { email }
        })
        assert.strictEqual(replay.headers.get("idempotent-replayed"), "true", replay.text)
        assert.strictEqual(header(replay.headers, "cache-control"), "no-store")

        const { apiKey, customerId } = provisioned.json
        const member = yield* call("POST", `/api/team/${customerId}/members`, {
          headers: bearer(apiKey),
          body: { email: uniqueEmail("m"), role: "viewer" }
        })
        assert.strictEqual(member.status, 200, member.text)
        assert.strictEqual(header(member.headers, "cache-control"), "no-store")
        const hook = yield* call("POST", `/api/hooks/${customerId}`, {
          headers: bearer(apiKey),
          body: { url: "https://example.com/hook", events: ["content.created"] }
        })
        assert.strictEqual(hook.status, 200, hook.text)
        assert.strictEqual(header(hook.headers, "cache-control"), "no-store")
        const secret = yield* call("POST", `/api/hooks/${customerId}/${hook.json.id}/rotate-secret`, {
          headers: bearer(apiKey),
          body: {}
        })
        assert.strictEqual(header(secret.headers, "cache-control"), "no-store")
        const rotated = yield* call("POST", `/api/customer/${customerId}/rotate-key`, {
          headers: bearer(apiKey),
          body: {}
        })
        assert.strictEqual(rotated.status, 200, rotated.text)
        assert.strictEqual(header(rotated.headers, "cache-control"), "no-store")
        // A refused attempt at a key-carrying route is no-store too; a plain read is not.
        const refused = yield* call("POST", `/api/customer/${customerId}/rotate-key`, {
          headers: bearer(apiKey),
          body: {}
        })
        assertError(refused, 401, "E_INVALID_API_KEY")
        assert.strictEqual(header(refused.headers, "cache-control"), "no-store")
        const read = yield* call("GET", `/api/customer/${customerId}`, { headers: bearer(rotated.json.apiKey) })
        assert.strictEqual(read.status, 200)
        assert.notInclude(header(read.headers, "cache-control"), "no-store")
      }))

    it.effect("Node's own 400 for a malformed request also says nosniff", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const { port } = new URL(url)
        const raw = yield* Effect.promise(() =>
          new Promise<string>((resolve) => {
            let text = ""
            const socket = connect(Number(port), "127.0.0.1", () => socket.write("GARBAGE\r\n\r\n"))
            socket.on("data", (chunk) => (text += chunk.toString()))
            socket.on("close", () => resolve(text))
          })
        )
        assert.match(raw, /^HTTP\/1\.1 400/)
        assert.match(raw, /x-content-type-options: nosniff/i)
      }))

    it.effect("an Idempotency-Key is scoped to the key that sent it: another key of the customer never gets the replay", () =>
      Effect.gen(function*() {
        const owner = yield* provision()
        const admin = yield* invite(owner, "admin")
        const body = { email: uniqueEmail("scoped"), role: "viewer" }
        const first = yield* call("POST", `/api/team/${owner.customerId}/members`, {
          headers: bearer(owner.apiKey, { "idempotency-key": "same-key" }),
          body
        })
        assert.strictEqual(first.status, 200, first.text)
        const other = yield* call("POST", `/api/team/${owner.customerId}/members`, {
          headers: bearer(admin.apiKey, { "idempotency-key": "same-key" }),
          body
        })
        // Not a replay of the owner's answer (which shows the invited member's key): run as its own request.
        assert.isNull(other.headers.get("idempotent-replayed"))
        assert.notInclude(other.text, first.json.apiKey)
        assertError(other, 409, "E_CONFLICT")
        const again = yield* call("POST", `/api/team/${owner.customerId}/members`, {
          headers: bearer(owner.apiKey, { "idempotency-key": "same-key" }),
          body
        })
        assert.strictEqual(again.headers.get("idempotent-replayed"), "true")
        assert.strictEqual(again.json.apiKey, first.json.apiKey)
      }))

    it.effect("the request hash covers the path: the same key and body on another path is a conflict, not a replay", () =>
      Effect.gen(function*() {
        const owner = yield* provision()
        const hook = (path: string) =>
          call("POST", path, { headers: bearer(owner.apiKey, { "idempotency-key": "path-key" }), body: {} })
        const a = yield* call("POST", `/api/hooks/${owner.customerId}`, {
          headers: bearer(owner.apiKey),
          body: { url: "https://example.com/a", events: ["content.created"] }
        })
        const b = yield* call("POST", `/api/hooks/${owner.customerId}`, {
          headers: bearer(owner.apiKey),
          body: { url: "https://example.com/b", events: ["content.created"] }
        })
        const first = yield* hook(`/api/hooks/${owner.customerId}/${a.json.id}/rotate-secret`)
        assert.strictEqual(first.status, 200, first.text)
        const second = yield* hook(`/api/hooks/${owner.customerId}/${b.json.id}/rotate-secret`)
        assertError(second, 409, "E_CONFLICT")
        assert.notInclude(second.text, first.json.secret)
      }))

    it.effect("readiness with X-Admin-Secret counts against the admin limit; plain probes never do", () =>
      Effect.gen(function*() {
        const ip = randomIp()
        for (let n = 1; n <= 10; n++) {
          const res = yield* call("GET", "/api/health/ready", {
            headers: { "x-admin-secret": `guess-${n}`, "x-forwarded-for": ip }
          })
          assert.strictEqual(res.status, 200, `guess ${n}: ${res.text}`)
          assert.strictEqual(res.headers.get("ratelimit-policy"), `"admin";q=10;w=60`)
        }
        const over = yield* call("GET", "/api/health/ready", {
          headers: { "x-admin-secret": adminSecret, "x-forwarded-for": ip }
        })
        assertError(over, 429, "E_RATE_LIMITED", "Rate limit exceeded")
        assert.match(over.headers.get("retry-after") ?? "", /^\d+$/)
        // The right secret from the same address is refused too: the limit runs before the secret is compared.
        assert.notProperty(over.json, "components")
        // Admin provisioning shares the budget.
        const provisioning = yield* call("POST", "/api/admin/provision", {
          headers: { "x-admin-secret": adminSecret, "x-forwarded-for": ip },
          body: { email: uniqueEmail() }
        })
        assertError(provisioning, 429, "E_RATE_LIMITED")
        for (let n = 0; n < 15; n++) {
          const probe = yield* call("GET", "/api/health/ready", { headers: { "x-forwarded-for": ip } })
          assert.strictEqual(probe.status, 200)
          assert.isNull(probe.headers.get("ratelimit-policy"))
        }
      }))

    it.effect("X-Forwarded-For entries left of the trusted hop do not change the client's identity", () =>
      Effect.gen(function*() {
        const ip = randomIp()
        for (let n = 1; n <= 10; n++) {
          // Each request claims another origin on the left; the proxy's entry (rightmost) is what counts.
          const res = yield* call("GET", "/api/health/ready", {
            headers: { "x-admin-secret": "guess", "x-forwarded-for": `${randomIp()}, ${ip}` }
          })
          assert.strictEqual(res.status, 200)
        }
        const over = yield* call("GET", "/api/health/ready", {
          headers: { "x-admin-secret": "guess", "x-forwarded-for": `${randomIp()}, ${ip}` }
        })
        assertError(over, 429, "E_RATE_LIMITED")
      }))
  }
)

layer(
  testApp({ trustProxy: 1, rateLimits: { rest: 3, mcp: 30, preAuth: 2, checkout: 5, paymentWebhook: 100, admin: 10 } }),
  { timeout: 60_000 }
)("configured limits", (it) => {
  it.effect("RATE_LIMIT_REST_PER_MIN and RATE_LIMIT_PREAUTH_PER_MIN replace the default values", () =>
    Effect.gen(function*() {
      const owner = yield* provision()
      for (let n = 1; n <= 3; n++) {
        const res = yield* call("GET", `/api/customer/${owner.customerId}`, { headers: bearer(owner.apiKey) })
        assert.strictEqual(res.status, 200, res.text)
        assert.strictEqual(res.headers.get("ratelimit-policy"), `"rest";q=3;w=60`)
      }
      assertError(
        yield* call("GET", `/api/customer/${owner.customerId}`, { headers: bearer(owner.apiKey) }),
        429,
        "E_RATE_LIMITED"
      )
      const ip = randomIp()
      const bad = bearer("svc_live_" + "0".repeat(64), { "x-forwarded-for": ip })
      assertError(yield* call("GET", `/api/customer/${owner.customerId}`, { headers: bad }), 401, "E_INVALID_API_KEY")
      assertError(yield* call("GET", `/api/customer/${owner.customerId}`, { headers: bad }), 401, "E_INVALID_API_KEY")
      const third = yield* call("GET", `/api/customer/${owner.customerId}`, { headers: bad })
      assertError(third, 429, "E_RATE_LIMITED")
      assert.strictEqual(third.headers.get("ratelimit-policy"), `"pre-auth";q=2;w=60`)
    }))
})
