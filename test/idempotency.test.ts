import { NodeHttpServer } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import { SqlClient } from "effect/sql"
import { createServer } from "node:http"
import { AppConfig, appConfig } from "../src/Config.ts"
import { Customers } from "../src/features/customers/Customers.ts"
import { DatabaseLive } from "../src/platform/Database.ts"
import { Events } from "../src/platform/Events.ts"
import { Idempotency } from "../src/platform/Idempotency.ts"
import { AccessTokens, Keys } from "../src/platform/Keys.ts"
import { call, send, testApp, testDatabaseUrl, TestServer } from "./support/harness.ts"
import { assertError, bearer, provision } from "./support/processes.ts"

/** Every stored idempotency row, as text. */
const dumpIdempotencyRows = Effect.gen(function*() {
  const { sql } = yield* TestServer
  const rows = yield* Effect.orDie(sql`SELECT * FROM idempotency_keys`)
  return JSON.stringify(rows)
})

layer(testApp({ trustProxy: true }), { timeout: 60_000 })("Idempotency-Key on the API", (it) => {
  it.effect("a response that revealed a key replays it to the same key and body, sealed at rest; key order does not matter", () =>
    Effect.gen(function*() {
      const a = yield* provision()
      const headers = bearer(a.apiKey, { "idempotency-key": "invite-1" })
      const first = yield* call("POST", `/api/team/${a.customerId}/members`, {
        headers,
        body: { email: "once@example.com", role: "viewer" }
      })
      assert.strictEqual(first.status, 200, first.text)
      assert.isNull(first.headers.get("idempotent-replayed"))
      // The same JSON, keys in another order and spaced differently, is the same request.
      const again = yield* call("POST", `/api/team/${a.customerId}/members`, {
        headers: { ...headers, "content-type": "application/json" },
        body: "{ \"role\": \"viewer\",  \"email\": \"once@example.com\" }",
        raw: true
      })
      assert.strictEqual(again.status, 200, again.text)
      assert.strictEqual(again.headers.get("idempotent-replayed"), "true")
      assert.deepStrictEqual(again.json, first.json)
      const other = yield* call("POST", `/api/team/${a.customerId}/members`, {
        headers,
        body: { email: "once@example.com", role: "editor" }
      })
      assertError(other, 409, "E_CONFLICT")
      const list = yield* call("GET", `/api/team/${a.customerId}/members`, { headers: bearer(a.apiKey) })
      assert.strictEqual(list.json.members.length, 1, "the retried invite created nothing")

      // Rotation: Idempotency-Keys are scoped to the key that sent them, so the new key reusing
      // the rotation's Idempotency-Key is a request of its own, never the replay of the answer to the old key.
      const rotateHeaders = bearer(a.apiKey, { "idempotency-key": "rotate-1" })
      const rotated = yield* call("POST", `/api/customer/${a.customerId}/rotate-key`, {
        headers: rotateHeaders,
        body: {}
      })
      assert.strictEqual(rotated.status, 200)
      const byNewKey = yield* call("POST", `/api/customer/${a.customerId}/rotate-key`, {
        headers: bearer(rotated.json.apiKey, { "idempotency-key": "rotate-1" })
      })
      assert.strictEqual(byNewKey.status, 200, byNewKey.text)
      assert.isNull(byNewKey.headers.get("idempotent-replayed"))
      assert.notStrictEqual(byNewKey.json.apiKey, rotated.json.apiKey)
      const still = yield* call("GET", `/api/customer/${a.customerId}`, { headers: bearer(byNewKey.json.apiKey) })
      assert.strictEqual(still.status, 200)

      // Neither key, nor the Idempotency-Key, is readable in the stored replies.
      const dump = yield* dumpIdempotencyRows
      for (const secret of [first.json.apiKey, rotated.json.apiKey, "invite-1", "rotate-1"]) {
        assert.notInclude(dump, secret)
      }
    }))

  it.effect("kept replies older than 24 h are swept; younger ones stay", () =>
    Effect.gen(function*() {
      const { sql } = yield* TestServer
      yield* Effect.orDie(sql`INSERT INTO idempotency_keys (scope, key_hash, method, path, request_hash, created_at)
        VALUES ('sweep-test', 'old', 'POST', '/x', 'h', now() - interval '25 hours'),
               ('sweep-test', 'young', 'POST', '/x', 'h', now() - interval '23 hours')`)
      // The app's own sweeper took this hour's period at start: the next one is made due.
      yield* Effect.orDie(sql`UPDATE scheduled_jobs SET next_run_at = now() WHERE name = 'idempotency sweep'`)
      yield* Layer.build(Idempotency.sweeper.pipe(Layer.provide(Layer.succeed(SqlClient.SqlClient, sql))))
      let left: ReadonlyArray<string> = []
      for (let i = 0; i < 50; i++) {
        left = (yield* Effect.orDie(
          sql<{ keyHash: string }>`SELECT key_hash FROM idempotency_keys WHERE scope = 'sweep-test'`
        ))
          .map((row) => row.keyHash)
        if (left.length === 1) break
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
      }
      assert.deepStrictEqual(left, ["young"])
    }))

  it.effect("operator provisioning honours Idempotency-Key", () =>
    Effect.gen(function*() {
      const admin = { "x-admin-secret": "test-admin-secret", "idempotency-key": "prov-1" }
      const first = yield* call("POST", "/api/admin/provision", { headers: admin, body: { email: "idem@example.com" } })
      assert.strictEqual(first.status, 200, first.text)
      const again = yield* call("POST", "/api/admin/provision", { headers: admin, body: { email: "idem@example.com" } })
      assert.strictEqual(again.status, 200)
      assert.strictEqual(again.headers.get("idempotent-replayed"), "true")
      assert.strictEqual(again.json.customerId, first.json.customerId)
      assert.strictEqual(again.json.apiKey, first.json.apiKey)
      const other = yield* call("POST", "/api/admin/provision", {
        headers: admin,
        body: { email: "idem2@example.com" }
      })
      assertError(other, 409, "E_CONFLICT")
    }))

  it.effect("keys are scoped per customer; a failed request frees its key; bad keys are 400", () =>
    Effect.gen(function*() {
      const a = yield* provision()
      const b = yield* provision()
      const body = { email: "same@example.com", role: "viewer" }
      const ra = yield* call("POST", `/api/team/${a.customerId}/members`, {
        headers: bearer(a.apiKey, { "idempotency-key": "shared" }),
        body
      })
      const rb = yield* call("POST", `/api/team/${b.customerId}/members`, {
        headers: bearer(b.apiKey, { "idempotency-key": "shared" }),
        body
      })
      assert.strictEqual(ra.status, 200)
      assert.strictEqual(rb.status, 200, rb.text)
      const bad = yield* call("POST", `/api/team/${a.customerId}/members`, {
        headers: bearer(a.apiKey, { "idempotency-key": "retry-me" }),
        body: { email: "nope", role: "viewer" }
      })
      assertError(bad, 400, "E_VALIDATION")
      const good = yield* call("POST", `/api/team/${a.customerId}/members`, {
        headers: bearer(a.apiKey, { "idempotency-key": "retry-me" }),
        body: { email: "fixed@example.com", role: "viewer" }
      })
      assert.strictEqual(good.status, 200, good.text)
      const tooLong = yield* call("POST", `/api/team/${a.customerId}/members`, {
        headers: bearer(a.apiKey, { "idempotency-key": "k".repeat(256) }),
        body: { email: "long@example.com", role: "viewer" }
      })
      assertError(tooLong, 400, "E_VALIDATION")
      // Another tenant's route is 403 before any idempotency bookkeeping.
      const cross = yield* call("POST", `/api/team/${a.customerId}/members`, {
        headers: bearer(b.apiKey, { "idempotency-key": "shared" }),
        body
      })
      assertError(cross, 403, "E_FORBIDDEN")
    }))
})

/**
 * Replay of a secret-free response, through real HTTP and the real store, on a
 * probe route wrapped by the same Idempotency service the Bearer middleware
 * uses (the identity routes' POSTs all reveal a key, so none replays).
 */
class Probe
  extends Context.Service<Probe, { readonly url: string; readonly customerId: string; readonly calls: () => number }>()(
    "test/IdempotencyProbe"
  )
{}

const ProbeLive = Layer.effect(
  Probe,
  Effect.gen(function*() {
    const databaseUrl = yield* testDatabaseUrl
    const base = yield* Effect.orDie(appConfig)
    const config = {
      ...base,
      databaseUrl: Option.some(Redacted.make(databaseUrl)),
      logLevel: "none" as const,
      pgMaxConnections: 2
    }
    let calls = 0
    const route = HttpRouter.use((router) =>
      Effect.gen(function*() {
        const idempotency = yield* Idempotency
        yield* router.add("POST", "/probe/:customerId", (request) =>
          Effect.gen(function*() {
            const { params } = yield* HttpRouter.RouteContext
            return yield* idempotency.wrap(
              params.customerId!,
              Effect.gen(function*() {
                const body = (yield* Effect.orDie(request.json)) as { fail?: boolean; secret?: boolean }
                calls++
                if (body.fail === true) return HttpServerResponse.jsonUnsafe({ error: "refused" }, { status: 422 })
                return HttpServerResponse.jsonUnsafe(
                  { call: calls, body, ...(body.secret === true ? { secret: "whsec_x" } : {}) },
                  { status: 200 }
                )
              }),
              request
            )
          }).pipe(
            Effect.catch((error: { code: string; error: string }) =>
              Effect.succeed(HttpServerResponse.jsonUnsafe({ code: error.code, error: error.error }, {
                status: error.code === "E_CONFLICT" ? 409 : 400
              }))
            )
          ))
      })
    )
    const scope = yield* Effect.scope
    const context = yield* Layer.buildWithScope(
      HttpRouter.serve(route, { disableLogger: true, disableListenLog: true }).pipe(
        Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
        Layer.provideMerge(Customers.layer),
        Layer.provideMerge(
          Layer.mergeAll(Idempotency.layer, Events.layer, Keys.layer.pipe(Layer.provide(AccessTokens.layer)))
        ),
        Layer.provideMerge(DatabaseLive),
        Layer.provideMerge(Layer.succeed(AppConfig, config))
      ),
      scope
    )
    const address = Context.get(context, HttpServer.HttpServer).address
    if (address._tag === "UnixPathAddress") return yield* Effect.die("expected a TCP address")
    const { customer } = yield* Context.get(context, Customers).provision({ email: "probe@example.com" })
    return { url: `http://127.0.0.1:${address.port}`, customerId: customer.id, calls: () => calls }
  })
)

layer(ProbeLive, { timeout: 60_000 })("Idempotency-Key replay", (it) => {
  it.effect("same key and body replays the first response; other body is 409; errors are not kept", () =>
    Effect.gen(function*() {
      const { url, customerId, calls } = yield* Probe
      const post = (key: string | undefined, body: unknown) =>
        Effect.promise(() =>
          send(url, "POST", `/probe/${customerId}`, {
            headers: key === undefined ? {} : { "idempotency-key": key },
            body
          })
        )
      const first = yield* post("k1", { a: 1 })
      assert.strictEqual(first.status, 200)
      assert.isNull(first.headers.get("idempotent-replayed"))
      const replay = yield* post("k1", { a: 1 })
      assert.strictEqual(replay.status, 200)
      assert.strictEqual(replay.headers.get("idempotent-replayed"), "true")
      assert.strictEqual(replay.text, first.text)
      assert.match(replay.headers.get("content-type") ?? "", /application\/json/)
      assert.strictEqual(calls(), 1, "the handler ran once")
      const conflict = yield* post("k1", { a: 2 })
      assert.strictEqual(conflict.status, 409)
      assert.strictEqual(conflict.json.code, "E_CONFLICT")
      // Without a key nothing is remembered.
      yield* post(undefined, { a: 1 })
      yield* post(undefined, { a: 1 })
      assert.strictEqual(calls(), 3)
      // A failed response frees the key for a retry.
      const failed = yield* post("k2", { fail: true })
      assert.strictEqual(failed.status, 422)
      const retried = yield* post("k2", { fail: true })
      assert.strictEqual(retried.status, 422)
      assert.isNull(retried.headers.get("idempotent-replayed"))
      assert.strictEqual(calls(), 5)
      // A response carrying a secret replays too (it is sealed at rest).
      const secret = yield* post("k3", { secret: true })
      assert.strictEqual(secret.status, 200)
      const secretAgain = yield* post("k3", { secret: true })
      assert.strictEqual(secretAgain.status, 200)
      assert.strictEqual(secretAgain.text, secret.text)
      assert.strictEqual(calls(), 6)
    }))

  it.effect("concurrent requests with one key run the handler once", () =>
    Effect.gen(function*() {
      const { url, customerId, calls } = yield* Probe
      const before = calls()
      const replies = yield* Effect.promise(() =>
        Promise.all(Array.from({ length: 6 }, () =>
          send(url, "POST", `/probe/${customerId}`, { headers: { "idempotency-key": "burst" }, body: { b: 1 } })))
      )
      assert.strictEqual(calls() - before, 1)
      for (const r of replies) {
        assert.include([200, 409], r.status)
      }
      const ok = replies.filter((r) =>
        r.status === 200
      )
      assert.isAtLeast(ok.length, 1)
      for (const r of ok) assert.strictEqual(r.json.call, before + 1)
    }))
})
