import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { call, type Reply, TestServer } from "./support/harness.ts"
import {
  assertError,
  bearer,
  DatabaseUrl,
  invite,
  provision,
  randomIp,
  testAppWithDatabase,
  withSql
} from "./support/processes.ts"

const baseUrl = "https://herald.test"

const challengeFor = (base: string) =>
  `Bearer realm="herald", resource_metadata="${base}/.well-known/oauth-protected-resource"`

const rateLimitHeader = (res: Reply, name: string, q: number) => {
  assert.strictEqual(res.headers.get("ratelimit-policy"), `"${name}";q=${q};w=60`)
  const match = new RegExp(`^"${name}";r=(\\d+);t=(\\d+)$`).exec(res.headers.get("ratelimit") ?? "")
  assert.isNotNull(match, `ratelimit header: ${res.headers.get("ratelimit")}`)
  const t = Number(match![2])
  assert.isAtLeast(t, 1)
  assert.isAtMost(t, 60)
  return { remaining: Number(match![1]), reset: t }
}

layer(testAppWithDatabase({ trustProxy: true, baseUrl }), { timeout: 60_000 })("identity and keys", (it) => {
  it.effect("a missing Authorization header is 401 E_AUTH_REQUIRED with the challenge and the pre-auth policy", () =>
    Effect.gen(function*() {
      const url = baseUrl
      const a = yield* provision()
      const res = yield* call("GET", `/api/customer/${a.customerId}`, { headers: { "x-forwarded-for": randomIp() } })
      assertError(res, 401, "E_AUTH_REQUIRED", "Authorization header required")
      assert.strictEqual(res.headers.get("www-authenticate"), challengeFor(url))
      const { remaining } = rateLimitHeader(res, "pre-auth", 20)
      assert.strictEqual(remaining, 19)
    }))

  it.effect("malformed headers and unknown keys are 401 E_INVALID_API_KEY", () =>
    Effect.gen(function*() {
      const { config } = yield* TestServer
      const url = baseUrl
      const a = yield* provision()
      const unknown = config.apiKeyPrefix + "ab".repeat(32)
      const headers = [
        "Basic x",
        "Bearer",
        "Bearer ",
        `Bearer ${a.apiKey} extra`,
        `Bearer ${a.apiKey} ${a.apiKey}`,
        a.apiKey,
        `Token ${a.apiKey}`,
        `Bearer ${a.apiKey.toUpperCase()}`,
        `Bearer ${a.apiKey.slice(0, -1)}`,
        `Bearer ${a.apiKey}0`,
        `Bearer ${unknown}`,
        `Bearer svc_test_${"0".repeat(64)}`,
        "Bearer \u00e9\u00e9"
      ]
      const ip = randomIp()
      let expectedRemaining = 20
      for (const authorization of headers) {
        const res = yield* call("GET", `/api/customer/${a.customerId}`, {
          headers: { authorization, "x-forwarded-for": ip }
        })
        assertError(res, 401, "E_INVALID_API_KEY", "Invalid API key")
        assert.strictEqual(res.headers.get("www-authenticate"), challengeFor(url), authorization)
        expectedRemaining--
        assert.strictEqual(rateLimitHeader(res, "pre-auth", 20).remaining, expectedRemaining)
      }
      // The real key from the same address still works, and shows its own REST policy only.
      const ok = yield* call("GET", `/api/customer/${a.customerId}`, {
        headers: bearer(a.apiKey, { "x-forwarded-for": ip })
      })
      assert.strictEqual(ok.status, 200)
      assert.strictEqual(rateLimitHeader(ok, "rest", 60).remaining, 59)
      assert.isNull(ok.headers.get("www-authenticate"))
    }))

  it.effect("a suspended or cancelled customer is 401 E_ACCOUNT_INACTIVE and not counted as a failed attempt", () =>
    Effect.gen(function*() {
      const url = baseUrl
      const ip = randomIp()
      for (const status of ["suspended", "cancelled"] as const) {
        const c = yield* provision({ status })
        for (let i = 0; i < 12; i++) {
          const res = yield* call("GET", `/api/customer/${c.customerId}`, {
            headers: bearer(c.apiKey, { "x-forwarded-for": ip })
          })
          assertError(res, 401, "E_ACCOUNT_INACTIVE", "Customer account is not active")
          assert.strictEqual(res.headers.get("www-authenticate"), challengeFor(url))
          // A 401 on a REST route shows the pre-auth policy; inactive accounts do not spend it.
          assert.strictEqual(rateLimitHeader(res, "pre-auth", 20).remaining, 20)
        }
      }
      for (const status of ["onboarding", "active"] as const) {
        const c = yield* provision({ status })
        const res = yield* call("GET", `/api/customer/${c.customerId}`, {
          headers: bearer(c.apiKey, { "x-forwarded-for": ip })
        })
        assert.strictEqual(res.status, 200)
        assert.strictEqual(res.json.status, status)
      }
    }))

  it.effect("GET customer answers the Customer with the REST policy headers", () =>
    Effect.gen(function*() {
      const url = baseUrl
      const a = yield* provision({ brandName: "Acme", status: "active" })
      const res = yield* call("GET", `/api/customer/${a.customerId}`, { headers: bearer(a.apiKey) })
      assert.strictEqual(res.status, 200)
      assert.deepStrictEqual(Object.keys(res.json).sort(), [
        "brandName",
        "createdAt",
        "email",
        "id",
        "mcpEndpoint",
        "plan",
        "status",
        "trialEndsAt"
      ])
      assert.strictEqual(res.json.id, a.customerId)
      assert.strictEqual(res.json.email, a.email)
      assert.strictEqual(res.json.plan, "pro")
      assert.strictEqual(res.json.brandName, "Acme")
      assert.isNull(res.json.trialEndsAt)
      assert.strictEqual(res.json.mcpEndpoint, `${url}/mcp/sse?token=YOUR_API_KEY`)
      assert.notInclude(res.text, a.apiKey)
      const { remaining } = rateLimitHeader(res, "rest", 60)
      assert.strictEqual(remaining, 59)
      assert.match(res.headers.get("x-request-id") ?? "", /^req_/)
      // Provisioning showed the real key in its MCP endpoint.
      assert.strictEqual(a.mcpEndpoint, `${url}/mcp/sse?token=${a.apiKey}`)
    }))

  it.effect("another customer's id is 403 E_FORBIDDEN with the Error shape only; unknown routes 404", () =>
    Effect.gen(function*() {
      const a = yield* provision()
      const b = yield* provision()
      const res = yield* call("GET", `/api/customer/${a.customerId}`, {
        headers: bearer(b.apiKey, { "x-request-id": "trace-123456" })
      })
      assertError(res, 403, "E_FORBIDDEN")
      assert.strictEqual(res.json.requestId, "trace-123456")
      assert.notInclude(res.text, a.email)
      assert.isNull(res.headers.get("www-authenticate"))
      const unknown = yield* call("GET", `/api/customer/${a.customerId}/nothing-here`, { headers: bearer(a.apiKey) })
      assertError(unknown, 404, "E_NOT_FOUND")
      // A well-formed id that names nobody: still the caller's tenant check first.
      const nobody = yield* call("GET", "/api/customer/00000000-0000-4000-8000-000000000000", {
        headers: bearer(a.apiKey)
      })
      assertError(nobody, 403, "E_FORBIDDEN")
    }))

  it.effect("the protected-resource metadata names the base address, Herald as its authorization server and the scopes", () =>
    Effect.gen(function*() {
      const url = baseUrl
      const res = yield* call("GET", "/.well-known/oauth-protected-resource")
      assert.strictEqual(res.status, 200)
      assert.match(res.headers.get("content-type") ?? "", /application\/json/)
      assert.strictEqual(res.json.resource, url)
      assert.deepStrictEqual(res.json.authorization_servers, [url])
      assert.deepStrictEqual(res.json.bearer_methods_supported, ["header"])
      for (const scope of ["read:content", "write:content", "publish:social", "read:analytics"]) {
        assert.include(res.json.scopes_supported, scope)
      }
    }))

  it.effect("rotation: the old key is 401 at once, the new key works, member keys survive, key.rotated is logged", () =>
    Effect.gen(function*() {
      const url = baseUrl
      const a = yield* provision()
      const viewer = yield* invite(a, "viewer")
      const withBody = yield* call("POST", `/api/customer/${a.customerId}/rotate-key`, {
        headers: bearer(a.apiKey),
        body: { reason: "x" }
      })
      assertError(withBody, 400, "E_VALIDATION")
      const rotated = yield* call("POST", `/api/customer/${a.customerId}/rotate-key`, {
        headers: bearer(a.apiKey),
        body: {}
      })
      assert.strictEqual(rotated.status, 200, rotated.text)
      const newKey: string = rotated.json.apiKey
      assert.match(newKey, /^svc_live_[0-9a-f]{64}$/)
      assert.strictEqual(rotated.json.mcpEndpoint, `${url}/mcp/sse?token=${newKey}`)
      const old = yield* call("GET", `/api/customer/${a.customerId}`, { headers: bearer(a.apiKey) })
      assertError(old, 401, "E_INVALID_API_KEY", "Invalid API key")
      const fresh = yield* call("GET", `/api/customer/${a.customerId}`, { headers: bearer(newKey) })
      assert.strictEqual(fresh.status, 200)
      const member = yield* call("GET", `/api/customer/${a.customerId}`, { headers: bearer(viewer.apiKey) })
      assert.strictEqual(member.status, 200)
      // No body at all counts as the empty object.
      const noBody = yield* call("POST", `/api/customer/${a.customerId}/rotate-key`, { headers: bearer(newKey) })
      assert.strictEqual(noBody.status, 200, noBody.text)
      const events = yield* call("GET", `/api/events/${a.customerId}`, { headers: bearer(noBody.json.apiKey) })
      const types = events.json.events.map((e: { type: string }) => e.type)
      assert.deepStrictEqual(types.filter((t: string) => t === "key.rotated").length, 2)
      assert.notInclude(events.text, newKey)
      assert.notInclude(events.text, noBody.json.apiKey)
    }))

  it.effect("concurrent rotations leave exactly one live owner key, and exactly one returned key works", () =>
    Effect.gen(function*() {
      const db = yield* DatabaseUrl
      const a = yield* provision()
      const n = 8
      const replies = yield* Effect.forEach(
        Array.from({ length: n }),
        () => call("POST", `/api/customer/${a.customerId}/rotate-key`, { headers: bearer(a.apiKey), body: {} }),
        { concurrency: "unbounded" }
      )
      const keys = replies.filter((r) => r.status === 200).map((r) => r.json.apiKey as string)
      for (const r of replies) assert.include([200, 401], r.status, r.text)
      assert.isAtLeast(keys.length, 1)
      assert.strictEqual(new Set(keys).size, keys.length)
      const rows = yield* withSql(db, (sql) =>
        sql<{ id: string }>`SELECT id FROM api_keys
          WHERE customer_id = ${a.customerId} AND member_id IS NULL AND revoked_at IS NULL`)
      assert.strictEqual(rows.length, 1)
      let working = 0
      for (const key of [a.apiKey, ...keys]) {
        const res = yield* call("GET", `/api/customer/${a.customerId}`, {
          headers: bearer(key, { "x-forwarded-for": randomIp() })
        })
        if (res.status === 200) working++
        else assertError(res, 401, "E_INVALID_API_KEY")
      }
      assert.strictEqual(working, 1)
    }))

  it.effect("team: invite shows the key once, list never does, delete revokes at once; 404 for unknown members", () =>
    Effect.gen(function*() {
      const a = yield* provision()
      const email = "Editor.One@example.com"
      const res = yield* call("POST", `/api/team/${a.customerId}/members`, {
        headers: bearer(a.apiKey),
        body: { email, role: "editor" }
      })
      assert.strictEqual(res.status, 200, res.text)
      assert.deepStrictEqual(Object.keys(res.json).sort(), ["apiKey", "createdAt", "email", "memberId", "role"])
      assert.strictEqual(res.json.email, email)
      assert.strictEqual(res.json.role, "editor")
      assert.match(res.json.apiKey, /^svc_live_[0-9a-f]{64}$/)
      assert.isFalse(Number.isNaN(Date.parse(res.json.createdAt)))
      const member = res.json as { memberId: string; apiKey: string }

      const list = yield* call("GET", `/api/team/${a.customerId}/members`, { headers: bearer(a.apiKey) })
      assert.strictEqual(list.status, 200)
      assert.deepStrictEqual(Object.keys(list.json), ["members"])
      assert.strictEqual(list.json.members.length, 1)
      assert.deepStrictEqual(Object.keys(list.json.members[0]).sort(), ["createdAt", "email", "memberId", "role"])
      assert.notInclude(list.text, member.apiKey)
      assert.notInclude(list.text, member.apiKey.slice(-64))

      const works = yield* call("GET", `/api/customer/${a.customerId}`, { headers: bearer(member.apiKey) })
      assert.strictEqual(works.status, 200)

      const events = yield* call("GET", `/api/events/${a.customerId}`, { headers: bearer(a.apiKey) })
      const invited = events.json.events.find((e: { type: string }) => e.type === "team.invited")
      assert.isDefined(invited)
      assert.strictEqual(invited.data.memberId, member.memberId)
      assert.notInclude(events.text, member.apiKey)

      const removed = yield* call("DELETE", `/api/team/${a.customerId}/members/${member.memberId}`, {
        headers: bearer(a.apiKey)
      })
      assert.strictEqual(removed.status, 200)
      assert.deepStrictEqual(removed.json, { deleted: true })
      const revoked = yield* call("GET", `/api/customer/${a.customerId}`, { headers: bearer(member.apiKey) })
      assertError(revoked, 401, "E_INVALID_API_KEY", "Invalid API key")
      const again = yield* call("DELETE", `/api/team/${a.customerId}/members/${member.memberId}`, {
        headers: bearer(a.apiKey)
      })
      assertError(again, 404, "E_NOT_FOUND")
      const unknown = yield* call("DELETE", `/api/team/${a.customerId}/members/mem_nothing`, {
        headers: bearer(a.apiKey)
      })
      assertError(unknown, 404, "E_NOT_FOUND")
      const after = yield* call("GET", `/api/team/${a.customerId}/members`, { headers: bearer(a.apiKey) })
      assert.deepStrictEqual(after.json, { members: [] })

      // Another customer's member id is 404 under one's own tenant, never a deletion.
      const b = yield* provision()
      const bMember = yield* invite(b, "viewer")
      const cross = yield* call("DELETE", `/api/team/${a.customerId}/members/${bMember.memberId}`, {
        headers: bearer(a.apiKey)
      })
      assertError(cross, 404, "E_NOT_FOUND")
      const still = yield* call("GET", `/api/customer/${b.customerId}`, { headers: bearer(bMember.apiKey) })
      assert.strictEqual(still.status, 200)
    }))

  it.effect("team invite validates its body", () =>
    Effect.gen(function*() {
      const a = yield* provision()
      for (
        const body of [
          { email: "not-an-email", role: "viewer" },
          { email: "x@example.com", role: "owner" },
          { email: "x@example.com" },
          { email: "x@example.com", role: "viewer", extra: true }
        ]
      ) {
        const res = yield* call("POST", `/api/team/${a.customerId}/members`, { headers: bearer(a.apiKey), body })
        assertError(res, 400, "E_VALIDATION")
        assert.isArray(res.json.details, res.text)
      }
    }))

  it.effect("the database holds no plaintext key", () =>
    Effect.gen(function*() {
      const db = yield* DatabaseUrl
      const a = yield* provision()
      const member = yield* invite(a, "admin")
      const rotated = yield* call("POST", `/api/customer/${a.customerId}/rotate-key`, {
        headers: bearer(a.apiKey),
        body: {}
      })
      // The idempotency store must not keep secrets either.
      const keyed = yield* call("POST", `/api/team/${a.customerId}/members`, {
        headers: bearer(rotated.json.apiKey, { "idempotency-key": "secret-check-1" }),
        body: { email: "v@example.com", role: "viewer" }
      })
      assert.strictEqual(keyed.status, 200)
      const issued = [a.apiKey, member.apiKey, rotated.json.apiKey, keyed.json.apiKey] as Array<string>
      const needles = issued.flatMap((key) => [key, key.slice(-64)])
      const found = yield* withSql(db, (sql) =>
        Effect.gen(function*() {
          const columns = yield* sql<{ tableName: string; columnName: string }>`
            SELECT table_name, column_name FROM information_schema.columns
            WHERE table_schema = current_schema()
              AND data_type IN ('text', 'character varying', 'character', 'jsonb', 'json')`
          assert.isAbove(columns.length, 5)
          const hits: Array<string> = []
          for (const { tableName, columnName } of columns) {
            for (const needle of needles) {
              const rows = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql(tableName)}
                WHERE position(${needle} in ${sql(columnName)}::text) > 0`
              if (rows[0].n > 0) hits.push(`${tableName}.${columnName}`)
            }
          }
          return hits
        }))
      assert.deepStrictEqual(found, [])
    }))
})
