import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { call, testApp, TestServer } from "./support/harness.ts"
import { adminSecret, assertError, bearer, invite, provision, randomIp, uniqueEmail } from "./support/processes.ts"

const admin = () => ({ "x-admin-secret": adminSecret, "x-forwarded-for": randomIp() })

const rotate = (customerId: string, key: string, idempotencyKey?: string, body: unknown = {}) =>
  call("POST", `/api/customer/${customerId}/rotate-key`, {
    headers: bearer(key, idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey }),
    body
  })

layer(testApp({ trustProxy: true }), { timeout: 60_000 })("key rotation and recovery", (it) => {
  it.effect("a lost rotation answer is replayed to the old key with the same Idempotency-Key, and only that", () =>
    Effect.gen(function*() {
      const a = yield* provision()
      const k1 = `rot-${crypto.randomUUID()}`
      const first = yield* rotate(a.customerId, a.apiKey, k1)
      assert.strictEqual(first.status, 200, first.text)
      const newKey = first.json.apiKey as string

      // The answer was lost: the owner retries exactly, still holding the old key.
      const replay = yield* rotate(a.customerId, a.apiKey, k1)
      assert.strictEqual(replay.status, 200, replay.text)
      assert.deepStrictEqual(replay.json, first.json)
      assert.strictEqual(replay.headers.get("idempotent-replayed"), "true")
      assert.strictEqual((yield* call("GET", `/api/customer/${a.customerId}`, { headers: bearer(newKey) })).status, 200)

      // Everything else with the old key stays refused.
      assertError(
        yield* call("GET", `/api/customer/${a.customerId}`, { headers: bearer(a.apiKey) }),
        401,
        "E_INVALID_API_KEY"
      )
      assertError(yield* rotate(a.customerId, a.apiKey), 401, "E_INVALID_API_KEY")
      assertError(yield* rotate(a.customerId, a.apiKey, `other-${crypto.randomUUID()}`), 401, "E_INVALID_API_KEY")
      const invited = yield* call("POST", `/api/team/${a.customerId}/members`, {
        headers: bearer(a.apiKey, { "idempotency-key": k1 }),
        body: { email: uniqueEmail(), role: "viewer" }
      })
      assertError(invited, 401, "E_INVALID_API_KEY")
      assert.isNotNull(invited.headers.get("www-authenticate"))
      // Another customer's path with the replayed key: refused as well.
      const b = yield* provision()
      assertError(yield* rotate(b.customerId, a.apiKey, k1), 401, "E_INVALID_API_KEY")
      // Only one rotation happened.
      const events = yield* call("GET", `/api/events/${a.customerId}`, { headers: bearer(newKey) })
      assert.strictEqual(events.json.events.filter((e: any) => e.type === "key.rotated").length, 1)

      // A later rotation revokes the second key; the first key cannot replay that one.
      const k2 = `rot-${crypto.randomUUID()}`
      const second = yield* rotate(a.customerId, newKey, k2)
      assert.strictEqual(second.status, 200)
      assertError(yield* rotate(a.customerId, a.apiKey, k2), 401, "E_INVALID_API_KEY")
      const secondReplay = yield* rotate(a.customerId, newKey, k2)
      assert.strictEqual(secondReplay.json.apiKey, second.json.apiKey)
      // The first key may still replay its own rotation (the same answer, now itself revoked).
      assert.strictEqual((yield* rotate(a.customerId, a.apiKey, k1)).json.apiKey, newKey)

      // Past 24 hours the revoked key is refused even for its replay.
      const { sql } = yield* TestServer
      yield* sql`UPDATE api_keys SET revoked_at = now() - interval '25 hours'
        WHERE customer_id = ${a.customerId} AND revoked_at IS NOT NULL`
      assertError(yield* rotate(a.customerId, a.apiKey, k1), 401, "E_INVALID_API_KEY")
    }))

  it.effect("a rotation without an Idempotency-Key leaves nothing to replay; member keys never replay", () =>
    Effect.gen(function*() {
      const a = yield* provision()
      const member = yield* invite(a, "admin")
      const plain = yield* rotate(a.customerId, a.apiKey)
      assert.strictEqual(plain.status, 200)
      for (const key of [`x-${crypto.randomUUID()}`, "a"]) {
        assertError(yield* rotate(a.customerId, a.apiKey, key), 401, "E_INVALID_API_KEY")
      }
      assertError(yield* rotate(a.customerId, member.apiKey, "m"), 403, "E_FORBIDDEN")
    }))

  it.effect("operator recovery issues a new owner key; find by email is case-insensitive", () =>
    Effect.gen(function*() {
      const email = uniqueEmail("Recover").replace("recover", "ReCover")
      const a = yield* provision({ email })
      const member = yield* invite(a, "viewer")
      const found = yield* call("GET", `/api/admin/customers?email=${encodeURIComponent(email.toUpperCase())}`, {
        headers: admin()
      })
      assert.strictEqual(found.status, 200, found.text)
      assert.deepStrictEqual(found.json.customers.map((c: any) => [c.id, c.email]), [[a.customerId, email]])
      assert.isUndefined(found.json.customers[0].apiKey)
      const none = yield* call("GET", `/api/admin/customers?email=nobody-${crypto.randomUUID()}@example.com`, {
        headers: admin()
      })
      assert.deepStrictEqual(none.json, { customers: [] })
      assertError(yield* call("GET", "/api/admin/customers", { headers: admin() }), 400, "E_VALIDATION")
      assertError(yield* call("GET", `/api/admin/customers?email=${encodeURIComponent(email)}`), 401, "E_ADMIN_AUTH")

      const path = `/api/admin/customers/${a.customerId}/rotate-key`
      assertError(yield* call("POST", path, { body: {} }), 401, "E_ADMIN_AUTH")
      const recovered = yield* call("POST", path, { headers: admin(), body: {} })
      assert.strictEqual(recovered.status, 200, recovered.text)
      assert.match(recovered.json.apiKey, /^svc_live_[0-9a-f]{64}$/)
      assert.strictEqual(
        recovered.json.mcpEndpoint,
        `${(yield* TestServer).url}/mcp/sse?token=${recovered.json.apiKey}`
      )
      assertError(
        yield* call("GET", `/api/customer/${a.customerId}`, { headers: bearer(a.apiKey) }),
        401,
        "E_INVALID_API_KEY"
      )
      assert.strictEqual(
        (yield* call("GET", `/api/customer/${a.customerId}`, { headers: bearer(recovered.json.apiKey) })).status,
        200
      )
      // Member keys are untouched.
      assert.strictEqual(
        (yield* call("GET", `/api/customer/${a.customerId}`, { headers: bearer(member.apiKey) })).status,
        200
      )
      const events = yield* call("GET", `/api/events/${a.customerId}`, { headers: bearer(recovered.json.apiKey) })
      assert.deepStrictEqual(events.json.events[0].type, "key.rotated")
      assert.deepStrictEqual(events.json.events[0].actor, { type: "admin", id: null })

      for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-uuid", "x".repeat(300)]) {
        assertError(
          yield* call("POST", `/api/admin/customers/${id}/rotate-key`, { headers: admin(), body: {} }),
          404,
          "E_NOT_FOUND"
        )
      }
      assertError(yield* call("POST", path, { headers: admin(), body: { x: 1 } }), 400, "E_VALIDATION")
    }))

  it.effect("provisioning refuses an email held by a customer that is not cancelled, whatever its case", () =>
    Effect.gen(function*() {
      const email = uniqueEmail("dup")
      const first = yield* call("POST", "/api/admin/provision", { headers: admin(), body: { email } })
      assert.strictEqual(first.status, 200)
      const again = yield* call("POST", "/api/admin/provision", {
        headers: admin(),
        body: { email: email.toUpperCase() }
      })
      assertError(again, 409, "E_CONFLICT")
      assert.notInclude(again.text, first.json.customerId)

      // A cancelled customer's address may be provisioned again.
      const cancelledEmail = uniqueEmail("gone")
      const cancelled = yield* call("POST", "/api/admin/provision", {
        headers: admin(),
        body: { email: cancelledEmail, status: "cancelled" }
      })
      assert.strictEqual(cancelled.status, 200)
      const reuse = yield* call("POST", "/api/admin/provision", { headers: admin(), body: { email: cancelledEmail } })
      assert.strictEqual(reuse.status, 200, reuse.text)
      const third = yield* call("POST", "/api/admin/provision", { headers: admin(), body: { email: cancelledEmail } })
      assertError(third, 409, "E_CONFLICT")

      // Concurrent provisions of one new address: exactly one succeeds.
      const raced = uniqueEmail("race")
      const replies = yield* Effect.all(
        Array.from(
          { length: 6 },
          (_, i) =>
            call("POST", "/api/admin/provision", {
              headers: admin(),
              body: { email: i % 2 === 0 ? raced : raced.toUpperCase() }
            })
        ),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(replies.map((r) => r.status).sort(), [200, 409, 409, 409, 409, 409])
      const found = yield* call("GET", `/api/admin/customers?email=${encodeURIComponent(raced)}`, { headers: admin() })
      assert.strictEqual(found.json.customers.length, 1)
    }))
})
