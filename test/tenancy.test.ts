import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { call, testApp, TestServer } from "./support/harness.ts"
import {
  assertError,
  authenticatedEndpoints,
  bearer,
  invite,
  probe,
  provision,
  type Provisioned,
  randomIp
} from "./support/processes.ts"

/**
 * Generated from the HttpApi: every Bearer route with a `customerId` in its
 * path, called with another customer's key, is 403 with the Error shape and
 * nothing of the target's. Endpoints added later join automatically.
 */
const endpoints = authenticatedEndpoints()
const withTenant = endpoints.filter((e) => e.params.includes("customerId"))
// Two keys per endpoint and one invite: 2 * 25 + 1 requests stay below the REST budget of 60 per customer and minute.
const chunk = 25

layer(testApp({ trustProxy: true }), { timeout: 60_000 })("tenant isolation", (it) => {
  it("the matrix covers the identity routes", () => {
    const ids = withTenant.map((e) => e.id)
    for (
      const expected of [
        "customers.get",
        "customers.rotateKey",
        "customers.events",
        "team.invite",
        "team.list",
        "team.remove"
      ]
    ) {
      assert.isTrue(ids.some((id) => id.startsWith(expected + " ")), `${expected} missing from ${ids.join(", ")}`)
    }
    // Every Bearer route names its tenant in the path, so the matrix below covers it.
    const withoutTenant = endpoints.filter((e) => !e.params.includes("customerId")).map((e) => e.id)
    assert.deepStrictEqual(withoutTenant, [], "Bearer routes without a customerId escape the tenant matrix")
  })

  it.effect("another customer's key (owner or member) is 403 on every tenant route, revealing nothing", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      const a = yield* provision({ brandName: "Secret Brand A" })
      const aMember = yield* invite(a, "admin")
      let b: Provisioned | undefined
      let bKeys: Array<string> = []
      for (let i = 0; i < withTenant.length; i++) {
        if (i % chunk === 0) {
          b = yield* provision()
          const bAdmin = yield* invite(b, "admin")
          bKeys = [b.apiKey, bAdmin.apiKey]
        }
        const endpoint = withTenant[i]
        for (const key of bKeys) {
          const hasBody = endpoint.method !== "GET" && endpoint.method !== "DELETE" && endpoint.method !== "HEAD"
          // Ids of A's own resources where the route names one: the member id is A's.
          const path = endpoint.fill(a.customerId, aMember.memberId)
          const res = yield* Effect.promise(() =>
            probe(url, endpoint.method, path, bearer(key), hasBody ? JSON.stringify({}) : undefined)
          )
          assert.strictEqual(res.status, 403, `${endpoint.id}: ${JSON.stringify(res.json)}`)
          assert.deepStrictEqual(Object.keys(res.json).sort(), ["code", "error", "requestId"], endpoint.id)
          assert.strictEqual(res.json.code, "E_FORBIDDEN")
          assert.strictEqual(res.json.requestId, res.headers.get("x-request-id"))
          const text = JSON.stringify(res.json)
          for (const secret of [a.customerId, a.email, "Secret Brand A", aMember.memberId, aMember.email]) {
            assert.notInclude(text, secret, endpoint.id)
          }
          assert.isNull(res.headers.get("www-authenticate"))
          // The caller's own REST policy, not the target's.
          assert.strictEqual(res.headers.get("ratelimit-policy"), `"rest";q=60;w=60`)
        }
      }
      // Nothing changed on A's side: its key, member and team are intact.
      const still = yield* call("GET", `/api/team/${a.customerId}/members`, { headers: bearer(a.apiKey) })
      assert.strictEqual(still.status, 200)
      assert.strictEqual(still.json.members.length, 1)
      const events = yield* call("GET", `/api/events/${a.customerId}`, { headers: bearer(aMember.apiKey) })
      assert.notInclude(events.json.events.map((e: { type: string }) => e.type), "key.rotated")
    }))

  it.effect("every Bearer route answers 401 with the challenge and the pre-auth policy, without and with a bad key", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      const a = yield* provision()
      for (const endpoint of endpoints) {
        for (const headers of [{}, { authorization: "Bearer svc_live_nope" }]) {
          const res = yield* Effect.promise(() =>
            probe(url, endpoint.method, endpoint.fill(a.customerId), { ...headers, "x-forwarded-for": randomIp() })
          )
          const label = `${endpoint.id} ${JSON.stringify(headers)}: ${JSON.stringify(res.json)}`
          assert.strictEqual(res.status, 401, label)
          assert.strictEqual(res.json.code, "authorization" in headers ? "E_INVALID_API_KEY" : "E_AUTH_REQUIRED", label)
          assert.strictEqual(res.json.requestId, res.headers.get("x-request-id"))
          assert.match(
            res.headers.get("www-authenticate") ?? "",
            /^Bearer realm="herald", resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource"$/,
            label
          )
          assert.strictEqual(res.headers.get("ratelimit-policy"), `"pre-auth";q=20;w=60`, label)
        }
      }
    }))

  it.effect("403 comes before validation: a bad body on another tenant's route is still 403", () =>
    Effect.gen(function*() {
      const a = yield* provision()
      const b = yield* provision()
      const res = yield* call("POST", `/api/team/${a.customerId}/members`, {
        headers: bearer(b.apiKey),
        body: "{not json",
        raw: true
      })
      assertError(res, 403, "E_FORBIDDEN")
      const rotate = yield* call("POST", `/api/customer/${a.customerId}/rotate-key`, {
        headers: bearer(b.apiKey),
        body: { x: 1 }
      })
      assertError(rotate, 403, "E_FORBIDDEN")
      const ok = yield* call("GET", `/api/customer/${a.customerId}`, { headers: bearer(a.apiKey) })
      assert.strictEqual(ok.status, 200)
    }))
})
