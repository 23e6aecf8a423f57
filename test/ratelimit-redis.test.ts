import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"
import { createClient } from "redis"
import { type Reply, send } from "./support/harness.ts"
import {
  adminSecret,
  awaitFreshWindow,
  bearer,
  provisionAt,
  randomIp,
  type ServerProcess,
  sharedDatabase,
  spawnServer
} from "./support/processes.ts"

const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379"
const keyPrefix = `herald-test-${randomBytes(6).toString("hex")}:`

/** Two service processes on one database: with a shared Redis, and without. */
class Cluster extends Context.Service<Cluster, {
  readonly shared: readonly [ServerProcess, ServerProcess]
  readonly separate: readonly [ServerProcess, ServerProcess]
}>()("test/Cluster") {}

const ClusterLive = Layer.effect(
  Cluster,
  Effect.gen(function*() {
    const database = yield* sharedDatabase
    const env = (redis: boolean) => ({
      DATABASE_URL: database,
      REDIS_URL: redis ? redisUrl : undefined,
      REDIS_KEY_PREFIX: keyPrefix,
      ADMIN_SECRET: adminSecret,
      TRUST_PROXY: "true",
      PG_MAX_CONNECTIONS: "2",
      STATUS_PROBE_INTERVAL_MS: "3600000",
      LOG_LEVEL: "error"
    })
    // One at a time: the first applies the migrations.
    const a = yield* spawnServer({ env: env(true) })
    const b = yield* spawnServer({ env: env(true) })
    const c = yield* spawnServer({ env: env(false) })
    const d = yield* spawnServer({ env: env(false) })
    yield* Effect.addFinalizer(() =>
      Effect.promise(async () => {
        const client = createClient({ url: redisUrl })
        await client.connect()
        const keys = await client.keys(`${keyPrefix}*`)
        if (keys.length > 0) await client.del(keys)
        await client.close()
      }).pipe(Effect.ignore)
    )
    return { shared: [a, b] as const, separate: [c, d] as const }
  })
)

const get = (server: ServerProcess, path: string, headers: Record<string, string>) =>
  Effect.promise(() => send(server.url, "GET", path, { headers }))

const remaining = (res: Reply) => Number(/;r=(\d+);/.exec(res.headers.get("ratelimit") ?? "")?.[1])

const assertLimited = (res: Reply, policy: string) => {
  assert.strictEqual(res.status, 429, res.text)
  assert.strictEqual(res.json.code, "E_RATE_LIMITED")
  assert.strictEqual(res.json.error, "Rate limit exceeded")
  assert.strictEqual(res.json.requestId, res.headers.get("x-request-id"))
  assert.match(res.headers.get("retry-after") ?? "", /^[1-9]\d*$/)
  assert.strictEqual(res.headers.get("ratelimit-policy"), `"${policy}";q=${policy === "rest" ? 60 : 20};w=60`)
}

layer(ClusterLive, { timeout: 90_000 })("rate limits across processes", (it) => {
  it.effect("a window's counter outlives its window, so a process whose clock runs ahead cannot restart a count", () =>
    Effect.gen(function*() {
      const { shared: [p1] } = yield* Cluster
      const customer = yield* Effect.promise(() => provisionAt(p1))
      const res = yield* get(p1, `/api/customer/${customer.customerId}`, bearer(customer.apiKey))
      assert.strictEqual(res.status, 200, res.text)
      const ttls = yield* Effect.promise(async () => {
        const client = createClient({ url: redisUrl })
        await client.connect()
        const keys = await client.keys(`${keyPrefix}rest:${customer.customerId}:*`)
        const found = await Promise.all(keys.map((key) => client.pTTL(key)))
        await client.close()
        return found
      })
      assert.strictEqual(ttls.length, 1)
      assert.isAbove(ttls[0], 60_000)
      assert.isAtMost(ttls[0], 120_000)
    }))

  it.effect("with Redis, 60 REST requests split across two processes pass and the 61st is 429 on either", () =>
    Effect.gen(function*() {
      const { shared: [p1, p2] } = yield* Cluster
      const customer = yield* Effect.promise(() => provisionAt(p1))
      yield* awaitFreshWindow(20)
      const path = `/api/customer/${customer.customerId}`
      for (let n = 1; n <= 60; n++) {
        const res = yield* get(n % 2 === 0 ? p1 : p2, path, bearer(customer.apiKey))
        assert.strictEqual(res.status, 200, `request ${n}: ${res.text}`)
        assert.strictEqual(remaining(res), 60 - n, `request ${n}`)
      }
      assertLimited(yield* get(p2, path, bearer(customer.apiKey)), "rest")
      assertLimited(yield* get(p1, path, bearer(customer.apiKey)), "rest")
      // The counters really live under the configured prefix.
      const keys = yield* Effect.promise(async () => {
        const client = createClient({ url: redisUrl })
        await client.connect()
        const found = await client.keys(`${keyPrefix}rest:${customer.customerId}:*`)
        await client.close()
        return found
      })
      assert.strictEqual(keys.length, 1)
    }))

  it.effect("with Redis, pre-auth failures from one address add up across processes", () =>
    Effect.gen(function*() {
      const { shared: [p1, p2] } = yield* Cluster
      const customer = yield* Effect.promise(() => provisionAt(p2))
      yield* awaitFreshWindow(15)
      const ip = randomIp()
      const path = `/api/customer/${customer.customerId}`
      for (let n = 1; n <= 20; n++) {
        const res = yield* get(n % 2 === 0 ? p1 : p2, path, { authorization: "Bearer nope", "x-forwarded-for": ip })
        assert.strictEqual(res.status, 401)
        assert.strictEqual(remaining(res), 20 - n)
      }
      const ok = yield* get(p1, path, bearer(customer.apiKey, { "x-forwarded-for": ip }))
      assert.strictEqual(ok.status, 200)
      assertLimited(yield* get(p2, path, { authorization: "Bearer nope", "x-forwarded-for": ip }), "pre-auth")
      assertLimited(yield* get(p1, path, bearer(customer.apiKey, { "x-forwarded-for": ip })), "pre-auth")
    }))

  it.effect("without Redis each process keeps its own counters", () =>
    Effect.gen(function*() {
      const { separate: [p3, p4] } = yield* Cluster
      const customer = yield* Effect.promise(() => provisionAt(p3))
      yield* awaitFreshWindow(20)
      const path = `/api/customer/${customer.customerId}`
      for (let n = 1; n <= 60; n++) {
        const res = yield* get(p3, path, bearer(customer.apiKey))
        assert.strictEqual(res.status, 200, `request ${n}`)
        assert.strictEqual(remaining(res), 60 - n)
      }
      assertLimited(yield* get(p3, path, bearer(customer.apiKey)), "rest")
      const other = yield* get(p4, path, bearer(customer.apiKey))
      assert.strictEqual(other.status, 200, "the second process has its own budget")
      assert.strictEqual(remaining(other), 59)
    }))
})
