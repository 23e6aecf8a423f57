import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { type Role, roleAllows } from "../src/domain/Identity.ts"
import { call, testApp, TestServer } from "./support/harness.ts"
import { assertError, authenticatedEndpoints, bearer, invite, probe, provision } from "./support/processes.ts"

const endpoints = authenticatedEndpoints()
const roles: ReadonlyArray<Role> = ["viewer", "editor", "admin", "owner"]
const chunk = 40

/** A customer whose key of `role` is returned (owner: the customer's own key). */
const keyWithRole = (role: Role) =>
  Effect.gen(function*() {
    const owner = yield* provision({ status: "active" })
    if (role === "owner") return { customer: owner, key: owner.apiKey }
    const member = yield* invite(owner, role)
    return { customer: owner, key: member.apiKey }
  })

layer(testApp({ trustProxy: true }), { timeout: 60_000 })("roles", (it) => {
  it("required roles follow the contract for the identity routes", () => {
    const role = (prefix: string) => endpoints.find((e) => e.id.startsWith(prefix + " "))?.role
    assert.strictEqual(role("customers.get"), "viewer")
    assert.strictEqual(role("customers.events"), "viewer")
    assert.strictEqual(role("customers.rotateKey"), "owner")
    assert.strictEqual(role("team.invite"), "admin")
    // Webhook and team routes need admin for every method, reads included (URLs carry credentials,
    // member lists are personal data); every other read is open to every role.
    assert.strictEqual(role("team.list"), "admin")
    assert.strictEqual(role("webhooks.list"), "admin")
    assert.strictEqual(role("webhooks.deliveries"), "admin")
    for (const e of endpoints) {
      if (e.id.startsWith("webhooks.") || e.id.startsWith("team.")) assert.strictEqual(e.role, "admin", e.id)
    }
    assert.strictEqual(role("team.remove"), "admin")
    // Reading never needs more than viewer unless annotated otherwise; changing needs at least editor.
    for (const e of endpoints) if (e.method !== "GET") assert.notStrictEqual(e.role, "viewer", e.id)
  })

  it.effect("every role against every Bearer route, from the RequiredRole annotations", () =>
    Effect.gen(function*() {
      const { url } = yield* TestServer
      for (const role of roles) {
        let current = yield* keyWithRole(role)
        for (let i = 0; i < endpoints.length; i++) {
          if (i > 0 && i % chunk === 0) current = yield* keyWithRole(role)
          const endpoint = endpoints[i]
          const hasBody = endpoint.method !== "GET" && endpoint.method !== "DELETE" && endpoint.method !== "HEAD"
          // A malformed body stops an allowed change before it happens (400 after the role check).
          const res = yield* Effect.promise(() =>
            probe(
              url,
              endpoint.method,
              endpoint.fill(current.customer.customerId),
              bearer(current.key),
              hasBody ? "{" : undefined
            )
          )
          const label = `${role} on ${endpoint.id} (needs ${endpoint.role}): ${res.status} ${JSON.stringify(res.json)}`
          if (roleAllows(role, endpoint.role)) {
            assert.notInclude([401, 403, 429], res.status, label)
            assert.isBelow(res.status, 500, label)
          } else {
            assert.strictEqual(res.status, 403, label)
            assert.strictEqual(res.json.code, "E_FORBIDDEN", label)
            assert.deepStrictEqual(Object.keys(res.json).sort(), ["code", "error", "requestId"])
          }
        }
      }
    }))

  it.effect("route classes: read = viewer, team and webhooks = admin, rotate-key = owner only", () =>
    Effect.gen(function*() {
      const owner = yield* provision()
      const viewer = yield* invite(owner, "viewer")
      const editor = yield* invite(owner, "editor")
      const admin = yield* invite(owner, "admin")
      const id = owner.customerId
      const expect = (key: string, method: string, path: string, status: number, body?: unknown) =>
        Effect.gen(function*() {
          const res = yield* call(method, path, { headers: bearer(key), ...(body === undefined ? {} : { body }) })
          if (status === 403) assertError(res, 403, "E_FORBIDDEN")
          else assert.strictEqual(res.status, status, `${method} ${path}: ${res.text}`)
          return res
        })
      for (const key of [viewer.apiKey, editor.apiKey, admin.apiKey, owner.apiKey]) {
        yield* expect(key, "GET", `/api/customer/${id}`, 200)
        yield* expect(key, "GET", `/api/events/${id}`, 200)
      }
      for (const key of [viewer.apiKey, editor.apiKey]) {
        yield* expect(key, "GET", `/api/team/${id}/members`, 403)
        yield* expect(key, "GET", `/api/hooks/${id}`, 403)
        yield* expect(key, "POST", `/api/team/${id}/members`, 403, { email: "x@example.com", role: "viewer" })
        yield* expect(key, "DELETE", `/api/team/${id}/members/${viewer.memberId}`, 403)
      }
      const listed = yield* expect(admin.apiKey, "GET", `/api/team/${id}/members`, 200)
      assert.strictEqual(listed.json.members.length, 3)
      const invited = yield* expect(admin.apiKey, "POST", `/api/team/${id}/members`, 200, {
        email: "new@example.com",
        role: "editor"
      })
      yield* expect(admin.apiKey, "DELETE", `/api/team/${id}/members/${invited.json.memberId}`, 200)
      for (const key of [viewer.apiKey, editor.apiKey, admin.apiKey]) {
        const res = yield* expect(key, "POST", `/api/customer/${id}/rotate-key`, 403, {})
        assert.include(res.json.error, "owner")
      }
      const rotated = yield* expect(owner.apiKey, "POST", `/api/customer/${id}/rotate-key`, 200, {})
      // Member keys keep their roles after the owner's rotation.
      yield* expect(admin.apiKey, "GET", `/api/team/${id}/members`, 200)
      yield* expect(admin.apiKey, "GET", `/api/hooks/${id}`, 200)
      yield* expect(viewer.apiKey, "POST", `/api/team/${id}/members`, 403, { email: "y@example.com", role: "viewer" })
      yield* expect(rotated.json.apiKey, "GET", `/api/team/${id}/members`, 200)
    }))
})
